/**
 * The JSONL session log (`log.ts`) behind the `SessionStore` contract: one file per session, the
 * same lines the file log has always written, opened the same safe way. A record's sequence is
 * its position among the file's complete records, so a torn or foreign line holds no sequence.
 *
 * This store serves one process on one machine, like the log it adapts. Conflicts are exact
 * between writers in this process (appends run one at a time and check the expected sequence);
 * a file grown by another process is noticed by its size and re-read before the next append,
 * which is best effort, not a lock. Idempotency answers are kept in this process's memory (the
 * newest `FILE_STORE_ANSWERS_PER_SESSION` per session), not in the file, whose format stays as
 * it was: a restarted process forgets them, as it forgets the HTTP sessions it served.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Diagnostic } from "../package/diagnostic.js";
import { fileLog, logFileStem, readSessionLog, type SessionLog } from "./log.js";
import type { SessionRecord } from "./records.js";
import { checkAppend, keyText, LocalCoordination, StoreCancelledError, type SessionKey, type SessionStore, type StoredRecord } from "./store.js";

/** Idempotency answers kept per session file: a retry comes within seconds, never thousands of calls later. */
export const FILE_STORE_ANSWERS_PER_SESSION = 256;

interface OpenFile {
  log: SessionLog;
  /** Complete records in the file, as last read or written by this process. */
  count: number;
  /** File size after this process's last read or write; another size means someone else wrote. */
  size: number;
  answers: Map<string, string>;
}

/**
 * Where a session's file lives: `<dir>/<id>.jsonl` for the principal of no scope (the layout the
 * file log has always used), `<dir>/principals/<principal>/<id>.jsonl` for any other, so two
 * principals' sessions of one id are two files.
 */
export function storeFilePath(dir: string, key: SessionKey): string {
  const file = `${logFileStem(key.sessionId)}.jsonl`;
  return key.principal === "" ? path.join(dir, file) : path.join(dir, "principals", logFileStem(key.principal), file);
}

function sizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

export function fileStore(dir: string): SessionStore {
  const root = path.resolve(dir);
  const files = new Map<string, OpenFile>();
  const local = new LocalCoordination();
  let closed = false;
  const open = (): void => {
    if (closed) throw new Error("the session store is closed");
  };

  function readFrom(file: string, fromSeq: number): { records: StoredRecord[]; count: number; diagnostics: Diagnostic[] } {
    const read = readSessionLog(file);
    return {
      records: read.records.slice(fromSeq).map((record, index) => ({ seq: fromSeq + index, record })),
      count: read.records.length,
      diagnostics: read.diagnostics,
    };
  }

  /** The file's state, re-read when its size says another writer changed it. */
  function fileOf(key: SessionKey): { file: string; entry: OpenFile } {
    const file = storeFilePath(root, key);
    const text = keyText(key);
    let entry = files.get(text);
    if (!entry) {
      entry = { log: fileLog(file), count: 0, size: -1, answers: new Map() };
      files.set(text, entry);
    }
    const size = sizeOf(file);
    if (size !== entry.size) {
      entry.count = readSessionLog(file).records.length;
      entry.size = size;
    }
    return { file, entry };
  }

  return {
    kind: "file",
    async read(key, fromSeq = 0, options = {}) {
      open();
      const file = storeFilePath(root, key);
      const read = readFrom(file, fromSeq);
      const answer = options.idempotencyKey === undefined ? undefined : files.get(keyText(key))?.answers.get(options.idempotencyKey);
      return {
        records: read.records,
        nextSeq: Math.max(read.count, fromSeq),
        ...(answer !== undefined ? { answer: JSON.parse(answer) as unknown } : {}),
        diagnostics: read.diagnostics,
      };
    },
    async appendAt(key, expectedSeq, records, options = {}) {
      open();
      checkAppend(expectedSeq, records);
      if (options.signal?.aborted) throw new StoreCancelledError();
      const { file, entry } = fileOf(key);
      const stored = options.idempotencyKey === undefined ? undefined : entry.answers.get(options.idempotencyKey);
      if (stored !== undefined) return { status: "duplicate", answer: JSON.parse(stored) as unknown };
      if (expectedSeq !== entry.count) {
        if (expectedSeq > entry.count) throw new RangeError(`append at ${expectedSeq} would leave a gap: the session's next sequence is ${entry.count}`);
        const read = readFrom(file, expectedSeq);
        return { status: "conflict", records: read.records, nextSeq: read.count, diagnostics: read.diagnostics };
      }
      const last = records.length - 1;
      const before = entry.size;
      for (const [index, record] of records.entries()) {
        // fsync once, after the last record of a durable append: the ones before it are then on disk too.
        const problem = entry.log.append(record as SessionRecord, { sync: options.durable === true && index === last });
        if (problem) {
          entry.size = -1;
          throw new Error(problem.message);
        }
      }
      entry.size = sizeOf(file);
      // The log reports a failing file once; a file that did not grow failed again, silently.
      if (entry.size <= before) {
        entry.size = -1;
        throw new Error(`Could not append to the session log ${path.basename(file)}`);
      }
      entry.count += records.length;
      if (options.idempotencyKey !== undefined) {
        entry.answers.set(options.idempotencyKey, JSON.stringify(options.answer ?? null));
        if (entry.answers.size > FILE_STORE_ANSWERS_PER_SESSION) entry.answers.delete(entry.answers.keys().next().value!);
      }
      if (options.touch) local.touch(key);
      return { status: "ok", nextSeq: entry.count };
    },
    async touch(key) {
      open();
      local.touch(key);
    },
    async claimIdle(idleMs, limit) {
      open();
      return local.claimIdle(idleMs, limit);
    },
    async forget(key) {
      local.forget(key);
      const entry = files.get(keyText(key));
      if (entry) {
        files.delete(keyText(key));
        entry.log.close();
      }
    },
    async publish(message) {
      open();
      local.publish(message);
    },
    async subscribe(listener) {
      open();
      return local.subscribe(listener);
    },
    async close() {
      closed = true;
      for (const entry of files.values()) entry.log.close();
      files.clear();
    },
  };
}
