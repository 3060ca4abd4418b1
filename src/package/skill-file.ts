/**
 * Finding and reading SKILL.md with the byte-level limits (SPEC §1): at most 1 MiB, valid
 * UTF-8. The size is checked from `stat` before reading, so a huge file costs nothing.
 */
import { Buffer, isUtf8 } from "node:buffer";
import * as fs from "node:fs";
import * as path from "node:path";
import { isOutOfDescriptors, outOfDescriptorsText } from "./descriptor-limit.js";
import { ARGUMENTS_PLACEHOLDER } from "./invocation-fields.js";
import { MAX_SKILL_FILE_BYTES } from "./limits.js";
import { isFile } from "./path-kind.js";
import type { FileStamp } from "./types.js";

export interface SkillFileLocation {
  file: string;
  /** True when only a lowercase `skill.md` exists: accepted, with a warning. */
  lowercase: boolean;
}

export function locateSkillFile(dir: string): SkillFileLocation | null {
  const upper = path.join(dir, "SKILL.md");
  if (isFile(upper)) return { file: upper, lowercase: false };
  const lower = path.join(dir, "skill.md");
  if (isFile(lower)) return { file: lower, lowercase: true };
  return null;
}

export type SkillFileRead =
  | {
      ok: true;
      text: string;
      stamp: FileStamp;
      /** With `headOnly`: whether the bytes past the frontmatter hold `$ARGUMENTS` (the body, not decoded). */
      bodyUsesArguments?: boolean;
    }
  | { ok: false; code: string; message: string; errno?: string };

export function stampOf(stat: fs.Stats): FileStamp {
  return { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino };
}

export function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

export interface ReadOptions {
  /**
   * Decode only through the line that closes the frontmatter. The whole file is still
   * checked to be UTF-8, but a loader that wants metadata does not pay to decode (and later
   * collect) a body it will not keep.
   */
  headOnly?: boolean;
}

export function readSkillFileSync(file: string, options: ReadOptions = {}): SkillFileRead {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO planted as SKILL.md must not hang the scan; fstat below refuses it.
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (e) {
    return ioFailure(e, file);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return { ok: false, code: "skill_file_not_regular", message: `${file} is not a regular file` };
    if (stat.size > MAX_SKILL_FILE_BYTES) {
      return { ok: false, code: "skill_file_too_large", message: `SKILL.md is ${stat.size} bytes; the limit is ${MAX_SKILL_FILE_BYTES} (1 MiB)` };
    }
    // Read what is there now (the file may have changed since stat), but never more than the limit + 1.
    let want = Math.min(stat.size + 1, MAX_SKILL_FILE_BYTES + 1);
    let buf = scratchOf(want);
    let length = 0;
    for (;;) {
      const n = fs.readSync(fd, buf, length, want - length, null);
      length += n;
      // A regular file answers short only at its end, so a short read is the end: asking again
      // to hear 0 would cost every skill a second read call.
      if (n === 0 || (length < want && length >= stat.size)) break;
      if (length === want) {
        // A full buffer means the file grew past its stat: read on, up to the limit + 1, so a
        // file appended to meanwhile is read whole (or refused as too large), never torn.
        if (want === MAX_SKILL_FILE_BYTES + 1) break;
        want = Math.min(want * 2, MAX_SKILL_FILE_BYTES + 1);
        const grown = scratchOf(want);
        if (grown !== buf) buf.copy(grown, 0, 0, length);
        buf = grown;
      }
    }
    if (length > MAX_SKILL_FILE_BYTES) {
      return { ok: false, code: "skill_file_too_large", message: `SKILL.md is over the ${MAX_SKILL_FILE_BYTES}-byte (1 MiB) limit` };
    }
    const bytes = buf.subarray(0, length);
    if (!isUtf8(bytes)) return { ok: false, code: "skill_file_not_utf8", message: "SKILL.md is not valid UTF-8" };
    if (!options.headOnly) return { ok: true, text: bytes.toString("utf8"), stamp: stampOf(stat) };
    const end = frontmatterEnd(bytes);
    // Whether the skill takes text after its name depends on its body (SPEC §7 prompts): a byte
    // search here, where the bytes are, costs a load almost nothing; decoding the body would not.
    return { ok: true, text: bytes.toString("utf8", 0, end), stamp: stampOf(stat), bodyUsesArguments: bytes.indexOf(ARGUMENTS_BYTES, end) !== -1 };
  } catch (e) {
    return ioFailure(e, file);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * One scratch buffer per thread, reused by every read: the text handed back is always a decoded
 * copy, so nothing outlives the call that filled it. A fresh buffer per file cost a large tree's
 * load an allocation, page faults and external-memory collections per skill.
 */
let scratch = Buffer.allocUnsafe(64 * 1024);

/** The scratch buffer, grown to hold at least `size` bytes; callers bound their reads themselves. */
function scratchOf(size: number): Buffer {
  if (scratch.length < size) scratch = Buffer.allocUnsafe(Math.max(size, scratch.length * 2));
  return scratch;
}

const NEWLINE_FENCE = Buffer.from("\n---");
const ARGUMENTS_BYTES = Buffer.from(ARGUMENTS_PLACEHOLDER);

/**
 * Byte offset just past the first `---` line after the first line, or the file length when
 * there is none. Only a hint of where to stop decoding: `splitFrontmatter` still decides what
 * the frontmatter is, and this accepts every line it would accept as a fence.
 */
function frontmatterEnd(bytes: Buffer): number {
  let at = bytes.indexOf(NEWLINE_FENCE);
  while (at !== -1) {
    let i = at + NEWLINE_FENCE.length;
    while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x09)) i++;
    if (i < bytes.length && bytes[i] === 0x0d) i++;
    if (i >= bytes.length) return bytes.length;
    if (bytes[i] === 0x0a) return i + 1;
    at = bytes.indexOf(NEWLINE_FENCE, at + 1);
  }
  return bytes.length;
}

function ioFailure(e: unknown, file: string): SkillFileRead {
  const err = e as NodeJS.ErrnoException;
  if (err.code === "ENOENT" || err.code === "ENOTDIR") return { ok: false, code: "skill_file_missing", message: "Missing required file: SKILL.md" };
  if (isOutOfDescriptors(err.code)) return { ok: false, code: "too_many_open_files", errno: err.code!, message: `Cannot read ${file}: ${outOfDescriptorsText(err.code!)}` };
  return { ok: false, code: "skill_file_unreadable", message: `Cannot read ${file}: ${err.code ?? err.message}` };
}
