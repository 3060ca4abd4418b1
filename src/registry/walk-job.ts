/**
 * A source walk run inside a parse worker (`worker-walk.ts` is the registry's side). It finds
 * skill directories exactly as the main thread's walk does, but reads as it goes: a directory it
 * does not know is opened and loaded straight away, its stamp taken from the open file, which
 * saves the separate `stat` the main thread's walk pays per skill; a known one is only stat'ed,
 * and read again only when its stamp changed.
 */
import { loadSkillSync } from "../package/load.js";
import type { FileStamp } from "../package/types.js";
import { discoverSource, statSkillFile, type FoundSkill, type SkillProbe, type WalkProblems } from "./discover.js";
import type { FoundWire, KnownSkills } from "./parse-protocol.js";
import { toPlacedWire } from "./skill-wire.js";
import { TimeSlicer } from "./time-slice.js";

/** A worker has no event loop to keep free, so its walk never yields. */
const NEVER_YIELD = new TimeSlicer(Number.POSITIVE_INFINITY);

/** Walks `source`, handing each skill directory found to `emit` in walk order. */
export async function walkSource(source: string, known: KnownSkills, emit: (found: FoundWire) => void): Promise<WalkProblems> {
  const knownIndex = new Map<string, number>();
  for (let i = 0; i < known.dirs.length; i++) knownIndex.set(known.dirs[i]!, i);

  const load = (dir: string, problems: WalkProblems, statted: FoundSkill | null): FoundSkill | null => {
    const result = loadSkillSync(dir);
    let found: FoundSkill | null;
    if (result.skill) {
      found = { dir, skillFile: result.skill.skillFile, stamp: result.skill.stamp };
    } else {
      // Not loadable, or no skill here at all: the stat probe tells which, and reports trouble
      // (an unsearchable directory) exactly as the main thread's walk would.
      found = statted ?? statSkillFile(dir, problems);
    }
    if (found) emit(toPlacedWire(result, found));
    return found;
  };

  const probe: SkillProbe = (dir, problems) => {
    const index = knownIndex.get(dir);
    if (index === undefined) return load(dir, problems, null);
    const statted = statSkillFile(dir, problems);
    if (!statted) return null;
    if (!sameAsKnown(known.stamps, index, statted.stamp)) return load(dir, problems, statted);
    emit(index);
    return statted;
  };

  const discovery = await discoverSource(source, NEVER_YIELD, probe);
  return { diagnostics: discovery.diagnostics, failed: discovery.failed };
}

function sameAsKnown(stamps: Float64Array, index: number, stamp: FileStamp): boolean {
  return stamps[index * 3] === stamp.size && stamps[index * 3 + 1] === stamp.mtimeMs && stamps[index * 3 + 2] === stamp.ino;
}
