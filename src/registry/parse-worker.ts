/**
 * Parse worker: walks each source it is sent and posts compact records back in small batches, so
 * the main thread never deserialises one huge message in a single turn. It says when it is ready
 * (its modules loaded), so the pool chooses its work only then, and it stays alive between jobs
 * (its compiled code stays warm); the pool decides when it ends.
 */
import * as os from "node:os";
import { parentPort } from "node:worker_threads";
import { RESULT_BATCH, type FoundWire, type ParseJobMessage, type ParseWorkerMessage } from "./parse-protocol.js";

/**
 * How much lower than the main thread a worker runs (a nice value). The main thread walks sources
 * too, in 3 ms slices, and with two workers on two cores the scheduler would otherwise take the
 * core from it for longer than a slice: the event loop stalled 20–35 ms during a large load. At a
 * lower priority a worker gets every cycle the event loop does not want, and no more.
 */
const WORKER_NICENESS = 10;

// Only on Linux is a nice value per thread (`setpriority` on "0" means the calling thread); on
// other systems it would lower the whole process, main thread included, so it is left alone
// there. Done before the parsing modules load, so start-up already yields to the event loop.
if (process.platform === "linux") {
  try {
    os.setPriority(0, Math.min(19, os.getPriority(0) + WORKER_NICENESS));
  } catch {
    // Not allowed here (a sandbox, say): the worker runs at the main thread's priority.
  }
}
const { walkSource, wireSink } = await import("./walk-job.js");

/**
 * A batch is sent once it holds RESULT_BATCH records, or this many unchanged directories (plain
 * numbers, cheap to send) so that a rescan still reports in steps.
 */
const FOUND_BATCH = 20 * RESULT_BATCH;

const port = parentPort!;
const post = (message: ParseWorkerMessage) => port.postMessage(message);

port.on("message", (job: ParseJobMessage) => {
  // A job that throws is left unhandled on purpose: the worker then dies, and the pool hands the
  // job back to the registry, which does the work on the main thread.
  void run(job).then(() => post({ id: job.id, kind: "done" }));
});
post({ kind: "ready" });

async function run(job: ParseJobMessage): Promise<void> {
  const { id } = job;
  let batch: FoundWire[] = [];
  let records = 0;
  const sink = wireSink((found) => {
    batch.push(found);
    if (typeof found !== "number") records += 1;
    if (records === RESULT_BATCH || batch.length === FOUND_BATCH) {
      post({ id, kind: "found", found: batch });
      batch = [];
      records = 0;
    }
  });
  const problems = await walkSource(job.source, job.known, sink, undefined, job.options);
  if (batch.length > 0) post({ id, kind: "found", found: batch });
  post({ id, kind: "walked", diagnostics: problems.diagnostics, privateRefusals: problems.privateRefusals, failed: problems.failed });
}
