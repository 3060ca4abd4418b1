/**
 * Reading a file of a skill by a model-supplied relative path (SPEC §4 Read). This module is the
 * one place path confinement lives: every surface that reads a skill file on a caller's behalf
 * goes through `readConfinedFile`.
 */
import { createHash } from "node:crypto";
import fs, { constants } from "node:fs";
import path from "node:path";
import { MAX_AUTHORED_FILE_BYTES } from "./limits.js";
import { isLeftOutOfPackage, liesInOtherPackage, sourceRootsInside } from "./package-shape.js";
import { isOutOfDescriptors, outOfDescriptorsText } from "./descriptor-limit.js";
import { errorCode, fileErrorReason } from "./file-error.js";

/**
 * Why a confined read refused (`unsupported_path`: a dot-entry or `node_modules`, which are not
 * part of the package; see package-shape.ts). These strings are part of the tool's persisted contract
 * (`skill_read_error.reason`, SPEC §4); they are defined here, where they are decided, and the
 * envelope module re-exports them so the package layer never depends on the tool layer.
 */
export type ReadErrorReason = "illegal_path" | "unsupported_path" | "not_found" | "not_a_file" | "not_utf8" | "io";

export const DEFAULT_MAX_READ_BYTES = 256 * 1024;

const NO_ROOTS: readonly string[] = Object.freeze([]);
const NOT_IN_SKILL = "no such file in this skill";

export interface ConfinedReadOptions {
  /** Largest number of bytes returned; longer files are cut with a notice. */
  maxBytes?: number;
  /**
   * The real root directories of every source: one inside the skill's directory is another
   * package, never part of this one (see `endsPackage`). Default none.
   */
  sourceRoots?: readonly string[];
  /**
   * Also return the sha256 of the whole file's bytes, read once with the text (a file over
   * `MAX_AUTHORED_FILE_BYTES` gets none): what a later write compares to see the file unchanged.
   */
  digest?: boolean;
}

export type ConfinedRead =
  | { ok: true; path: string; content: string; size: number; truncated: boolean; sha256?: string }
  | { ok: false; reason: ReadErrorReason; message: string };

export type NormalisedPath =
  | { ok: true; path: string; segments: string[] }
  | { ok: false; reason: "illegal_path"; message: string };

/**
 * Normalises a skill-relative path: backslashes become `/` (paths written on Windows), `.` and
 * empty segments are dropped (`./reference/x.md` is `reference/x.md`, as Markdown links in real
 * skills write it). Refuses anything that could name a place outside the skill before the file
 * system is touched. Nothing is percent-decoded: `%2e%2e` is a literal file name.
 */
export function normaliseSkillPath(filePath: string): NormalisedPath {
  const illegal = (why: string): NormalisedPath => ({
    ok: false,
    reason: "illegal_path",
    message: `Illegal file_path ${JSON.stringify(filePath)}: ${why}.`,
  });
  if (filePath.includes("\0")) return illegal("it contains a NUL character");
  const slashed = filePath.replace(/\\/g, "/");
  if (slashed.trim() === "") return illegal("it is empty");
  // `/x`, `//server/share` and drive paths (`C:\x`, `C:x`) are all absolute somewhere.
  if (slashed.startsWith("/") || /^[A-Za-z]:/.test(slashed)) return illegal("it must be relative to the skill directory");
  const segments = slashed.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) return illegal("`..` segments are not allowed");
  if (segments.length === 0) return illegal("it names no file");
  return { ok: true, path: segments.join("/"), segments };
}

/**
 * Reads one regular UTF-8 file inside `skillDir`. Never throws and never blocks on a FIFO or a
 * device: every problem comes back as a `reason` with a message free of absolute paths.
 */
export async function readConfinedFile(
  skillDir: string,
  filePath: string,
  options: ConfinedReadOptions = {},
): Promise<ConfinedRead> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_READ_BYTES;
  const readLimit = options.digest ? Math.max(maxBytes, MAX_AUTHORED_FILE_BYTES) + 1 : maxBytes + 1;
  const read = await readConfinedBytes(skillDir, filePath, { maxBytes: readLimit, sourceRoots: options.sourceRoots ?? NO_ROOTS });
  if (!read.ok) return read;
  const { size } = read;
  const sha256 = options.digest && read.bytes.length <= MAX_AUTHORED_FILE_BYTES ? createHash("sha256").update(read.bytes).digest("hex") : undefined;
  const bytes = read.bytes.length > maxBytes + 1 ? read.bytes.subarray(0, maxBytes + 1) : read.bytes;
  const truncated = bytes.length > maxBytes;
  const kept = truncated ? bytes.subarray(0, characterBoundary(bytes, maxBytes)) : bytes;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(kept);
  } catch {
    return refusal(read.path, "not_utf8", "it is not valid UTF-8 text");
  }
  const content = truncated ? text + truncationNotice(kept.length, size) : text;
  return { ok: true, path: read.path, content, size, truncated, ...(sha256 !== undefined ? { sha256 } : {}) };
}

export type ConfinedBytes =
  | { ok: true; path: string; bytes: Buffer; size: number }
  | { ok: false; reason: ReadErrorReason; message: string };

/**
 * The raw bytes of one regular file inside `skillDir`, at most `maxBytes` of them (`size` is the
 * whole file's), under exactly the confinement of `readConfinedFile`, which is built on it.
 */
export async function readConfinedBytes(
  skillDir: string,
  filePath: string,
  options: { maxBytes: number; sourceRoots?: readonly string[] },
): Promise<ConfinedBytes> {
  return readConfinedBytesSync(skillDir, filePath, options);
}

/**
 * The skill's directory, as long as it is still the folder loading registered. A registered
 * skill's `dir` is the real path discovery found it at, so one that no longer resolves to itself
 * had a folder on its way, or its own, swapped for a link since: into the shared pool, or
 * another agent's private skill. Reading or writing through it would reach that place under this
 * skill's name and this scope's rights, so nothing is, until a rescan finds what is there now.
 * Every confined read and write goes through this one check.
 */
export function registeredSkillDir(skillDir: string): { ok: true; realDir: string } | { ok: false; reason: ReadErrorReason; why: string } {
  let realDir: string;
  try {
    realDir = fs.realpathSync.native(skillDir);
  } catch (error) {
    return { ok: false, reason: fileErrorReason(error), why: "the skill directory cannot be resolved" };
  }
  if (realDir !== skillDir) return { ok: false, reason: "illegal_path", why: "the skill's folder is no longer the one its skill was loaded from (a link stands on its way); it is read again at the next scan" };
  return { ok: true, realDir };
}

/** `readConfinedBytes` without the promise: for a write that must check and replace without yielding. */
export function readConfinedBytesSync(skillDir: string, filePath: string, options: { maxBytes: number; sourceRoots?: readonly string[] }): ConfinedBytes {
  const normalised = normaliseSkillPath(filePath);
  if (!normalised.ok) return normalised;
  const relative = normalised.path;
  const refuse = (reason: ReadErrorReason, why: string): ConfinedBytes => refusal(relative, reason, why);
  const leftOut = (): ConfinedBytes => refuse("unsupported_path", "dot-entries and node_modules are not part of a skill's package");
  if (normalised.segments.some(isLeftOutOfPackage)) return leftOut();

  // Synchronous on purpose: each step is one bounded system call on a path inside the skill
  // (`open` never waits, `read` takes at most `maxBytes`), and measured here the same steps
  // through fs/promises cost 8–10× the CPU, each a trip through the thread pool.
  const resolved = registeredSkillDir(skillDir);
  if (!resolved.ok) return refuse(resolved.reason, resolved.why);
  const realDir = resolved.realDir;
  let realTarget: string;
  try {
    realTarget = fs.realpathSync.native(path.join(realDir, ...normalised.segments));
  } catch (error) {
    const reason = fileErrorReason(error);
    return refuse(reason, reason === "not_found" ? NOT_IN_SKILL : describe(error));
  }
  // Checked on the real paths, after every symlink is resolved, and by whole components so
  // that a sibling `a-evil` never counts as inside `a`.
  if (!isInside(realDir, realTarget)) return refuse("illegal_path", "it resolves outside the skill directory");
  // A link inside the package may still lead to a left-out entry (`notes.md -> .env`).
  const realSegments = path.relative(realDir, realTarget).split(path.sep);
  if (realSegments.some(isLeftOutOfPackage)) return leftOut();
  // Another skill's or source's files answer as files this package does not have, before
  // anything else is said of them (that one is a directory, or not UTF-8).
  const sourceRoots = sourceRootsInside(realDir, options.sourceRoots ?? NO_ROOTS);
  if (liesInOtherPackage(realDir, realSegments, sourceRoots)) return refuse("not_found", NOT_IN_SKILL);

  try {
    // Before opening: a device is never opened at all.
    const stat = fs.statSync(realTarget);
    if (!stat.isFile()) {
      // A nested skill's own folder is no more this package's than the files in it are.
      if (stat.isDirectory() && liesInOtherPackage(realDir, realSegments, sourceRoots, true)) return refuse("not_found", NOT_IN_SKILL);
      return refuse("not_a_file", "it is not a regular file");
    }
  } catch (error) {
    return refuse(fileErrorReason(error), describe(error));
  }

  let fd: number;
  try {
    // O_NONBLOCK: if the path was swapped for a FIFO after the stat, open still returns at once.
    // O_NOFOLLOW: the real path has no final symlink; one appearing now is a swap, so refuse it.
    fd = fs.openSync(realTarget, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW | constants.O_NOCTTY);
  } catch (error) {
    return refuse(fileErrorReason(error), describe(error));
  }
  try {
    const info = fs.fstatSync(fd);
    if (!info.isFile()) return refuse("not_a_file", "it is not a regular file");
    // The checks above were made on a path; the open walked it again, and a directory on the way
    // may have been swapped for a link in between. Where the descriptor is decides.
    const opened = openedPlace(fd, info, realDir, realTarget);
    if (opened === "outside") return refuse("illegal_path", "it resolves outside the skill directory");
    if (opened !== "same") {
      const openedSegments = path.relative(realDir, opened).split(path.sep);
      if (openedSegments.some(isLeftOutOfPackage)) return leftOut();
      if (liesInOtherPackage(realDir, openedSegments, sourceRoots)) return refuse("not_found", NOT_IN_SKILL);
    }
    const bytes = readPrefix(fd, info.size, options.maxBytes);
    return { ok: true, path: relative, bytes, size: Math.max(info.size, bytes.length) };
  } catch (error) {
    return refuse(fileErrorReason(error), describe(error));
  } finally {
    fs.closeSync(fd);
  }
}

/** Whether this system names an open descriptor's file at `/proc/self/fd/N` (Linux); checked at the first read. */
let descriptorLinks: boolean | null = process.platform === "linux" ? null : false;

/**
 * Where the file behind `fd` really is: `"same"` when that is `realTarget` (the path checked
 * before the open), `"outside"` when it is not inside `realDir`, else its real path inside
 * (renamed while it was opened), for the caller to check as any path of the package.
 *
 * On Linux the kernel keeps the descriptor's path: one `readlink` of `/proc/self/fd/N`, with no
 * window left, since the answer is about the file already open. Elsewhere (or without `/proc`)
 * the path is walked again with `lstat`: every directory from `realDir` down must still be a
 * directory and not a link, and the file there must be the one open (device and inode). That
 * catches a swap that is still in place or was undone, but a swap made and undone between two
 * of those calls can still pass: the walk narrows the window, and only the Linux check closes it.
 */
function openedPlace(fd: number, info: fs.Stats, realDir: string, realTarget: string): "same" | "outside" | string {
  if (descriptorLinks !== false) {
    let opened: string | null = null;
    try {
      opened = fs.readlinkSync(`/proc/self/fd/${fd}`);
      descriptorLinks = true;
    } catch {
      // No /proc here (a minimal container): fall back to the walk from now on.
      if (descriptorLinks === null) descriptorLinks = false;
    }
    if (opened !== null) {
      if (opened === realTarget) return "same";
      return isInside(realDir, opened) ? opened : "outside";
    }
  }
  return sameFileByWalk(info, realDir, realTarget) ? "same" : "outside";
}

function sameFileByWalk(info: fs.Stats, realDir: string, realTarget: string): boolean {
  try {
    let dir = realDir;
    const segments = path.relative(realDir, realTarget).split(path.sep);
    for (let i = 0; i < segments.length - 1; i++) {
      dir = path.join(dir, segments[i]!);
      if (!fs.lstatSync(dir).isDirectory()) return false;
    }
    const there = fs.lstatSync(realTarget);
    return there.isFile() && there.dev === info.dev && there.ino === info.ino;
  } catch {
    return false;
  }
}

function refusal(relative: string, reason: ReadErrorReason, why: string): { ok: false; reason: ReadErrorReason; message: string } {
  return { ok: false, reason, message: `Cannot read ${JSON.stringify(relative)}: ${why}.` };
}

/**
 * Component-wise containment of a real path in a real directory: `/s/a-evil` is not inside
 * `/s/a`, and the directory itself is not "inside" (it is not a file of the skill). The one
 * containment rule; the resource listing uses it too, so it never lists what a read refuses.
 */
export function isInside(dir: string, target: string): boolean {
  const rel = path.relative(dir, target);
  if (rel === "" || path.isAbsolute(rel)) return false;
  return rel !== ".." && !rel.startsWith(`..${path.sep}`);
}

/**
 * At most `limit` bytes from the start of a regular file whose `fstat` said `size`. The buffer
 * is sized to the file, not to the limit (a 256 KiB buffer per read cost more than the read); a
 * short read is the end of a regular file, and a file that grew since its `fstat` is read on
 * until its end or the limit.
 */
function readPrefix(fd: number, size: number, limit: number): Buffer {
  let buffer = Buffer.allocUnsafe(Math.min(size + 1, limit));
  let filled = 0;
  for (;;) {
    const bytesRead = fs.readSync(fd, buffer, filled, buffer.length - filled, filled);
    filled += bytesRead;
    if (bytesRead === 0 || filled === limit) break;
    if (filled < buffer.length) {
      // Short of what `fstat` promised: ask again; short past it: the end.
      if (filled >= size) break;
      continue;
    }
    const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, limit));
    buffer.copy(grown, 0, 0, filled);
    buffer = grown;
  }
  return buffer.subarray(0, filled);
}

/** The largest cut at or below `limit` that does not split a UTF-8 sequence. */
function characterBoundary(bytes: Uint8Array, limit: number): number {
  let cut = Math.min(limit, bytes.length);
  // A continuation byte (10xxxxxx) belongs to the character that started before it; at most
  // three of them follow a lead byte.
  for (let steps = 0; steps < 3 && cut > 0 && cut < bytes.length && (bytes[cut]! & 0xc0) === 0x80; steps++) cut--;
  return cut;
}

function truncationNotice(shown: number, size: number): string {
  return `\n\n[File truncated: the file is ${size} bytes; only the first ${shown} bytes are shown.]`;
}

/** The error's code only: Node's messages embed absolute paths, which must not reach a result. */
function describe(error: unknown): string {
  const code = errorCode(error);
  if (code === "ELOOP") return "it is a symbolic link loop or was replaced by a link";
  if (isOutOfDescriptors(code)) return outOfDescriptorsText(code!);
  return code ? `the file system reported ${code}` : "the file could not be read";
}
