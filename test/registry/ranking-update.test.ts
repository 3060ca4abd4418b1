/**
 * The last ranking carried over to a rescan: patched where only records changed that keep their
 * name, reused where nothing changed, and given up (so the caller ranks again) wherever a patch
 * could differ from a full ranking. Each patch is checked against `rankSkills` itself.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { rankSkills } from "../../src/registry/precedence.js";
import { rankingAfter, type Ranking } from "../../src/registry/ranking-update.js";
import { TimeSlicer } from "../../src/registry/time-slice.js";
import type { Origin, RegisteredSkill } from "../../src/registry/types.js";

/** Sources in configured order whose origins rank in another order, as a real configuration may. */
const ORIGINS: Origin[] = ["bundled", "global", "agent", "project", "global"];
const originOf = (index: number) => ORIGINS[index]!;

function record(sourceIndex: number, name: string, description = `${name} does things.`): RegisteredSkill {
  const dir = `/skills/${sourceIndex}/${name}`;
  return Object.freeze({
    name,
    description,
    dir,
    skillFile: `${dir}/SKILL.md`,
    manifest: Object.freeze({}),
    stamp: Object.freeze({ size: 1, mtimeMs: 1, ctimeMs: 1, ino: sourceIndex * 100 + name.length }),
    diagnostics: Object.freeze([]),
    origin: originOf(sourceIndex),
    label: originOf(sourceIndex),
    sourceIndex,
    ...(originOf(sourceIndex) === "agent" ? { agentId: "a1" } : {}),
  }) as unknown as RegisteredSkill;
}

function bySource(names: string[][]): Map<number, RegisteredSkill[]> {
  return new Map(names.map((list, index) => [index, list.map((name) => record(index, name))]));
}

async function ranking(records: Map<number, RegisteredSkill[]>): Promise<Ranking> {
  return { bySource: records, ranked: await rankSkills([...records.values()].flat(), new TimeSlicer()) };
}

const NAMES = [["b1", "b2"], ["g1", "g2", "g3"], ["a1"], ["p1", "p2"], ["h1", "h2"]];

test("a record edited in any source takes its predecessor's place, as a full ranking would put it", async () => {
  const last = await ranking(bySource(NAMES));
  for (const [index, names] of NAMES.entries()) {
    for (let i = 0; i < names.length; i++) {
      const next = new Map(last.bySource as Map<number, RegisteredSkill[]>);
      const edited = [...next.get(index)!];
      edited[i] = record(index, names[i]!, "Edited.");
      next.set(index, edited);
      const patched = rankingAfter(last, next, originOf);
      assert.ok(patched, `source ${index}, record ${i}: patched`);
      const full = await rankSkills([...next.values()].flat(), new TimeSlicer());
      assert.deepEqual(patched.skills, full.skills, `source ${index}, record ${i}`);
      assert.ok(patched.skills.includes(edited[i]!));
      assert.equal(patched.diagnostics.length, 0);
    }
  }
});

test("the same records in every source reuse the last ranking, even in a new array", async () => {
  const last = await ranking(bySource(NAMES));
  assert.equal(rankingAfter(last, last.bySource, originOf), last.ranked);
  const copied = new Map([...last.bySource].map(([index, records]) => [index, [...records]]));
  assert.equal(rankingAfter(last, copied, originOf), last.ranked);
});

test("a patch never changes the last ranking's own array", async () => {
  const last = await ranking(bySource(NAMES));
  const before = [...last.ranked.skills];
  const next = new Map(last.bySource as Map<number, RegisteredSkill[]>);
  next.set(1, [record(1, "g1", "Edited."), ...next.get(1)!.slice(1)]);
  assert.ok(rankingAfter(last, next, originOf));
  assert.deepEqual(last.ranked.skills, before);
});

test("a renamed, added or removed record, a new source, or a collision anywhere asks for a full ranking", async () => {
  const last = await ranking(bySource(NAMES));
  const withSource = (index: number, records: RegisteredSkill[]) => new Map(last.bySource as Map<number, RegisteredSkill[]>).set(index, records);
  assert.equal(rankingAfter(last, withSource(1, [record(1, "renamed"), ...last.bySource.get(1)!.slice(1)]), originOf), null, "renamed");
  assert.equal(rankingAfter(last, withSource(1, [...last.bySource.get(1)!, record(1, "g4")]), originOf), null, "added");
  assert.equal(rankingAfter(last, withSource(1, last.bySource.get(1)!.slice(1)), originOf), null, "removed");
  assert.equal(rankingAfter(last, withSource(5, []), originOf), null, "a new source");

  // b1 in source 4 (global) and source 0 (bundled): a shadowed diagnostic, so no patch.
  const colliding = await ranking(bySource([["b1", "b2"], ["g1"], ["a1"], ["p1"], ["b1"]]));
  assert.ok(colliding.ranked.diagnostics.length > 0);
  const next = new Map(colliding.bySource as Map<number, RegisteredSkill[]>).set(1, [record(1, "g1", "Edited.")]);
  assert.equal(rankingAfter(colliding, next, originOf), null);
});

test("a ranking that dropped a duplicate of one directory is not patched: its positions no longer match the records", async () => {
  const twice = new Map([
    [0, [record(0, "b1")]],
    [1, [record(1, "g1")]],
  ]);
  // The same real directory reached through a second source of the same group: kept once, no diagnostic.
  const duplicate = { ...twice.get(1)![0]!, sourceIndex: 4, origin: "global" as const };
  twice.set(4, [Object.freeze(duplicate) as RegisteredSkill]);
  const last = await ranking(twice);
  assert.equal(last.ranked.diagnostics.length, 0);
  assert.equal(last.ranked.skills.length, 2);
  const next = new Map(twice).set(0, [record(0, "b1", "Edited.")]);
  assert.equal(rankingAfter(last, next, originOf), null);
});
