/**
 * The registry's side of a source walk run in a worker (`walk-job.ts` is the worker's side):
 * sends the source with what the registry already holds of it, and turns what comes back into
 * the source's discovery plus a record for each file the walk read, handed over batch by batch
 * as the batches arrive, so the registry files them while other walks still run rather than all
 * at the end. An unchanged directory comes back as a number, so a rescan of an unchanged source
 * costs the event loop almost nothing.
 */
import type { FileStamp } from "../package/types.js";
import type { FoundSkill, SourceDiscovery } from "./discover.js";
import type { KnownSkills } from "./parse-protocol.js";
import { runInWorker } from "./parse-pool.js";
import { fromWire, type LoadedSkill } from "./skill-wire.js";

export interface FreshLoad {
  /** The directory as found, with the stamp its SKILL.md was read at. */
  found: FoundSkill;
  loaded: LoadedSkill;
}

export interface SourceWalk {
  discovery: SourceDiscovery;
  /** How many SKILL.md files the walk read (new and changed ones). */
  reads: number;
}

/**
 * `previous` is the source's last discovery and `stampOf` gives the stamp the registry's copy of
 * each file was read at; a directory found unchanged comes back as that same `FoundSkill`. Each
 * file read goes to `onLoad`, in walk order.
 */
export async function walkInWorker(
  source: string,
  previous: readonly FoundSkill[],
  stampOf: (found: FoundSkill) => FileStamp | undefined,
  onLoad: (load: FreshLoad) => void,
): Promise<SourceWalk> {
  const known: KnownSkills = { dirs: new Array<string>(previous.length), stamps: new Float64Array(previous.length * 3) };
  for (let i = 0; i < previous.length; i++) {
    known.dirs[i] = previous[i]!.dir;
    // A file the registry holds no copy of is never "unchanged": NaN equals nothing.
    const stamp = stampOf(previous[i]!);
    known.stamps[i * 3] = stamp ? stamp.size : NaN;
    known.stamps[i * 3 + 1] = stamp ? stamp.mtimeMs : NaN;
    known.stamps[i * 3 + 2] = stamp ? stamp.ino : NaN;
  }
  const found: FoundSkill[] = [];
  let reads = 0;
  let report: Pick<SourceDiscovery, "diagnostics" | "failed"> | null = null;
  await runInWorker({ kind: "walk", source, known }, (message) => {
    if (message.kind === "walked") report = { diagnostics: message.diagnostics, failed: message.failed };
    if (message.kind !== "found") return;
    for (let i = 0; i < message.found.length; i++) {
      const entry = message.found[i]!;
      if (typeof entry === "number") {
        found.push(previous[entry]!);
        continue;
      }
      const loaded = fromWire(entry, entry.dir, entry.skillFile);
      // A loaded skill's stamp is the one it was read at: share it rather than keep a copy.
      const stamp = loaded.skill?.stamp ?? { size: entry.size, mtimeMs: entry.mtimeMs, ino: entry.ino };
      const skill: FoundSkill = { dir: entry.dir, skillFile: entry.skillFile, stamp };
      found.push(skill);
      reads += 1;
      onLoad({ found: skill, loaded });
    }
  });
  // Set by the message handler, which the compiler does not follow.
  const walked = report as Pick<SourceDiscovery, "diagnostics" | "failed"> | null;
  if (!walked) throw new Error(`the walk of ${source} ended without its report`);
  return { discovery: { found, diagnostics: walked.diagnostics, failed: walked.failed }, reads };
}
