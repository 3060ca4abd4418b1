/**
 * The last ranking carried over to a rescan, so that a refresh after one edit costs what the
 * edit changed rather than a ranking of every skill. A scan hands over its records per source;
 * a source a partial rescan did not walk hands over the very array it had, so it is passed over
 * with one comparison, and only the sources walked again are looked at record by record.
 */
import { ORIGIN_RANK } from "./sources.js";
import type { RankedSkills } from "./precedence.js";
import type { Origin, RegisteredSkill } from "./types.js";

/** A ranking and the records it ranked, per source index in ascending order. */
export interface Ranking {
  bySource: ReadonlyMap<number, readonly RegisteredSkill[]>;
  /** Its `skills` array is never frozen or handed out: a snapshot takes a frozen copy, and copying a frozen array is the slow path. */
  ranked: RankedSkills;
}

/**
 * `last.ranked` itself when every source holds the same records, a patched copy when only
 * records changed that keep their name and place in a ranking without any collision (an edit of
 * a skill's text, the common change a watcher reports), or null when the records must be
 * ranked again.
 */
export function rankingAfter(last: Ranking, bySource: ReadonlyMap<number, readonly RegisteredSkill[]>, originOf: (index: number) => Origin): RankedSkills | null {
  if (last.bySource.size !== bySource.size) return null;
  /** Per source walked again, its index and the positions whose record changed. */
  let changes: Array<{ index: number; at: number[] }> | null = null;
  for (const [index, records] of bySource) {
    const before = last.bySource.get(index);
    if (before === undefined || before.length !== records.length) return null;
    if (before === records) continue;
    let at: number[] | null = null;
    for (let i = 0; i < records.length; i++) if (before[i] !== records[i]) (at ??= []).push(i);
    if (at !== null) (changes ??= []).push({ index, at });
  }
  if (changes === null) return last.ranked;
  // With a collision, one changed record can change who wins elsewhere; with a skill dropped
  // (the same directory through two sources), positions no longer line up with the records.
  const previous = last.ranked.skills;
  let total = 0;
  for (const records of bySource.values()) total += records.length;
  if (last.ranked.diagnostics.length > 0 || previous.length !== total) return null;
  const skills = previous.slice();
  for (const { index, at } of changes) {
    // Without collisions the ranking is every record, by origin rank then source index: the
    // records of the sources before this one come first.
    const rank = ORIGIN_RANK[originOf(index)];
    let offset = 0;
    for (const [other, records] of bySource) {
      const otherRank = ORIGIN_RANK[originOf(other)];
      if (otherRank < rank || (otherRank === rank && other < index)) offset += records.length;
    }
    const before = last.bySource.get(index)!;
    const after = bySource.get(index)!;
    for (const i of at) {
      if (before[i]!.name !== after[i]!.name || skills[offset + i] !== before[i]) return null;
      skills[offset + i] = after[i]!;
    }
  }
  return { skills, diagnostics: [], diagnosticGroups: new Map() };
}

/** Every source's records in source order: what a full ranking takes. */
export function candidatesOf(bySource: ReadonlyMap<number, readonly RegisteredSkill[]>): RegisteredSkill[] {
  return ([] as RegisteredSkill[]).concat(...bySource.values());
}
