/**
 * The session log: append-only JSONL, one record per line, one file per session.
 *
 * Each record is written with one synchronous write, so a record that returned is in the kernel
 * before the next one starts and a crash can tear at most the last line. Where the file may be
 * and how it is opened (no symlinks, private modes) is `log-file.ts`. Checkpoints are also fsync'd: they mark the points a host rebuilds its transcript
 * from, so they must survive a power cut, not only a process crash.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { createHash } from "node:crypto";
import { diagnostic, type Diagnostic } from "../package/diagnostic.js";
import { openLogFileSync } from "./log-file.js";
import { isSessionRecord, type SessionRecord } from "./records.js";

export interface SessionLog {
  /** The file written to; null for the in-memory log. */
  readonly path: string | null;
  /** Appends one record; a write failure comes back as a diagnostic and loses no session state. */
  append(record: SessionRecord, options?: { sync?: boolean }): Diagnostic | null;
  /** Flushes to stable storage. */
  sync(): Diagnostic | null;
  /** Flushes and releases the file; a later append reopens it. */
  close(): Diagnostic | null;
  /** The in-memory log's records (the newest, within its bounds); absent for a file log, which is read back instead. */
  held?(): SessionRecord[];
}

export interface LogReadResult {
  records: SessionRecord[];
  diagnostics: Diagnostic[];
}

const SAFE_FILE_STEM = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * The file stem for a session id. Ids are caller-chosen, so one that could climb out of the
 * directory or is not portable as a file name is replaced by a stable hash of itself.
 */
export function logFileStem(id: string): string {
  if (SAFE_FILE_STEM.test(id) && !id.includes("..")) return id;
  return `session-${createHash("sha256").update(id).digest("hex").slice(0, 32)}`;
}

/**
 * Where a session's log lives. `false` or nothing keeps it in memory: the library writes no file
 * the host did not ask for (a working tree may be an untrusted repository). A string ending in
 * `.jsonl` is the file itself; any other string is a directory that holds `<id>.jsonl`, and so is
 * one ending in a separator, whatever its name (`--log-dir sessions.jsonl` means a directory).
 */
export function resolveLogPath(cwd: string, id: string, option: string | false | undefined): string | null {
  if (option === false || option === undefined) return null;
  const fileName = `${logFileStem(id)}.jsonl`;
  const target = path.resolve(cwd, option);
  const namesDirectory = option.endsWith("/") || option.endsWith(path.sep);
  if (target.endsWith(".jsonl") && !namesDirectory) return target;
  return path.join(target, fileName);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// A host holds a session per conversation, often a hundred at once, and most never read
// `history()`: a default of 1,000 records and 8 MiB cost each conversation megabytes nobody asked
// for (100 conversations held 400 MB). The default now covers the recent turns a host shows or
// debugs; a host that wants more asks (`memoryHistory`, `memoryHistoryChars`) or passes a file log.
/** Newest records the in-memory log keeps, at most, unless the host asks for more. */
export const MEMORY_LOG_MAX_RECORDS = 64;
/** Characters of JSON the in-memory log keeps, at most (the newest record is kept whatever its size). */
export const MEMORY_LOG_MAX_CHARS = 256 * 1024;

/**
 * The log of a session that has no file: its newest records, as JSON text, within a count and a
 * size bound. A live session holds no records of its own (a `{}` listing of 10,000 skills is
 * ~3 MB of envelope), so without bounds here memory would grow with every call. Text, because
 * it is compact, its size is known exactly, and a record read back is a copy no caller can
 * change under the log.
 */
export function memoryLog(maxRecords = MEMORY_LOG_MAX_RECORDS, maxChars = MEMORY_LOG_MAX_CHARS): SessionLog {
  if (!Number.isSafeInteger(maxRecords) || maxRecords < 0) throw new RangeError(`memoryHistory must be a whole number of records, 0 or more, not ${String(maxRecords)}`);
  if (!Number.isSafeInteger(maxChars) || maxChars < 0) throw new RangeError(`memoryHistoryChars must be a whole number of characters, 0 or more, not ${String(maxChars)}`);
  // Nothing to keep: not even serialised, so a record costs the session nothing.
  if (maxRecords === 0) return { path: null, append: () => null, sync: () => null, close: () => null, held: () => [] };
  const lines: string[] = [];
  let first = 0;
  let chars = 0;
  return {
    path: null,
    append(record) {
      const line = JSON.stringify(record);
      lines.push(line);
      chars += line.length;
      while (lines.length - first > 1 && (lines.length - first > maxRecords || chars > maxChars)) {
        chars -= lines[first]!.length;
        lines[first++] = "";
      }
      // Compact now and then, so the array of dropped slots does not grow either.
      if (first > Math.max(64, maxRecords) && first * 2 > lines.length) {
        lines.splice(0, first);
        first = 0;
      }
      return null;
    },
    sync: () => null,
    close: () => null,
    held: () => lines.slice(first).map((line) => JSON.parse(line) as SessionRecord),
  };
}

/**
 * Log files held by live sessions of this process. Two sessions appending to one file would
 * interleave their records, and a restore would then replay both conversations as one.
 */
const liveLogs = new Set<string>();

/** The file's real path: a directory reached through a symlink names the same file. */
function realLogPath(filePath: string): string {
  try {
    return path.join(fs.realpathSync.native(path.dirname(filePath)), path.basename(filePath));
  } catch {
    // No directory yet: nothing can link to a file in it.
    return filePath;
  }
}

/**
 * A JSONL file log, created with the first record so a session that never calls the tool leaves
 * no file. The file is opened for each record and closed after it: a server holding thousands of
 * idle sessions must not hold a descriptor for each (under a low descriptor limit they starved
 * every other client's reads), and opening it each time also re-checks its path for symlinks.
 */
export function fileLog(filePath: string): SessionLog {
  const identity = realLogPath(filePath);
  if (liveLogs.has(identity)) {
    throw new Error(`The session log ${path.basename(filePath)} is in use by a live session of this process; close that session before opening it again`);
  }
  liveLogs.add(identity);
  // A log that cannot be written fails every record the same way: it is reported once, and again
  // only after a write has worked in between, so the diagnostics stay bounded.
  let failing = false;
  // A previous writer may have died mid-line; the next record must not be glued onto it. Checked
  // once, at the first open: after that, only this session writes the file.
  let tailChecked = false;
  let startOnFreshLine = false;
  // Records written since the last fsync: close() flushes them.
  let unsynced = false;

  function open(): number {
    const opened = openLogFileSync(filePath, "append");
    if (tailChecked) return opened;
    try {
      const size = fs.fstatSync(opened).size;
      if (size > 0) {
        const last = Buffer.alloc(1);
        fs.readSync(opened, last, 0, 1, size - 1);
        startOnFreshLine = last[0] !== 0x0a;
      }
    } catch (error) {
      fs.closeSync(opened);
      throw error;
    }
    tailChecked = true;
    return opened;
  }

  function writeAll(target: number, bytes: Buffer): void {
    let offset = 0;
    while (offset < bytes.length) offset += fs.writeSync(target, bytes, offset, bytes.length - offset);
  }

  function fail(action: string, error: unknown): Diagnostic {
    return diagnostic(filePath, "error", "session_log_write_failed", `Could not ${action} the session log: ${errorText(error)}`);
  }

  function flush(): Diagnostic | null {
    if (!unsynced) return null;
    try {
      const target = openLogFileSync(filePath, "append");
      try {
        fs.fsyncSync(target);
      } finally {
        fs.closeSync(target);
      }
      unsynced = false;
      return null;
    } catch (error) {
      return fail("flush", error);
    }
  }

  return {
    path: filePath,
    append(record, options) {
      try {
        const target = open();
        try {
          const line = `${startOnFreshLine ? "\n" : ""}${JSON.stringify(record)}\n`;
          writeAll(target, Buffer.from(line, "utf8"));
          startOnFreshLine = false;
          if (options?.sync) fs.fsyncSync(target);
          unsynced = !options?.sync;
        } finally {
          fs.closeSync(target);
        }
        failing = false;
        return null;
      } catch (error) {
        // Part of the line may have reached the file; the next record starts on its own line.
        startOnFreshLine = true;
        if (failing) return null;
        failing = true;
        return fail("append to", error);
      }
    },
    sync: flush,
    close() {
      liveLogs.delete(identity);
      return flush();
    },
  };
}

/**
 * Reads a session log. Lines that are not complete records are skipped with a diagnostic and
 * everything else is kept: a torn last line (a writer killed mid-record) is the expected case,
 * but a bad line in the middle (a log appended to after such a crash) is survived the same way.
 * A missing file is an empty log: sessions create their file on the first record.
 */
export function readSessionLog(filePath: string): LogReadResult {
  let text: string;
  try {
    const fd = openLogFileSync(filePath, "read");
    try {
      text = fs.readFileSync(fd, "utf8");
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { records: [], diagnostics: [] };
    return {
      records: [],
      diagnostics: [diagnostic(filePath, "error", "session_log_unreadable", `Could not read the session log: ${errorText(error)}`)],
    };
  }
  const records: SessionRecord[] = [];
  const diagnostics: Diagnostic[] = [];
  const lines = text.split("\n");
  const lastIndex = lines.length - 1;
  lines.forEach((line, index) => {
    if (line.trim() === "") return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = undefined;
    }
    if (isSessionRecord(parsed)) {
      records.push(parsed);
      return;
    }
    const torn = index === lastIndex;
    diagnostics.push(
      diagnostic(
        filePath,
        "warning",
        torn ? "session_log_torn_line" : "session_log_bad_line",
        torn
          ? `Skipped an incomplete last line of the session log (${line.length} characters); every complete record before it was kept.`
          : `Skipped line ${index + 1} of the session log: it is not a complete session record.`,
      ),
    );
  });
  return { records, diagnostics };
}
