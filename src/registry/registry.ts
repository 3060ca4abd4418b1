/**
 * The live registry (SPEC §2): scans the sources, keeps an immutable snapshot, and replaces it
 * in one assignment when a refresh completes. Readers holding a snapshot never see a half-built
 * one; concurrent refreshes join the scan in flight; a refresh that throws leaves the last good
 * snapshot serving; unchanged SKILL.md files (same size, mtime and inode) are never re-read.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { forgetSkillBody } from "../package/body.js";
import { diagnostic, type Diagnostic } from "../package/diagnostic.js";
import type { FileStamp, SkillPackage } from "../package/types.js";
import { MAX_SKILL_DEPTH, type FoundSkill, type SourceDiscovery } from "./discover.js";
import { withholdsGrants, withoutGrants } from "./authored-trust.js";
import { rankSkills } from "./precedence.js";
import { candidatesOf, rankingAfter, type Ranking } from "./ranking-update.js";
import { defaultLabel, privateRootsOf, separateRootsOf, sourceRootsOf, visibilityGroup, walkOptionsOf, type VisibilityGroup } from "./sources.js";
import type { LoadedSkill } from "./skill-wire.js";
import { TimeSlicer } from "./time-slice.js";
import { walkHere, type SourceWalk, type WalkInput } from "./source-walk.js";
import { SCAN_WORKERS, walkSources, WORKER_WALK_LIMIT } from "./walk-sources.js";
import type { RegisteredSkill, RegistrySnapshot, SkillSource } from "./types.js";

export interface RegistryOptions {
  /** The environment recorded in each snapshot for requirement checks; read at every load. */
  env?: () => Record<string, string | undefined>;
  /** Parse workers a large scan may take on; default what pays on this machine (`scanWorkersFor`). */
  parseWorkers?: number;
}

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

export interface SkillRegistry {
  snapshot(): RegistrySnapshot;
  /** Rescans now, or joins the scan already running. */
  refresh(): Promise<RefreshOutcome>;
  /**
   * Rescans after a change was seen. A scan already running may have walked past the change, so
   * this waits for it and scans again; calls made meanwhile share that one follow-up scan.
   */
  refreshAfterChange(changes?: SourceChanges): Promise<RefreshOutcome>;
  /** The real skill directories the last scan found in source `index` (shadowed ones included). */
  skillDirectories(index: number): readonly string[];
  stats(): RegistryStats;
  /**
   * Increases on every completed refresh, changed or not. An unchanged refresh keeps the snapshot
   * (so caches keyed on it stay valid), but requirement checks that look outside the tree — a
   * binary just installed into PATH — must look again; they key on this instead.
   */
  requirementsGeneration(): number;
  /** Why the last refresh failed, while the snapshot from before it serves; null after a good one. */
  failure(): Diagnostic | null;
  /** Called after every swap with the new snapshot; returns an unsubscribe function. */
  onChange(listener: (snapshot: RegistrySnapshot) => void): () => void;
  close(): Promise<void>;
}

/** What a walk said about its source besides the skills it found. */
type WalkReport = Pick<SourceDiscovery, "diagnostics" | "privateRefusals">;
const NO_REPORT: WalkReport = Object.freeze({ diagnostics: [], privateRefusals: [] });

interface CacheEntry {
  stamp: FileStamp;
  /** The loaded skill, or null when the file cannot be used (its diagnostics say why). */
  skill: SkillPackage | null;
  diagnostics: readonly Diagnostic[];
  /**
   * The registered record built from `skill`, per source index. A file nearly always sits in one
   * source, so the first record is kept on its own and a map is made only for a second source.
   */
  record: RegisteredSkill | null;
  moreRecords: Map<number, RegisteredSkill> | null;
  /** The scan that read the file. */
  readIn: number;
  /**
   * The file no longer loads and `skill` is its last good version, still serving. Its stamp is
   * then never offered as "unchanged", so every scan reads the file again until it loads: a fix
   * written within the same mtime tick as the broken read, at the same size, is still seen.
   */
  lastGood: boolean;
  /**
   * The scan that last reached the file and reported its diagnostics: a file in several sources
   * reports once, and a file no scan reaches any more leaves the cache.
   */
  reportedIn: number;
  /**
   * Replaced in the cache or dropped from it since: an entry remembered beside a source's last
   * discovery (`lastEntries`) is then looked up again by its file.
   */
  superseded: boolean;
}

const EMPTY_SNAPSHOT: RegistrySnapshot = Object.freeze({
  version: 0,
  skills: Object.freeze([]),
  diagnostics: Object.freeze([]),
  env: Object.freeze({}),
  sourceRoots: Object.freeze([]),
});

/**
 * Per snapshot: the visibility groups each diagnostic concerns (see `diagnosticsForGroups`), by
 * its index in the snapshot's list. A list beside the list rather than a map keyed on each
 * diagnostic: every scan, partial ones too, files every diagnostic again, and hashing thousands
 * of them into a new map was most of what a refresh after one edit cost at 10,000 skills.
 */
const diagnosticGroupsOf = new WeakMap<RegistrySnapshot, ReadonlyArray<readonly VisibilityGroup[]>>();
const NO_GROUPS: readonly VisibilityGroup[] = Object.freeze([]);

/** The snapshot's diagnostics a scope seeing `groups` should be shown. */
export function diagnosticsForGroups(snapshot: RegistrySnapshot, groups: ReadonlySet<VisibilityGroup>): Diagnostic[] {
  const tags = diagnosticGroupsOf.get(snapshot);
  return snapshot.diagnostics.filter((_, i) => (tags?.[i] ?? NO_GROUPS).every((group) => groups.has(group)));
}

export function createRegistry(sources: readonly SkillSource[], options: RegistryOptions = {}): SkillRegistry {
  const readEnv = options.env ?? (() => process.env);
  const parseWorkers = options.parseWorkers ?? SCAN_WORKERS;
  const listeners = new Set<(snapshot: RegistrySnapshot) => void>();
  let current = EMPTY_SNAPSHOT;
  const cache = new Map<string, CacheEntry>();
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
  /** Changes waiting for the follow-up scan; "all" once any caller asked for a whole rescan. */
  let pendingChanges: Map<number, Set<string> | null> | "all" | null = null;
  let lastFoundCount = 0;
  /** The last ranking and its input: a rescan that changed a few records or none patches or reuses it. */
  let lastRanking: Ranking | null = null;
  let scanSerial = 0;
  let inFlight: Promise<RefreshOutcome> | null = null;
  let followUp: Promise<RefreshOutcome> | null = null;
  let closed = false;
  let failure: Diagnostic | null = null;
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
    // The cache is updated in place as records arrive (a new map per scan would be rebuilt for
    // every unchanged skill): each entry states what one file parses to at one stamp, which stays
    // true even if this scan fails later. Entries no source reached any more go once it is done.
    const adopt = (found: FoundSkill, loaded: LoadedSkill): CacheEntry => {
      const existing = cache.get(found.skillFile);
      // The same file reached through two sources is read by both walks: the first copy serves.
      if (existing?.readIn === scanNumber) return existing;
      // A file that loaded once and now does not (an editor caught mid-save) keeps serving.
      if (!loaded.skill && existing?.skill && !isGone(loaded)) {
        const entry = lastGoodEntry(existing, found, loaded, scanNumber);
        existing.superseded = true;
        cache.set(found.skillFile, entry);
        return entry;
      }
      // Loading again after a failure, the file may carry the very stamp of the body cached
      // before it broke: only the re-read shows it changed.
      if (existing?.lastGood) forgetSkillBody(found.skillFile);
      const entry = freshEntry(found.stamp, loaded, scanNumber);
      if (existing) existing.superseded = true;
      cache.set(found.skillFile, entry);
      return entry;
    };
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
      stampOf: (found) => {
        const entry = cache.get(found.skillFile);
        return entry && !entry.lastGood ? entry.stamp : undefined;
      },
      onLoad: (found, loaded) => {
        // Registered now, while other walks still run, so the end of the scan has less to do.
        const entry = adopt(found, loaded);
        if (entry.skill) recordOf(entry, sources[index]!, index);
        counted();
      },
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
    if (closed) throw new Error("registry closed during refresh");
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
        const withheld = withheldWarnings.get(record);
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
    if (reused.size === 0) {
      cache.forEach((entry, skillFile) => {
        if (entry.reportedIn !== scanNumber) {
          entry.superseded = true;
          cache.delete(skillFile);
        }
      });
    } else {
      // A partial scan looked at none of the untouched sources' files, so it cannot sweep by
      // "reached this scan"; it drops just the files it saw go (a whole scan sweeps the rest).
      for (const skillFile of gone) {
        const entry = cache.get(skillFile);
        if (entry === undefined || entry.reportedIn === scanNumber) continue;
        entry.superseded = true;
        cache.delete(skillFile);
      }
    }
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
    diagnosticGroupsOf.set(next, diagnosticGroups);
    current = next;
    notify(next);
    return { ok: true, snapshot: next, changed: true };
  }

  function notify(snapshot: RegistrySnapshot): void {
    for (const listener of [...listeners]) {
      try {
        listener(snapshot);
      } catch (error) {
        // A listener's bug must not undo a completed swap or stop the other listeners.
        process.emitWarning(`skill registry change listener failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      }
    }
  }

  function refresh(changes: SourceChanges | null = null): Promise<RefreshOutcome> {
    if (closed) return Promise.resolve({ ok: false, snapshot: current, error: "registry is closed" });
    inFlight ??= scan(changes)
      .then(
        (outcome) => {
          failure = null;
          return outcome;
        },
        (error: unknown): RefreshOutcome => {
          const message = error instanceof Error ? error.message : String(error);
          failure = diagnostic("", "error", "refresh_failed", `Refreshing skills failed (${message}); the registry serves the skills of the last good scan`);
          return { ok: false, snapshot: current, error: message };
        },
      )
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  }

  /** Records what changed for the next scan: a whole rescan absorbs any partial one. */
  function addPending(changes: SourceChanges | undefined): void {
    if (changes === undefined || pendingChanges === "all") {
      pendingChanges = "all";
      return;
    }
    pendingChanges ??= new Map();
    for (const [index, dirs] of changes) {
      const known = pendingChanges.get(index);
      if (dirs === null || known === null) pendingChanges.set(index, null);
      else if (known === undefined) pendingChanges.set(index, new Set(dirs));
      else for (const dir of dirs) known.add(dir);
    }
  }

  function refreshPending(): Promise<RefreshOutcome> {
    const changes = pendingChanges;
    pendingChanges = null;
    if (changes === null || changes === "all") return refresh();
    return refresh(new Map([...changes].map(([index, dirs]) => [index, dirs === null ? null : [...dirs]])));
  }

  return {
    snapshot: () => current,
    refresh: () => refresh(),
    refreshAfterChange(changes) {
      addPending(changes);
      if (!inFlight) return refreshPending();
      followUp ??= inFlight.then(() => {
        followUp = null;
        return refreshPending();
      });
      return followUp;
    },
    skillDirectories: (index) => (lastFound.get(index) ?? []).map((found) => found.dir),
    stats: () => ({ ...stats }),
    requirementsGeneration: () => requirementsGeneration,
    failure: () => failure,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      listeners.clear();
      await inFlight;
      await followUp;
    },
  };
}

function sourceProblem(source: SkillSource): string | null {
  if (typeof source.path !== "string" || source.path === "") return "A source needs a non-empty path";
  if (!["bundled", "global", "project", "agent"].includes(source.origin)) {
    return `Source ${source.path} has unknown origin '${String(source.origin)}' (use bundled, global, project or agent)`;
  }
  if (source.origin === "agent" && !source.agentId) return `Source ${source.path} has origin 'agent' but no agentId; its skills would belong to nobody`;
  const max = source.maxDirectories;
  if (max !== undefined && (typeof max !== "number" || !Number.isSafeInteger(max) || max < 1)) {
    return `Source ${source.path} has maxDirectories ${String(max)}; it must be a whole number of at least 1`;
  }
  if (source.followExternalLinks !== undefined && typeof source.followExternalLinks !== "boolean") {
    return `Source ${source.path} has followExternalLinks ${String(source.followExternalLinks)}; it must be true or false`;
  }
  if (source.writable === true && source.origin !== "agent" && source.origin !== "project") {
    return `Source ${source.path} is writable but of origin '${source.origin}'; only agent and project sources may be writable`;
  }
  if (source.linkRoot !== undefined && (typeof source.linkRoot !== "string" || source.linkRoot === "")) {
    return `Source ${source.path} has an empty or non-string linkRoot`;
  }
  return null;
}

function freshEntry(stamp: FileStamp, { skill, diagnostics }: LoadedSkill, readIn: number): CacheEntry {
  return { stamp, skill, diagnostics, record: null, moreRecords: null, readIn, reportedIn: 0, lastGood: false, superseded: false };
}

/**
 * A SKILL.md removed between the listing and the read, or replaced by something that is not a
 * file (a FIFO, a directory): not a version of the skill caught mid-save, so nothing keeps serving.
 */
const GONE_CODES: ReadonlySet<string> = new Set(["skill_file_missing", "skill_file_not_regular"]);

function isGone({ diagnostics }: LoadedSkill): boolean {
  return diagnostics.some((d) => GONE_CODES.has(d.code));
}

/**
 * The last good version of a file that no longer loads: the same records (so an unchanged
 * snapshot stays unchanged while the file stays broken), the failure's own diagnostics, and one
 * error saying what still serves.
 */
function lastGoodEntry(previous: CacheEntry, found: FoundSkill, { diagnostics }: LoadedSkill, readIn: number): CacheEntry {
  const reason = diagnostics.find((d) => d.severity === "error")?.message ?? "it no longer loads";
  const serving = Object.freeze(
    diagnostic(
      found.skillFile,
      "error",
      "last_good_version",
      `${found.skillFile} no longer loads (${reason}); its last good version, '${previous.skill!.name}', keeps serving until the file loads again or is removed`,
    ),
  );
  return {
    stamp: found.stamp,
    skill: previous.skill,
    diagnostics: Object.freeze([...diagnostics, serving]),
    record: previous.record,
    moreRecords: previous.moreRecords,
    readIn,
    reportedIn: 0,
    lastGood: true,
    superseded: false,
  };
}

/** The entry's record for source `index`, registered on first need. */
function recordOf(entry: CacheEntry, source: SkillSource, index: number): RegisteredSkill {
  if (!entry.record) {
    entry.record = registerSkill(entry.skill!, source, index);
    // The record holds every part of the package, so the package object need not be kept too:
    // one object fewer per skill for the registry to hold and the collector to copy. Not when
    // the record's manifest lost its grants: another source of the same file must see them.
    if (entry.record.manifest === entry.skill!.manifest) entry.skill = entry.record;
    return entry.record;
  }
  if (entry.record.sourceIndex === index) return entry.record;
  entry.moreRecords ??= new Map();
  let record = entry.moreRecords.get(index);
  if (!record) entry.moreRecords.set(index, (record = registerSkill(entry.skill!, source, index)));
  return record;
}

/**
 * The package's parts are shared with the cached load, which `fromWire` froze all the way down,
 * so freezing the record itself keeps every snapshot's records unchangeable.
 */
function registerSkill(skill: SkillPackage, source: SkillSource, sourceIndex: number): RegisteredSkill {
  // Only the package's own fields: `skill` may be the record another source registered.
  const { name, description, dir, skillFile, stamp, diagnostics } = skill;
  const withheld = withholdsGrants(source) ? withoutGrants(skill.manifest, skillFile) : null;
  const manifest = withheld?.manifest ?? skill.manifest;
  const label = source.label ?? defaultLabel(source.origin);
  const record: RegisteredSkill = { name, description, dir, skillFile, manifest, stamp, diagnostics, origin: source.origin, label, sourceIndex };
  if (source.projectId !== undefined) record.projectId = source.projectId;
  if (source.agentId !== undefined) record.agentId = source.agentId;
  if (source.writable === true) record.writable = true;
  const frozen = Object.freeze(record);
  if (withheld?.warning) withheldWarnings.set(frozen, withheld.warning);
  return frozen;
}

/** The `authored_grants_ignored` warning of each record that lost its grants, reported with its source. */
const withheldWarnings = new WeakMap<RegisteredSkill, Diagnostic>();

/** Whether `dir` is `root` or lies inside it. */
function isWithin(dir: string, root: string): boolean {
  // The separator after the root first: a sibling (the common case, thousands per partial
  // rescan) fails it at once, before a comparison of the long prefix they share.
  return dir === root || (dir.charCodeAt(root.length) === SEP_CODE && dir.startsWith(root));
}

const SEP_CODE = path.sep.charCodeAt(0);

/**
 * A source walked again only where it changed: each changed directory's subtree is walked as a
 * source of its own and takes the place of what the last walk found there; everything else
 * stays as found. Null when a changed directory is the source root itself (walk it whole).
 */
async function walkChanged<Hint>(
  sourcePath: string,
  changed: readonly string[],
  previous: readonly FoundSkill[],
  /** What the caller keeps beside each of `previous`, by place; carried to each skill's new place (fresh ones get none). */
  previousHints: ReadonlyArray<Hint | undefined>,
  previousReport: WalkReport,
  inputFor: (dir: string, inside: readonly FoundSkill[]) => WalkInput,
  slicer: TimeSlicer,
): Promise<{ walk: SourceWalk; gone: string[]; hints: Array<Hint | undefined> } | null> {
  let realRoot: string;
  try {
    realRoot = fs.realpathSync.native(sourcePath);
  } catch {
    return null;
  }
  // A directory inside another changed one is covered by that one's walk.
  const roots = [...new Set(changed)].filter((dir, _, all) => !all.some((other) => other !== dir && isWithin(dir, other)));
  if (roots.some((dir) => dir === realRoot || isWithin(realRoot, dir))) return null;
  let found = previous.slice();
  let hints: Array<Hint | undefined> = previousHints.length === previous.length ? previousHints.slice() : new Array<Hint | undefined>(previous.length);
  let diagnostics = previousReport.diagnostics.slice();
  let privateRefusals = previousReport.privateRefusals.slice();
  let reads = 0;
  let failed = false;
  const gone: string[] = [];
  for (const dir of roots) {
    // One pass over the source's skills, not one per question: which the last walk found inside
    // `dir`, which elsewhere, and where the first inside one stood.
    const inside: FoundSkill[] = [];
    const kept: FoundSkill[] = [];
    const keptHints: Array<Hint | undefined> = [];
    let at = -1;
    for (let i = 0; i < found.length; i++) {
      const skill = found[i]!;
      if (!isWithin(skill.dir, dir)) {
        kept.push(skill);
        keptHints.push(hints[i]);
      } else {
        if (at < 0) at = kept.length;
        inside.push(skill);
      }
    }
    const walk = await walkHere(inputFor(dir, inside), slicer);
    reads += walk.reads;
    // Unreadable now (not missing): keep what was found there, as a whole walk would.
    if (walk.discovery.failed) {
      failed = true;
      diagnostics.push(...walk.discovery.diagnostics);
      continue;
    }
    const fresh = walk.discovery.found.filter((skill) => !isWithin(skill.dir, realRoot) || depthBelow(realRoot, skill.dir) <= MAX_SKILL_DEPTH);
    const stillThere = new Set(fresh.map((skill) => skill.skillFile));
    for (const skill of inside) if (!stillThere.has(skill.skillFile)) gone.push(skill.skillFile);
    const insertAt = at >= 0 ? at : placeInWalkOrder(kept, dir);
    found = kept.slice(0, insertAt).concat(fresh, kept.slice(insertAt));
    hints = keptHints.slice(0, insertAt).concat(new Array<Hint | undefined>(fresh.length).fill(undefined), keptHints.slice(insertAt));
    // A path that is a file now simply holds no skills; as a source it would be "not a directory".
    const fromWalk = walk.discovery.diagnostics.filter((d) => !(d.code === "source_not_directory" && d.path === dir));
    diagnostics = diagnostics.filter((d) => !isWithin(d.path, dir)).concat(fromWalk);
    privateRefusals = privateRefusals.filter((r) => !isWithin(r.diagnostic.path, dir)).concat(walk.discovery.privateRefusals);
  }
  return { walk: { discovery: { found, diagnostics, privateRefusals, failed }, reads }, gone, hints };
}

/** Levels of `dir` below `root` (a direct child is 1). */
function depthBelow(root: string, dir: string): number {
  let depth = 0;
  for (let i = root.length; i < dir.length; i++) if (dir.charCodeAt(i) === SEP_CODE) depth += 1;
  return depth;
}

/** Where a new directory's skills go among `found`: a walk visits names in sorted order, depth first. */
function placeInWalkOrder(found: readonly FoundSkill[], dir: string): number {
  const parts = dir.split(path.sep);
  const index = found.findIndex((skill) => comparePaths(skill.dir.split(path.sep), parts) > 0);
  return index < 0 ? found.length : index;
}

function comparePaths(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length - b.length;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

function copyEnv(env: Record<string, string | undefined>): Readonly<Record<string, string>> {
  const copy: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (typeof value === "string") copy[key] = value;
  return Object.freeze(copy);
}

function sameContent(
  previous: RegistrySnapshot,
  skills: readonly RegisteredSkill[],
  diagnostics: readonly Diagnostic[],
  env: Readonly<Record<string, string>>,
  /** Whether the skills are known to be the same; undefined when they must be compared. */
  sameSkills: boolean | undefined,
): boolean {
  if (previous === EMPTY_SNAPSHOT || sameSkills === false) return false;
  if (sameSkills === undefined) {
    if (previous.skills.length !== skills.length) return false;
    for (let i = 0; i < skills.length; i++) if (previous.skills[i] !== skills[i]) return false;
  }
  if (!sameDiagnostics(previous.diagnostics, diagnostics)) return false;
  const keys = Object.keys(env);
  return keys.length === Object.keys(previous.env).length && keys.every((k) => previous.env[k] === env[k]);
}

/**
 * Equal as JSON, compared one diagnostic at a time: most are the very objects the last scan
 * reported (from the cache and the walks' reports), so the text of only the others is made,
 * not the whole list's at every rescan.
 */
function sameDiagnostics(a: readonly Diagnostic[], b: readonly Diagnostic[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && JSON.stringify(a[i]) !== JSON.stringify(b[i])) return false;
  return true;
}
