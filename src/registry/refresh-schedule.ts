/**
 * When scans run. A refresh joins the scan in flight; a refresh after a change (a watch event, a
 * name missed on activation) waits for it and scans again, the changes seen meanwhile merged
 * into one follow-up; a scan that throws leaves the last good snapshot serving and says why.
 */
import { diagnostic, type Diagnostic } from "../package/diagnostic.js";
import type { RefreshOutcome, SourceChanges } from "./scan.js";
import type { RegistrySnapshot } from "./types.js";

export interface RefreshSchedule {
  /** Scans now, or joins the scan already running. */
  refresh(): Promise<RefreshOutcome>;
  /** Scans again after the scan running, if any: that one may have walked past the change. */
  refreshAfterChange(changes?: SourceChanges): Promise<RefreshOutcome>;
  /** Why the last refresh failed; null after a good one. */
  failure(): Diagnostic | null;
  /** Whether `close` was called: refreshes are refused from then on. */
  closed(): boolean;
  /** Refuses refreshes from now on; resolves once the scans under way have settled. */
  close(): Promise<void>;
}

/**
 * `scan` runs one scan of the sources named (null: all, whole) and throws when it fails;
 * `current` is the snapshot serving.
 */
export function createRefreshSchedule(scan: (changes: SourceChanges | null) => Promise<RefreshOutcome>, current: () => RegistrySnapshot): RefreshSchedule {
  /** Changes waiting for the follow-up scan; "all" once any caller asked for a whole rescan. */
  let pendingChanges: Map<number, Set<string> | null> | "all" | null = null;
  let inFlight: Promise<RefreshOutcome> | null = null;
  let followUp: Promise<RefreshOutcome> | null = null;
  let closed = false;
  let failure: Diagnostic | null = null;

  function refresh(changes: SourceChanges | null = null): Promise<RefreshOutcome> {
    if (closed) return Promise.resolve({ ok: false, snapshot: current(), error: "registry is closed" });
    inFlight ??= scan(changes)
      .then(
        (outcome) => {
          failure = null;
          return outcome;
        },
        (error: unknown): RefreshOutcome => {
          const message = error instanceof Error ? error.message : String(error);
          failure = diagnostic("", "error", "refresh_failed", `Refreshing skills failed (${message}); the registry serves the skills of the last good scan`);
          return { ok: false, snapshot: current(), error: message };
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
    failure: () => failure,
    closed: () => closed,
    async close() {
      closed = true;
      await inFlight;
      await followUp;
    },
  };
}
