/**
 * The live registry (SPEC §2): scans the sources, keeps an immutable snapshot, and replaces it
 * in one assignment when a refresh completes. Readers holding a snapshot never see a half-built
 * one; concurrent refreshes join the scan in flight; a refresh that throws leaves the last good
 * snapshot serving; unchanged SKILL.md files (same size, mtime and inode) are never re-read.
 */
import { diagnostic, type Diagnostic } from "../package/diagnostic.js";
import type { FileStamp, LoadResult } from "../package/types.js";
import { discoverSource, type FoundSkill, type SourceDiscovery } from "./discover.js";
import { SkillDirLoader } from "./parse-files.js";
import { rankSkills } from "./precedence.js";
import { defaultLabel, visibilityGroup, type VisibilityGroup } from "./sources.js";
import { TimeSlicer } from "./time-slice.js";
import type { RegisteredSkill, RegistrySnapshot, SkillSource } from "./types.js";

export interface RegistryOptions {
  /** The environment recorded in each snapshot for requirement checks; read at every load. */
  env?: () => Record<string, string | undefined>;
}

export interface RegistryStats {
  /** Scans completed (joined refreshes count once). */
  scans: number;
  /** SKILL.md files read since the registry was created. */
  reads: number;
  /** Of those, how many were read and parsed in worker threads. */
  readsInWorkers: number;
}

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
  refreshAfterChange(): Promise<RefreshOutcome>;
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

interface CacheEntry {
  stamp: FileStamp;
  result: LoadResult;
  /** The registered records built from `result`, by source index (one file may sit in several sources). */
  records: Map<number, RegisteredSkill>;
  /** The scan that last reported the file's diagnostics: a file in several sources reports once. */
  reportedIn: number;
}

const EMPTY_SNAPSHOT: RegistrySnapshot = Object.freeze({ version: 0, skills: Object.freeze([]), diagnostics: Object.freeze([]), env: Object.freeze({}) });

/** Per snapshot: the visibility groups each diagnostic concerns (see `diagnosticsForGroups`). */
const diagnosticGroupsOf = new WeakMap<RegistrySnapshot, Map<Diagnostic, VisibilityGroup[]>>();

/** The snapshot's diagnostics a scope seeing `groups` should be shown. */
export function diagnosticsForGroups(snapshot: RegistrySnapshot, groups: ReadonlySet<VisibilityGroup>): Diagnostic[] {
  const tags = diagnosticGroupsOf.get(snapshot);
  return snapshot.diagnostics.filter((d) => (tags?.get(d) ?? []).every((group) => groups.has(group)));
}

export function createRegistry(sources: readonly SkillSource[], options: RegistryOptions = {}): SkillRegistry {
  const readEnv = options.env ?? (() => process.env);
  const listeners = new Set<(snapshot: RegistrySnapshot) => void>();
  let current = EMPTY_SNAPSHOT;
  let cache = new Map<string, CacheEntry>();
  /** Each source's last discovery, kept for sources that later fail to read. */
  let lastFound = new Map<number, FoundSkill[]>();
  let scanSerial = 0;
  let inFlight: Promise<RefreshOutcome> | null = null;
  let followUp: Promise<RefreshOutcome> | null = null;
  let closed = false;
  let failure: Diagnostic | null = null;
  let requirementsGeneration = 0;
  const stats: RegistryStats = { scans: 0, reads: 0, readsInWorkers: 0 };

  async function scan(): Promise<RefreshOutcome> {
    const scanNumber = ++scanSerial;
    const slicer = new TimeSlicer();
    const diagnostics: Diagnostic[] = [];
    const diagnosticGroups = new Map<Diagnostic, VisibilityGroup[]>();
    const report = (d: Diagnostic, groups: VisibilityGroup[]) => {
      diagnostics.push(d);
      diagnosticGroups.set(d, groups);
    };
    const tag = (d: Diagnostic, group: VisibilityGroup) => report(d, [group]);

    // Files to read go to the loader as each source is walked, so parsing overlaps discovery.
    const loader = new SkillDirLoader(slicer);
    const toRead = new Map<string, FoundSkill>();
    const discoveries: (SourceDiscovery | null)[] = [];
    for (const [index, source] of sources.entries()) {
      const problem = sourceProblem(source);
      if (problem) {
        tag(diagnostic(String(source.path), "error", "source_invalid", problem), visibilityGroup(source));
        discoveries.push(null);
        continue;
      }
      const discovery = await discoverSource(source.path, slicer);
      if (discovery.failed && lastFound.has(index)) discovery.found = lastFound.get(index)!;
      discoveries.push(discovery);
      for (const found of discovery.found) {
        const cached = cache.get(found.skillFile);
        if ((cached && sameStamp(cached.stamp, found.stamp)) || toRead.has(found.skillFile)) continue;
        toRead.set(found.skillFile, found);
        loader.add(found.dir);
      }
    }
    const parsed = await loader.finish();
    if (closed) throw new Error("registry closed during refresh");
    const reading = [...toRead.values()];
    stats.reads += reading.length;
    stats.readsInWorkers += parsed.inWorkers;
    for (const d of parsed.diagnostics) report(d, []);

    const nextCache = new Map<string, CacheEntry>();
    for (const [i, found] of reading.entries()) {
      nextCache.set(found.skillFile, { stamp: found.stamp, result: freezeDeep(parsed.results[i]!), records: new Map(), reportedIn: 0 });
      await slicer.pause();
    }
    const nextFound = new Map<number, FoundSkill[]>();
    const candidates: RegisteredSkill[] = [];
    for (const [index, discovery] of discoveries.entries()) {
      if (!discovery) continue;
      const source = sources[index]!;
      const group = visibilityGroup(source);
      for (const d of discovery.diagnostics) tag(d, group);
      nextFound.set(index, discovery.found);
      for (const found of discovery.found) {
        let entry = nextCache.get(found.skillFile);
        if (!entry) {
          entry = cache.get(found.skillFile)!;
          nextCache.set(found.skillFile, entry);
        }
        if (entry.reportedIn !== scanNumber) {
          entry.reportedIn = scanNumber;
          for (const d of entry.result.diagnostics) tag(d, group);
        }
        const skill = entry.result.skill;
        if (!skill) continue;
        let record = entry.records.get(index);
        if (!record) {
          record = registerSkill(skill, source, index);
          entry.records.set(index, record);
        }
        candidates.push(record);
        await slicer.pause();
      }
    }

    const ranked = rankSkills(candidates);
    for (const d of ranked.diagnostics) report(d, ranked.diagnosticGroups.get(d)!);
    const env = copyEnv(readEnv());
    const changed = !sameContent(current, ranked.skills, diagnostics, env);
    cache = nextCache;
    lastFound = nextFound;
    stats.scans += 1;
    requirementsGeneration += 1;
    if (!changed) return { ok: true, snapshot: current, changed: false };
    const next: RegistrySnapshot = Object.freeze({
      version: current.version + 1,
      skills: Object.freeze(ranked.skills),
      diagnostics: Object.freeze(diagnostics),
      env,
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

  function refresh(): Promise<RefreshOutcome> {
    if (closed) return Promise.resolve({ ok: false, snapshot: current, error: "registry is closed" });
    inFlight ??= scan()
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

  return {
    snapshot: () => current,
    refresh,
    refreshAfterChange() {
      if (!inFlight) return refresh();
      followUp ??= inFlight.then(() => {
        followUp = null;
        return refresh();
      });
      return followUp;
    },
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
  return null;
}

function registerSkill(skill: NonNullable<LoadResult["skill"]>, source: SkillSource, sourceIndex: number): RegisteredSkill {
  const record: RegisteredSkill = { ...skill, origin: source.origin, label: source.label ?? defaultLabel(source.origin), sourceIndex };
  if (source.projectId !== undefined) record.projectId = source.projectId;
  if (source.agentId !== undefined) record.agentId = source.agentId;
  return Object.freeze(record);
}

/** Snapshots share parsed records, so a record must not be changeable through any of them. */
function freezeDeep<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) freezeDeep((value as Record<string, unknown>)[key]);
  }
  return value;
}

function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
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
): boolean {
  if (previous === EMPTY_SNAPSHOT) return false;
  if (previous.skills.length !== skills.length || previous.skills.some((s, i) => s !== skills[i])) return false;
  if (JSON.stringify(previous.diagnostics) !== JSON.stringify(diagnostics)) return false;
  const keys = Object.keys(env);
  return keys.length === Object.keys(previous.env).length && keys.every((k) => previous.env[k] === env[k]);
}
