/**
 * One source walk that reads as it goes, run in a parse worker or on the main thread in time
 * slices (`source-walk.ts` is the registry's side of both). It finds skill directories as
 * `discoverSource` does: a directory it does not know is opened and loaded straight away, its
 * stamp taken from the open file, which saves a separate `stat` per new skill; a known one is
 * only stat'ed, and read again only when its stamp changed.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { loadSkillSyncMarked } from "../package/load.js";
import type { FileStamp, LoadResult } from "../package/types.js";
import { DEFAULT_WALK_OPTIONS, discoverSource, statSkillFile, type FoundSkill, type SkillProbe, type WalkOptions, type WalkProblems } from "./discover.js";
import type { SourceParseCache } from "./parse-cache.js";
import { STAMP_NUMBERS, type FoundWire, type KnownSkills } from "./parse-protocol.js";
import { inspectSkillText } from "./skill-audit.js";
import { toPlacedWire, type LoadedSkill } from "./skill-wire.js";
import { TimeSlicer } from "./time-slice.js";

/** A worker has no event loop to keep free, so its walk never yields. */
const NEVER_YIELD = new TimeSlicer(Number.POSITIVE_INFINITY);

/** Where a walk hands each skill directory it finds, in walk order. */
export interface WalkSink {
  /** A known directory whose SKILL.md is unchanged: its index in `KnownSkills.dirs`. */
  known(index: number): void;
  /** A new or changed directory, with what loading it gave. */
  loaded(result: LoadResult, found: FoundSkill): void;
  /** A new directory whose SKILL.md the parse cache holds at its current stamps (only walks given a cache). */
  cached?(loaded: LoadedSkill, found: FoundSkill): void;
}

/** The sink a worker uses: every directory as a compact record, ready to post. */
export function wireSink(emit: (found: FoundWire) => void): WalkSink {
  return { known: emit, loaded: (result, found) => emit(toPlacedWire(result, found)) };
}

/** Walks `source`, handing each skill directory found to `sink` in walk order. */
export async function walkSource(
  source: string,
  known: KnownSkills,
  sink: WalkSink,
  slicer: TimeSlicer = NEVER_YIELD,
  options: WalkOptions = DEFAULT_WALK_OPTIONS,
  /** The source's parse cache (a first scan on the registry's thread): consulted before a read, filled after one. */
  cache?: SourceParseCache,
): Promise<WalkProblems> {
  const knownIndex = new Map<string, number>();
  for (let i = 0; i < known.dirs.length; i++) knownIndex.set(known.dirs[i]!, i);

  const load = (dir: string, problems: WalkProblems, statted: FoundSkill | null): FoundSkill | null => {
    if (cache !== undefined) {
      const hit = cache.take(dir);
      if (hit !== null) {
        sink.cached!(hit.loaded, hit.found);
        return hit.found;
      }
    }
    const result = loadSkillSyncMarked(dir, inspectSkillText);
    // Before the sink, which freezes parts of the result in place.
    if (cache !== undefined) cache.keep(result);
    let found: FoundSkill | null;
    if (result.skill) {
      found = { dir, skillFile: result.skill.skillFile, stamp: result.skill.stamp };
    } else {
      // Not loadable, or no skill here at all: the stat probe tells which, and reports trouble
      // (an unsearchable directory) exactly as the main thread's walk would.
      found = statted ?? statSkillFile(dir, problems);
    }
    if (found) sink.loaded(result, found);
    return found;
  };

  const probe: SkillProbe = (dir, problems) => {
    // A first scan knows nothing: skip hashing each directory's path for a lookup that must miss.
    const index = knownIndex.size === 0 ? undefined : knownIndex.get(dir);
    if (index === undefined) return load(dir, problems, null);
    // The common rescan case, an unchanged SKILL.md, costs one stat of the path string the
    // registry already holds and no new objects; anything else takes the general path below.
    const knownFile = known.files?.[index];
    if (knownFile !== undefined && knownFile.endsWith(UPPERCASE_FILE)) {
      const stat = statQuietly(knownFile);
      if (stat && stat.isFile() && sameStatAsKnown(known.stamps, index, stat)) {
        sink.known(index);
        return UNCHANGED;
      }
    }
    const statted = statSkillFile(dir, problems);
    if (!statted) return null;
    if (!sameAsKnown(known.stamps, index, statted.stamp)) return load(dir, problems, statted);
    sink.known(index);
    return statted;
  };

  const discovery = await discoverSource(source, slicer, probe, options);
  return { diagnostics: discovery.diagnostics, privateRefusals: discovery.privateRefusals, failed: discovery.failed };
}

const UPPERCASE_FILE = `${path.sep}SKILL.md`;

/**
 * What the probe reports for a known, unchanged directory: it is a skill (so the walk leaves its
 * resource folders alone). `walkSource` hands directories to its sink and never reads the walk's own list.
 */
const UNCHANGED: FoundSkill = Object.freeze({ dir: "", skillFile: "", stamp: Object.freeze({ size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0 }) });

/** A stat that answers null for anything unusual; the general path then looks again and reports. */
function statQuietly(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** The ctime too: a rewrite of the same size with its mtime put back moves only that. */
function sameStatAsKnown(stamps: Float64Array, index: number, stat: fs.Stats): boolean {
  const at = index * STAMP_NUMBERS;
  return stamps[at] === stat.size && stamps[at + 1] === stat.mtimeMs && stamps[at + 2] === stat.ctimeMs && stamps[at + 3] === stat.ino;
}

function sameAsKnown(stamps: Float64Array, index: number, stamp: FileStamp): boolean {
  const at = index * STAMP_NUMBERS;
  return stamps[at] === stamp.size && stamps[at + 1] === stamp.mtimeMs && stamps[at + 2] === stamp.ctimeMs && stamps[at + 3] === stamp.ino;
}
