/**
 * A small process-wide pool of parse workers. Workers start on first need and stay warm between
 * refreshes, because a fresh worker pays its module loading and an unoptimised first thousand
 * parses again. An idle worker is unref'd (it never keeps the process alive) and ends after a
 * quiet period, so an idle process holds no threads.
 *
 * A job is chosen only when a worker is ready to run it (it has said so after loading its
 * modules): the registry's main thread works through the same list of sources meanwhile, so a
 * source is never parked behind a worker still starting up while the main thread sits idle.
 */
import * as os from "node:os";
import { Worker } from "node:worker_threads";
import type { ParseJobMessage, ParseWorkerMessage, WorkerJob } from "./parse-protocol.js";

/**
 * The main thread walks sources too, so it counts as one of the cores: with two cores, one
 * worker. Measured on 2 cores at 10,000 skills: one worker loaded as fast as two (140–170 ms
 * against 150–220) with event-loop stalls of 6–13 ms instead of 15–23, and a fresh process's
 * first load took 350–430 ms instead of 430–560, because three busy threads on two cores left
 * the event loop waiting for a core. One core gets no worker at all.
 */
export const MAX_WORKERS = Math.max(0, Math.min(2, os.availableParallelism() - 1));
const IDLE_MS = 30_000;

/**
 * Receives each message of a job as it arrives (all but the final `done`), so the caller can
 * collect records while the worker still works.
 */
export type MessageHandler = (message: Exclude<ParseWorkerMessage, { kind: "done" } | { kind: "ready" }>) => void;

interface Job {
  /** Chooses the work when a worker is ready for it; null when there is none left. */
  take(): WorkerJob | null;
  /** Set once the job is chosen and sent. */
  id: number;
  onMessage: MessageHandler;
  resolve(ran: boolean): void;
  reject(error: Error): void;
}

interface PooledWorker {
  worker: Worker;
  job: Job | null;
  /** Whether it has loaded its modules and said so: only then is a job chosen for it. */
  ready: boolean;
  /** Whether it ever finished a job: a worker that dies before that is not worth restarting. */
  proven: boolean;
}

const workers = new Set<PooledWorker>();
const queue: Job[] = [];
let nextJobId = 1;
let idleTimer: NodeJS.Timeout | null = null;

/**
 * Runs the job `take` chooses in a worker thread, calling `take` only once a worker is ready.
 * Resolves true when the job ran, false when `take` found nothing left; rejects when no worker
 * can run it (then `take` may not have been called at all).
 */
export function runInWorker(take: () => WorkerJob | null, onMessage: MessageHandler): Promise<boolean> {
  return new Promise((resolve, reject) => {
    if (MAX_WORKERS === 0) {
      reject(new Error("no worker threads on a single core"));
      return;
    }
    queue.push({ take, id: 0, onMessage, resolve, reject });
    dispatch();
  });
}

function dispatch(): void {
  if (idleTimer) {
    clearTimeout(idleTimer);
    idleTimer = null;
  }
  while (queue.length > 0) {
    let pooled = [...workers].find((w) => w.ready && w.job === null);
    if (!pooled) {
      // Every ready worker is busy here; start another unless enough are already starting.
      if (workers.size < MAX_WORKERS && startingWorkers() < queue.length) {
        try {
          spawn();
        } catch (error) {
          // No worker can start here (say, no TypeScript loader for a .ts worker): every waiting
          // job goes back to its caller, which does the work on the main thread.
          for (const job of queue.splice(0)) job.reject(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        continue;
      }
      return;
    }
    const job = queue.shift()!;
    const work = job.take();
    if (!work) {
      job.resolve(false);
      continue;
    }
    job.id = nextJobId++;
    pooled.job = job;
    pooled.worker.ref();
    pooled.worker.postMessage({ ...work, id: job.id } satisfies ParseJobMessage);
  }
  // A ready worker without a job must not keep the process alive; one still starting does, so
  // the job waiting for it is not dropped by an exiting process.
  for (const w of workers) if (w.ready && w.job === null) w.worker.unref();
  if ([...workers].every((w) => w.job === null) && workers.size > 0) {
    idleTimer = setTimeout(() => {
      for (const w of [...workers]) {
        workers.delete(w);
        void w.worker.terminate();
      }
    }, IDLE_MS).unref();
  }
}

/** Whether a worker is started and idle now, so a walk sent now begins at once. */
export function workerReady(): boolean {
  for (const w of workers) if (w.ready && w.job === null) return true;
  return false;
}

function startingWorkers(): number {
  let n = 0;
  for (const w of workers) if (!w.ready) n++;
  return n;
}

/**
 * Withdraws a job that no worker has chosen yet (it resolves false); one already running is left
 * to finish. Used when the main thread has done all the work itself.
 */
export function withdraw(take: () => WorkerJob | null): void {
  const at = queue.findIndex((job) => job.take === take);
  if (at === -1) return;
  const [job] = queue.splice(at, 1);
  job!.resolve(false);
  dispatch();
}

function spawn(): PooledWorker {
  const pooled: PooledWorker = { worker: startWorker(), job: null, ready: false, proven: false };
  workers.add(pooled);
  pooled.worker.on("message", (message: ParseWorkerMessage) => {
    if (message.kind === "ready") {
      pooled.ready = true;
      dispatch();
      return;
    }
    const job = pooled.job;
    if (!job || job.id !== message.id) return;
    if (message.kind !== "done") {
      job.onMessage(message);
      return;
    }
    pooled.job = null;
    pooled.proven = true;
    pooled.worker.unref();
    job.resolve(true);
    dispatch();
  });
  const fail = (error: Error) => {
    if (!workers.delete(pooled)) return;
    pooled.job?.reject(error);
    pooled.job = null;
    // A worker that never finished a job cannot start at all here; the queued jobs fall back to
    // the caller rather than spawning doomed workers forever.
    if (!pooled.proven) for (const job of queue.splice(0)) job.reject(error);
    dispatch();
  };
  pooled.worker.once("error", fail);
  pooled.worker.once("exit", (code) => fail(new Error(`parse worker exited with code ${code}`)));
  return pooled;
}

function startWorker(): Worker {
  // Compiled, this module is .js beside parse-worker.js; run from source, both are .ts.
  const ext = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  const entry = new URL(`./parse-worker${ext}`, import.meta.url);
  if (ext === ".js") return new Worker(entry);
  // A worker does not get the TypeScript loader's hooks before its entry module loads, so the
  // bootstrap registers them first. Only reached when running from source under tsx.
  const loader = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import(${JSON.stringify(loader)}).then((api) => { api.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { eval: true });
}
