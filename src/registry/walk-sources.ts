/**
 * Who walks which source during one scan. Sources wait in one list. The main thread takes them
 * one at a time and walks each in time slices, reading as it goes; once the tree is known to be
 * large, parse workers join in where they pay (`scanWorkersFor`: from three cores), each taking
 * the next source only when it is ready. The main
 * thread keeps taking sources too — a file it reads itself costs less than one sent back from a
 * worker — and when the list is empty, walks still waiting for a worker to start are withdrawn,
 * so a scan never waits on a start-up.
 */
import * as os from "node:os";
import type { Diagnostic } from "../package/diagnostic.js";
import { MAX_WORKERS, workerReady } from "./parse-pool.js";
import { walkHere, walkInWorker, workerFailed, type SourceWalk, type WalkInput, type WorkerWalk, type WorkerWalkFailed } from "./source-walk.js";
import type { TimeSlicer } from "./time-slice.js";

/**
 * Skills (found by the last scan, or read by this one) from which parse workers join the walk.
 * Below it a tree is walked on the main thread alone: starting a worker costs more than it saves,
 * and handing records back costs the main thread about as much as reading small trees itself.
 */
export const WORKER_WALK_LIMIT = 1000;

/**
 * How many parse workers a scan on a machine of `cores` cores takes on: none below three. A load
 * keeps more than the main thread busy — V8's own helper threads (concurrent marking, parallel
 * scavenges, background compiles) ran 0.8 instructions for every one of the main thread's in a
 * fresh process loading 10,000 real-shaped skills — so on two cores the second is already
 * taken, and a worker only competes with them: measured by instruction counts per thread
 * (valgrind), the worker took a fifth of the files and left the main thread 95% of its work,
 * while its own isolate's helpers added 1.0 billion instructions (5.8 billion in all without a
 * worker, 7.6 with one). From three cores a worker has a core of its own: one per core beyond
 * two, at most the pool's two.
 */
export function scanWorkersFor(cores: number): number {
  return Math.max(0, Math.min(MAX_WORKERS, cores - 2));
}

/** Parse workers a scan here takes on (`scanWorkersFor` this machine). */
export const SCAN_WORKERS = scanWorkersFor(os.availableParallelism());

export interface SourcesWalked {
  /** Each source's walk, by the index it was given under. */
  walks: Map<number, SourceWalk>;
  /** SKILL.md files read by workers. */
  readsInWorkers: number;
  /** Set when a worker failed and the main thread did its work. */
  workerFailure: Diagnostic | null;
}

/**
 * Walks the sources `indexes` names. `inputFor` describes one; its `onLoad` must call the
 * `loaded` it is given for each file read, which is how a first scan learns the tree is large.
 * `knownLarge`: the last scan found WORKER_WALK_LIMIT skills. `workers`: how many parse workers
 * may join (default `SCAN_WORKERS`; 0 walks every source on this thread).
 */
export async function walkSources(
  indexes: readonly number[],
  inputFor: (index: number, loaded: () => void) => WalkInput,
  slicer: TimeSlicer,
  knownLarge: boolean,
  workers: number = SCAN_WORKERS,
): Promise<SourcesWalked> {
  const queue = [...indexes];
  const result: SourcesWalked = { walks: new Map(), readsInWorkers: 0, workerFailure: null };
  const helpers: Array<Promise<void>> = [];
  const waiting = new Set<WorkerWalk>();
  let loadedSoFar = 0;
  const loaded = () => {
    if (++loadedSoFar === WORKER_WALK_LIMIT && queue.length > 0) startHelpers();
  };

  const helper = async (): Promise<void> => {
    for (;;) {
      let taken = -1;
      const run = walkInWorker(() => {
        taken = queue.shift() ?? -1;
        return taken === -1 ? null : inputFor(taken, loaded);
      }, slicer);
      waiting.add(run);
      try {
        const walk = await run.result;
        if (!walk) return;
        result.readsInWorkers += walk.reads;
        result.walks.set(taken, walk);
      } catch (error) {
        // A worker that cannot start (or dies) must not cost the source: walk it here instead.
        const failure = error as WorkerWalkFailed;
        result.workerFailure ??= workerFailed(failure.input?.source ?? "", failure.cause ?? error);
        if (failure.input) {
          // Resumed by the worker's exit, outside the slicer's turns: start in a turn of our own.
          await slicer.yield();
          result.walks.set(taken, await walkHere(inputFor(taken, loaded), slicer));
        }
        return;
      } finally {
        waiting.delete(run);
      }
    }
  };
  function startHelpers(): void {
    if (helpers.length > 0) return;
    for (let i = 0; i < Math.min(workers, MAX_WORKERS); i++) helpers.push(helper());
  }

  // A tree known to be large asks for workers at once; so does any tree of several sources
  // while a worker sits ready (a recent large scan started it), as it then costs nothing.
  if (queue.length > 1 && (knownLarge || workerReady())) startHelpers();
  while (queue.length > 0) {
    const index = queue.shift()!;
    result.walks.set(index, await walkHere(inputFor(index, loaded), slicer));
  }
  for (const run of waiting) run.withdraw();
  if (helpers.length > 0) {
    await Promise.all(helpers);
    // The last helper finishes on a worker's message, outside the slicer's turns; what the scan
    // does next must not run on from a slice another task started in this turn.
    await slicer.yield();
  }
  return result;
}
