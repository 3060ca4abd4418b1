/** Messages between the main thread and a parse worker. */
import type { LoadResult } from "../package/types.js";

/** Results per message: small enough that deserialising one batch is a sub-millisecond step. */
export const RESULT_BATCH = 200;

export interface ParseJobMessage {
  id: number;
  dirs: string[];
}

export type ParseWorkerMessage =
  | { id: number; kind: "results"; start: number; results: LoadResult[] }
  | { id: number; kind: "done" };
