/**
 * The live registry (SPEC §2): scans the sources, keeps an immutable snapshot, and replaces it
 * in one assignment when a refresh completes. Readers holding a snapshot never see a half-built
 * one; concurrent refreshes join the scan in flight; a refresh that throws leaves the last good
 * snapshot serving; unchanged SKILL.md files (same size, mtime and inode) are never re-read.
 *
 * This module composes the parts: `scan.ts` builds and swaps snapshots, `refresh-schedule.ts`
 * decides when scans run, and the change listeners are kept here.
 */
import type { Diagnostic } from "../package/diagnostic.js";
import { ParseCaches, type ParseCacheOptions } from "./parse-cache.js";
import { createRefreshSchedule } from "./refresh-schedule.js";
import { createScanner, type RefreshOutcome, type RegistryStats, type SourceChanges } from "./scan.js";
import { SCAN_WORKERS } from "./walk-sources.js";
import type { RegistrySnapshot, SkillSource } from "./types.js";

export { diagnosticsForGroups } from "./diagnostic-groups.js";
export type { RefreshOutcome, RegistryStats, SourceChanges } from "./scan.js";

export interface RegistryOptions {
  /** The environment recorded in each snapshot for requirement checks; read at every load. */
  env?: () => Record<string, string | undefined>;
  /** Parse workers a large scan may take on; default what pays on this machine (`scanWorkersFor`). */
  parseWorkers?: number;
  /** Keep what the first scan parses in this directory, and take unchanged files from it (`parse-cache.ts`); default off. */
  parseCache?: ParseCacheOptions;
}

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

export function createRegistry(sources: readonly SkillSource[], options: RegistryOptions = {}): SkillRegistry {
  const listeners = new Set<(snapshot: RegistrySnapshot) => void>();
  const parseCaches = options.parseCache ? new ParseCaches(options.parseCache) : null;
  const scanner = createScanner(sources, {
    parseCaches,
    readEnv: options.env ?? (() => process.env),
    parseWorkers: options.parseWorkers ?? SCAN_WORKERS,
    closed: () => schedule.closed(),
    swapped: notify,
  });
  const schedule = createRefreshSchedule(async (changes) => {
    const outcome = await scanner.scan(changes);
    // The first scan that completes writes the parse cache; later ones leave it alone.
    parseCaches?.finishScan();
    return outcome;
  }, scanner.snapshot);

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

  return {
    snapshot: scanner.snapshot,
    refresh: schedule.refresh,
    refreshAfterChange: schedule.refreshAfterChange,
    skillDirectories: scanner.skillDirectories,
    stats: scanner.stats,
    requirementsGeneration: scanner.requirementsGeneration,
    failure: schedule.failure,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      // Refreshes are refused from here on; the listeners go before the scans under way settle.
      const settled = schedule.close();
      listeners.clear();
      await settled;
      await parseCaches?.settled();
    },
  };
}
