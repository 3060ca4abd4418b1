/**
 * Parse worker: walks each source it is sent and posts compact records back in small batches, so
 * the main thread never deserialises one huge message in a single turn. It says when it is ready
 * (its modules loaded), so the pool chooses its work only then, and it stays alive between jobs
 * (its compiled code stays warm); the pool decides when it ends.
 */
import { parentPort } from "node:worker_threads";
import { RESULT_BATCH, type FoundWire, type ParseJobMessage, type ParseWorkerMessage } from "./parse-protocol.js";
import { walkSource, wireSink } from "./walk-job.js";

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
  const problems = await walkSource(job.source, job.known, sink);
  if (batch.length > 0) post({ id, kind: "found", found: batch });
  post({ id, kind: "walked", diagnostics: problems.diagnostics, failed: problems.failed });
}
