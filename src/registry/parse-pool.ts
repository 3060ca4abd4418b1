/**
 * A small process-wide pool of parse workers. Workers start on first need and stay warm between
 * refreshes, because a fresh worker pays its module loading and an unoptimised first thousand
 * parses again. An idle worker is unref'd (it never keeps the process alive) and ends after a
 * quiet period, so an idle process holds no threads.
 */
import * as os from "node:os";
import { Worker } from "node:worker_threads";
import type { ParseJobMessage, ParseWorkerMessage, WorkerJob } from "./parse-protocol.js";

const MAX_WORKERS = Math.max(1, Math.min(2, os.availableParallelism()));
const IDLE_MS = 30_000;

/**
 * Receives each message of a job as it arrives (all but the final `done`), so the caller can
 * collect records while the worker still works.
 */
export type MessageHandler = (message: Exclude<ParseWorkerMessage, { kind: "done" }>) => void;

interface Job {
  message: ParseJobMessage;
  onMessage: MessageHandler;
  resolve(): void;
  reject(error: Error): void;
}

interface PooledWorker {
  worker: Worker;
  job: Job | null;
  /** Whether it ever finished a job: a worker that dies before that is not worth restarting. */
  proven: boolean;
}

const workers = new Set<PooledWorker>();
const queue: Job[] = [];
let nextJobId = 1;
let idleTimer: NodeJS.Timeout | null = null;

/** Runs `job` in a worker thread; resolves when it is done, rejects when no worker can run it. */
export function runInWorker(job: WorkerJob, onMessage: MessageHandler): Promise<void> {
  return new Promise((resolve, reject) => {
    queue.push({ message: { ...job, id: nextJobId++ }, onMessage, resolve, reject });
    dispatch();
  });
}

/** Whether a worker is running now, so a job sent now does not wait for one to start. */
export function workersRunning(): boolean {
  return workers.size > 0;
}

function dispatch(): void {
  if (idleTimer) {
    clearTimeout(idleTimer);
    idleTimer = null;
  }
  while (queue.length > 0) {
    let pooled = [...workers].find((w) => w.job === null);
    if (!pooled && workers.size < MAX_WORKERS) {
      try {
        pooled = spawn();
      } catch (error) {
        // No worker can start here (say, no TypeScript loader for a .ts worker): every waiting
        // job goes back to its caller, which loads inline.
        for (const job of queue.splice(0)) job.reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
    }
    if (!pooled) return;
    const job = queue.shift()!;
    pooled.job = job;
    pooled.worker.ref();
    pooled.worker.postMessage(job.message);
  }
  if ([...workers].every((w) => w.job === null) && workers.size > 0) {
    idleTimer = setTimeout(() => {
      for (const w of [...workers]) {
        workers.delete(w);
        void w.worker.terminate();
      }
    }, IDLE_MS).unref();
  }
}

function spawn(): PooledWorker {
  const pooled: PooledWorker = { worker: startWorker(), job: null, proven: false };
  workers.add(pooled);
  pooled.worker.on("message", (message: ParseWorkerMessage) => {
    const job = pooled.job;
    if (!job || job.message.id !== message.id) return;
    if (message.kind !== "done") {
      job.onMessage(message);
      return;
    }
    pooled.job = null;
    pooled.proven = true;
    pooled.worker.unref();
    job.resolve();
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
