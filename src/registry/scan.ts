/**
 * One scan of the sources (SPEC §2): walks them (whole, or only the directories that changed),
 * files each source's records and diagnostics, ranks them, and swaps in a new immutable snapshot
 * in one assignment when anything changed. Readers holding a snapshot never see a half-built
 * one; a source that cannot be read keeps its last good skills; unchanged SKILL.md files (same
 * size, mtime and inode) are never re-read. What a scan must know of the last one (each
 * source's discovery, cache entries, records, walk diagnostics, and the ranking) is kept here.
 */
import * as path from "node:path";
import { diagnostic, type Diagnostic } from "../package/diagnostic.js";
import type { FoundSkill } from "./discover.js";
import { fileDiagnosticGroups } from "./diagnostic-groups.js";
import type { ParseCaches } from "./parse-cache.js";
import { isWithin, NO_REPORT, walkChanged, type WalkReport } from "./partial-walk.js";
import { rankSkills } from "./precedence.js";
import { candidatesOf, rankingAfter, type Ranking } from "./ranking-update.js";
import { adopt, dropGone, dropUnreached, recordOf, unchangedStamp, type CacheEntry, type SkillFileCache } from "./skill-file-cache.js";
import { withheldWarningOf } from "./skill-record.js";
import { copyEnv, EMPTY_SNAPSHOT, sameContent, sameList } from "./snapshot-content.js";
import { sourceProblem } from "./source-check.js";
import { privateRootsOf, separateRootsOf, sourceRootsOf, visibilityGroup, walkOptionsOf, type VisibilityGroup } from "./sources.js";
import { TimeSlicer } from "./time-slice.js";
import type { SourceWalk, WalkInput } from "./source-walk.js";
import { walkSources, WORKER_WALK_LIMIT } from "./walk-sources.js";
import type { RegisteredSkill, RegistrySnapshot, SkillSource } from "./types.js";

export interface RegistryStats {
  /** Scans completed (joined refreshes count once). */
  scans: number;
  /** SKILL.md files read since the registry was created. */
  reads: number;
  /** Of those, how many were read and parsed in worker threads. */
  readsInWorkers: number;
}

/**
 * What a watcher saw change, per source index: the directories to examine again (a skill
 * directory, or a directory a skill may have appeared in or gone from), or null to walk the
 * source whole. Sources not named are taken as unchanged and not walked at all.
 */
export type SourceChanges = ReadonlyMap<number, readonly string[] | null>;

export type RefreshOutcome =
  | { ok: true; snapshot: RegistrySnapshot; changed: boolean }
  /** The scan failed; `snapshot` is the last good one, still serving. */
  | { ok: false; snapshot: RegistrySnapshot; error: string };

export interface ScannerOptions {
  /** The environment recorded in each snapshot for requirement checks; read at every scan. */
  readEnv: () => Record<string, string | undefined>;
  /** Parse workers a large scan may take on. */
  parseWorkers: number;
  /** Whether the registry is closed: a scan that finds it so once its walks are done fails. */
  closed: () => boolean;
  /** Called after every swap, in the same turn, with the new snapshot. */
  swapped: (snapshot: RegistrySnapshot) => void;
  /** The parse cache on disk, if the registry keeps one: whole walks of the first scan take it. */
  parseCaches?: ParseCaches | null;
}

export interface Scanner {
  /** Scans the sources named in `changes` (null: all of them, whole). Throws when the scan fails. */
  scan(changes: SourceChanges | null): Promise<RefreshOutcome>;
  /** The snapshot serving: the last one swapped in. */
  snapshot(): RegistrySnapshot;
  /** The real skill directories the last scan found in source `index` (shadowed ones included). */
  skillDirectories(index: number): readonly string[];
  stats(): RegistryStats;
  /** Increases on every completed scan, changed or not. */
  requirementsGeneration(): number;
}

export function createScanner(sources: readonly SkillSource[], { readEnv, parseWorkers, closed, swapped, parseCaches = null }: ScannerOptions): Scanner {
  let current = EMPTY_SNAPSHOT;
  const cache: SkillFileCache = new Map();
  /** Each source's last discovery, kept for sources that later fail to read and for partial rescans. */
  let lastFound = new Map<number, FoundSkill[]>();
  /**
   * Each source's cache entries, in the order of its last discovery: a partial rescan that takes
   * most of a source as it was finds them by place, without a look-up per file of the source.
   */
  let lastEntries = new Map<number, ReadonlyArray<CacheEntry | undefined>>();
  /** Each source's last walk diagnostics, reused for a source a partial rescan does not walk. */
  let lastWalkReports = new Map<number, WalkReport>();
  /**
   * Each source's registered records and the file diagnostics it reported, from the last scan:
   * a partial rescan takes a source it does not walk from here as a whole, instead of looking
   * each of its files up again.
   */
  let lastCandidates = new Map<number, RegisteredSkill[]>();
  let lastEntryDiagnostics = new Map<number, Diagnostic[]>();
  let lastFoundCount = 0;
  /** The last ranking and its input: a rescan that changed a few records or none patches or reuses it. */
  let lastRanking: Ranking | null = null;
  let scanSerial = 0;
  let requirementsGeneration = 0;
  const stats: RegistryStats = { scans: 0, reads: 0, readsInWorkers: 0 };

  async function scan(changes: SourceChanges | null): Promise<RefreshOutcome> {
    const scanNumber = ++scanSerial;
    const slicer = new TimeSlicer();
    const diagnostics: Diagnostic[] = [];
    const diagnosticGroups: Array<readonly VisibilityGroup[]> = [];
    const report = (d: Diagnostic, groups: readonly VisibilityGroup[]) => {
      diagnostics.push(d);
      diagnosticGroups.push(groups);
    };
    // One shared list per group, not a new one per diagnostic: nobody changes them.
    const oneGroup = new Map<VisibilityGroup, readonly VisibilityGroup[]>();
    const tag = (d: Diagnostic, group: VisibilityGroup) => {
      let groups = oneGroup.get(group);
      if (groups === undefined) oneGroup.set(group, (groups = Object.freeze([group])));
      report(d, groups);
    };

    const privateRoots = privateRootsOf(sources);
    const sourceRoots = sourceRootsOf(sources);
    const separateRoots = separateRootsOf(sources);
    const indexes: number[] = [];
    for (const [index, source] of sources.entries()) {
      const problem = sourceProblem(source);
      if (problem) tag(diagnostic(String(source.path), "error", "source_invalid", problem), visibilityGroup(source));
      else indexes.push(index);
    }
    /** `inside`: for a subtree, what the last walk found in it (the caller has it at hand). */
    const inputFor = (index: number, counted: () => void, subtree?: string, inside?: readonly FoundSkill[]): WalkInput => ({
      source: subtree ?? sources[index]!.path,
      // A subtree walked on its own still lets links lead anywhere in the source, as a whole walk
      // does; a subtree that is gone is a removal, not a missing source.
      options:
        subtree === undefined
          ? walkOptionsOf(sources[index]!, privateRoots, separateRoots[index])
          : {
              linkRoot: sources[index]!.path,
              ...walkOptionsOf(sources[index]!, privateRoots, separateRoots[index]),
              ...(path.resolve(subtree) === path.resolve(sources[index]!.path) ? {} : { reportsMissing: false }),
            },
      previous: subtree === undefined ? (lastFound.get(index) ?? []) : (inside ?? (lastFound.get(index) ?? []).filter((found) => isWithin(found.dir, subtree))),
      stampOf: (found) => unchangedStamp(cache, found.skillFile),
      onLoad: (found, loaded, cached) => {
        // Registered now, while other walks still run, so the end of the scan has less to do.
        const entry = adopt(cache, found, loaded, scanNumber);
        if (entry.skill) recordOf(entry, sources[index]!, index);
        // A file the parse cache held cost a stat, not a parse: workers would not pay for it.
        if (!cached) counted();
      },
      ...(subtree === undefined && parseCaches ? { cache: parseCaches.forSource(sources[index]!.path) } : {}),
    });
    // A partial rescan walks only what changed: a source named with directories has just those
    // subtrees walked again, one not named is taken as it was, and the rest walk whole.
    const whole: number[] = [];
    const partial = new Map<number, readonly string[]>();
    for (const index of indexes) {
      const dirs = changes === null ? null : changes.get(index);
      if (dirs === undefined) continue;
      if (dirs === null || !lastFound.has(index)) whole.push(index);
      else partial.set(index, dirs);
    }
    const walked = await walkSources(whole, inputFor, slicer, lastFoundCount >= WORKER_WALK_LIMIT, parseWorkers);
    /** SKILL.md files a partial walk no longer found where they were. */
    const gone: string[] = [];
    /** Per source walked in part, the entries its last discovery had, in the order of its new one. */
    const entryHints = new Map<number, ReadonlyArray<CacheEntry | undefined>>();
    for (const [index, dirs] of partial) {
      const changed = await walkChanged(
        sources[index]!.path,
        dirs,
        lastFound.get(index)!,
        lastEntries.get(index) ?? [],
        lastWalkReports.get(index) ?? NO_REPORT,
        (dir, inside) => inputFor(index, () => {}, dir, inside),
        slicer,
      );
      if (!changed) {
        whole.push(index);
        continue;
      }
      walked.walks.set(index, changed.walk);
      entryHints.set(index, changed.hints);
      gone.push(...changed.gone);
    }
    if (partial.size > 0 && whole.some((index) => partial.has(index))) {
      // A changed directory that is the source root itself: walk that source whole after all.
      const again = await walkSources(whole.filter((index) => partial.has(index)), inputFor, slicer, false, parseWorkers);
      for (const [index, walk] of again.walks) walked.walks.set(index, walk);
    }
    if (closed()) throw new Error("registry closed during refresh");
    const reused = new Set<number>();
    const walks: Array<SourceWalk | null> = sources.map((_, index) => {
      const walk = walked.walks.get(index);
      if (walk) return walk;
      if (!indexes.includes(index) || !lastFound.has(index)) return null;
      reused.add(index);
      const report = lastWalkReports.get(index) ?? NO_REPORT;
      return { discovery: { found: lastFound.get(index)!, diagnostics: report.diagnostics, privateRefusals: report.privateRefusals, failed: false }, reads: 0 };
    });
    for (const [index, walk] of walks.entries()) {
      // A source that could not be read in part keeps its last good skills rather than losing them.
      if (walk?.discovery.failed && lastFound.has(index)) {
        walk.discovery.found = lastFound.get(index)!;
        entryHints.set(index, lastEntries.get(index) ?? []);
      }
    }
    stats.reads += walks.reduce((n, walk) => n + (walk?.reads ?? 0), 0);
    stats.readsInWorkers += walked.readsInWorkers;
    if (walked.workerFailure) report(walked.workerFailure, []);

    const nextFound = new Map<number, FoundSkill[]>();
    const nextWalkReports = new Map<number, WalkReport>();
    const nextCandidates = new Map<number, RegisteredSkill[]>();
    const nextEntryDiagnostics = new Map<number, Diagnostic[]>();
    const nextEntries = new Map<number, ReadonlyArray<CacheEntry | undefined>>();
    for (const [index, walk] of walks.entries()) {
      if (!walk) continue;
      const discovery = walk.discovery;
      const source = sources[index]!;
      const group = visibilityGroup(source);
      for (const d of discovery.diagnostics) tag(d, group);
      // Only the owner's scopes (and unscoped views) may learn that a private skill is there.
      for (const refusal of discovery.privateRefusals) report(refusal.diagnostic, [group, `agent:${refusal.owner}`]);
      nextFound.set(index, discovery.found);
      nextWalkReports.set(index, { diagnostics: discovery.diagnostics, privateRefusals: discovery.privateRefusals });
      if (reused.has(index)) {
        // Not walked: its records and file diagnostics are the last scan's, taken whole.
        const records = lastCandidates.get(index) ?? [];
        const fileDiagnostics = lastEntryDiagnostics.get(index) ?? [];
        for (let i = 0; i < fileDiagnostics.length; i++) tag(fileDiagnostics[i]!, group);
        nextCandidates.set(index, records);
        nextEntryDiagnostics.set(index, fileDiagnostics);
        nextEntries.set(index, lastEntries.get(index) ?? []);
        continue;
      }
      const records: RegisteredSkill[] = [];
      const fileDiagnostics: Diagnostic[] = [];
      const hints = entryHints.get(index);
      const entries = new Array<CacheEntry | undefined>(discovery.found.length);
      nextEntries.set(index, entries);
      for (let i = 0; i < discovery.found.length; i++) {
        const found = discovery.found[i]!;
        // The entry found here last time, unless the cache holds another for the file since: at
        // 10,000 skills the look-up per file of the source was most of a partial rescan's filing.
        const hint = hints?.[i];
        const entry = hint !== undefined && !hint.superseded ? hint : cache.get(found.skillFile);
        entries[i] = entry;
        // Only a file a partial walk of another source saw go can be missing here.
        if (!entry) continue;
        if (entry.reportedIn !== scanNumber) {
          entry.reportedIn = scanNumber;
          // An index loop: a `for...of` allocates an iterator per skill until the code is optimised.
          for (let k = 0; k < entry.diagnostics.length; k++) {
            tag(entry.diagnostics[k]!, group);
            fileDiagnostics.push(entry.diagnostics[k]!);
          }
        }
        if (!entry.skill) continue;
        const record = recordOf(entry, source, index);
        records.push(record);
        // Per source, not per file: the same file in a trusted source keeps its grants there.
        const withheld = withheldWarningOf(record);
        if (withheld !== undefined) {
          tag(withheld, group);
          fileDiagnostics.push(withheld);
        }
        // An await per skill costs a microtask turn each; yield only when the slice is used up.
        if (slicer.due()) await slicer.yield();
      }
      nextCandidates.set(index, records);
      nextEntryDiagnostics.set(index, fileDiagnostics);
    }

    // Read before the ranking, so that nothing between the ranking and the swap below can throw.
    const env = copyEnv(readEnv());
    // Records are handed over per source: a source a partial rescan took as it was is the same array.
    const previousRanking = lastRanking;
    const carried = previousRanking && rankingAfter(previousRanking, nextCandidates, (index) => sources[index]!.origin);
    const ranked = carried || (await rankSkills(candidatesOf(nextCandidates), slicer));
    lastRanking = { bySource: nextCandidates, ranked };
    for (const d of ranked.diagnostics) report(d, ranked.diagnosticGroups.get(d)!);
    // The last ranking's list is the one the current snapshot shows: every scan that ranks either
    // keeps the snapshot because the two lists are equal or swaps in one made from its list, with
    // nothing in between that can throw. So a ranking carried over unchanged shows the same
    // skills, and a patched one other skills, without comparing 10,000 of them.
    const sameSkills = carried === null ? undefined : carried === previousRanking!.ranked;
    const changed = !sameContent(current, ranked.skills, diagnostics, env, sameSkills) || !sameList(current.sourceRoots, sourceRoots);
    if (reused.size === 0) dropUnreached(cache, scanNumber);
    else dropGone(cache, gone, scanNumber);
    lastFound = nextFound;
    lastEntries = nextEntries;
    lastWalkReports = nextWalkReports;
    lastCandidates = nextCandidates;
    lastEntryDiagnostics = nextEntryDiagnostics;
    lastFoundCount = 0;
    nextFound.forEach((found) => (lastFoundCount += found.length));
    stats.scans += 1;
    requirementsGeneration += 1;
    if (!changed) return { ok: true, snapshot: current, changed: false };
    const next: RegistrySnapshot = Object.freeze({
      version: current.version + 1,
      // A frozen copy: the ranking keeps its own array to patch, and copying a frozen one is slow.
      skills: Object.freeze(ranked.skills.slice()),
      diagnostics: Object.freeze(diagnostics),
      env,
      // The last snapshot's list while it is the same, so views of it compare equal by identity.
      sourceRoots: sameList(current.sourceRoots, sourceRoots) ? current.sourceRoots : Object.freeze(sourceRoots),
    });
    fileDiagnosticGroups(next, diagnosticGroups);
    current = next;
    swapped(next);
    return { ok: true, snapshot: next, changed: true };
  }

  return {
    scan,
    snapshot: () => current,
    skillDirectories: (index) => (lastFound.get(index) ?? []).map((found) => found.dir),
    stats: () => ({ ...stats }),
    requirementsGeneration: () => requirementsGeneration,
  };
}
