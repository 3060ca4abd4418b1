/**
 * Parse worker: loads the skill directories of each job it is sent and posts the results back
 * in small batches, so the main thread never deserialises one huge message in a single turn.
 * It stays alive between jobs (its compiled code stays warm); the pool decides when it ends.
 */
import { parentPort } from "node:worker_threads";
import { loadSkillSync } from "../package/load.js";
import type { LoadResult } from "../package/types.js";
import { RESULT_BATCH, type ParseJobMessage, type ParseWorkerMessage } from "./parse-protocol.js";

const port = parentPort!;
port.on("message", ({ id, dirs }: ParseJobMessage) => {
  let batch: LoadResult[] = [];
  let start = 0;
  for (const dir of dirs) {
    batch.push(loadSkillSync(dir));
    if (batch.length === RESULT_BATCH) {
      port.postMessage({ id, kind: "results", start, results: batch } satisfies ParseWorkerMessage);
      start += batch.length;
      batch = [];
    }
  }
  if (batch.length > 0) port.postMessage({ id, kind: "results", start, results: batch } satisfies ParseWorkerMessage);
  port.postMessage({ id, kind: "done" } satisfies ParseWorkerMessage);
});
