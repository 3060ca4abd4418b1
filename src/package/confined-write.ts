/**
 * Writing one skill package on an agent's behalf (SPEC §11). The one place write confinement,
 * atomic replacement and the per-skill write lock live; the paths are judged by the same rules
 * as reads (`normaliseSkillPath`, `isInside`, `isLeftOutOfPackage` in confined-read.ts and
 * package-shape.ts), plus what only a write needs: no link is written through or removed, no
 * special file is replaced, and no file may make a folder a skill of its own.
 *
 * Every step is synchronous: each is one bounded system call, and a write that checks, writes and
 * renames without yielding cannot interleave with another call of the same process. Processes
 * are kept apart by the lock file (`withSkillWriteLock`).
 */
import { createHash, randomBytes } from "node:crypto";
import fs, { constants } from "node:fs";
import os from "node:os";
import path from "node:path";
import { isInside, normaliseSkillPath, readConfinedBytesSync as readConfinedBytesUnderLimit, registeredSkillDir, type ReadErrorReason } from "./confined-read.js";
import { MAX_AUTHORED_FILE_BYTES } from "./limits.js";
import { packageWriteProblem } from "./package-files.js";
import { isLeftOutOfPackage, liesInOtherPackage, SKILL_FILE_NAMES, sourceRootsInside } from "./package-shape.js";
import { hasUnshowableCharacter } from "./display-text.js";
import { errorCode, fileErrorReason } from "./file-error.js";
import { fsyncDirectory } from "./fsync-directory.js";
import { breakLock, observeLock, placeLock, processRuns, releaseLock, type ObservedLock } from "./lock-file.js";
import { replaceFileIn, writeNewFileSync } from "./safe-file-write.js";

/** Why a write refused; `too_large` adds to the read reasons. Part of the `skill_write_error` envelope. */
export type WriteErrorReason = ReadErrorReason | "too_large";

export type WriteRefusal = { ok: false; reason: WriteErrorReason; message: string };
export type WriteOutcome = { ok: true } | WriteRefusal;

export type WritablePath = { ok: true; path: string; segments: string[] } | WriteRefusal;

/** The longest file or folder name most file systems take (NAME_MAX), in bytes. */
const MAX_NAME_BYTES = 255;
/**
 * The longest file name a write takes: a file is written under a temporary name first
 * (`.<name>.<pid>-<12 hex>.tmp`, a pid of at most 7 digits), which must fit NAME_MAX too.
 */
const MAX_FILE_NAME_BYTES = MAX_NAME_BYTES - ".".length - ".1234567-".length - 12 - ".tmp".length;

/**
 * A skill-relative path an agent may write or remove. SKILL.md at the top is the skill's own
 * file (changed only through create, edit and patch, which validate it); a `SKILL.md` further
 * down would make that folder a skill of its own, unvalidated, so it is refused.
 */
export function writablePath(filePath: string): WritablePath {
  const normalised = normaliseSkillPath(filePath);
  if (!normalised.ok) return normalised;
  const refuse = (reason: WriteErrorReason, why: string): WriteRefusal => refusal(normalised.path, reason, why);
  if (normalised.segments.some(isLeftOutOfPackage)) return refuse("unsupported_path", "dot-entries and node_modules are not part of a skill's package");
  // The package rules leave such a name out of every listing (package-shape, resources.ts): a
  // file written under it could be read by name and never seen, by the model or anyone else.
  if (normalised.segments.some(hasUnshowableCharacter)) return refuse("illegal_path", "a name with a line break or a hidden character could never be listed");
  // Checked before any folder on the way is made, so the refusal leaves nothing behind.
  const last = normalised.segments[normalised.segments.length - 1]!;
  if (normalised.segments.slice(0, -1).some((segment) => Buffer.byteLength(segment) > MAX_NAME_BYTES)) return refuse("illegal_path", `a folder name is longer than ${MAX_NAME_BYTES} bytes`);
  if (Buffer.byteLength(last) > MAX_FILE_NAME_BYTES) return refuse("illegal_path", `a file name is longer than ${MAX_FILE_NAME_BYTES} bytes`);
  if (SKILL_FILE_NAMES.includes(last) || last.toLowerCase() === "skill.md") {
    return refuse("illegal_path", normalised.segments.length === 1 ? "SKILL.md is changed only by create, edit and patch" : "a SKILL.md below the skill would make that folder a skill of its own");
  }
  return normalised;
}

export type SkillText = { ok: true; text: string; sha256: string } | WriteRefusal;

/**
 * The whole text of one file of the skill, read under the read confinement, with the sha256 of
 * its bytes (what a stale check compares). A BOM is kept: a patch must write back what it read.
 */
export function readSkillText(skillDir: string, relative: string, sourceRoots: readonly string[] = []): SkillText {
  const read = readConfinedBytesSync(skillDir, relative, sourceRoots);
  if (!read.ok) return read;
  if (read.size > MAX_AUTHORED_FILE_BYTES) return refusal(relative, "too_large", `it is ${read.size} bytes; a file of a skill is changed only up to ${MAX_AUTHORED_FILE_BYTES} bytes`);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(read.bytes);
  } catch {
    return refusal(relative, "not_utf8", "it is not valid UTF-8 text");
  }
  return { ok: true, text, sha256: sha256Of(read.bytes) };
}

/** The sha256 of a SKILL.md's bytes as a read of it sees them; null when it cannot be read. */
export function skillFileDigest(skillDir: string, relative: string): string | null {
  const read = readConfinedBytesSync(skillDir, relative);
  return read.ok ? sha256Of(read.bytes) : null;
}

export function sha256Of(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * Writes `text` to `relative` inside `skillDir`: a temporary sibling is written, fsynced and
 * renamed over the target, so a reader sees the old file or the new one, never part of either.
 * Missing folders on the way are created; a link or a non-folder on the way, a link or a special
 * file at the target, are refused. An existing file keeps its mode (a script stays executable).
 */
export function writeSkillFile(skillDir: string, relative: string, text: string, sourceRoots: readonly string[] = []): WriteOutcome {
  const checked = withinPackageLimits(skillDir, writablePath(relative), text);
  return writeInto(skillDir, relative, text, placeFor(skillDir, checked, { createFolders: true, sourceRoots }));
}

/**
 * The path, unless writing `text` there would take the package past its limits (package-files.ts):
 * checked before a folder on the way is created, so a refused write leaves nothing behind.
 */
function withinPackageLimits(skillDir: string, checked: WritablePath, text: string): WritablePath {
  if (!checked.ok) return checked;
  const problem = packageWriteProblem(skillDir, checked.path, Buffer.byteLength(text, "utf8"));
  return problem === null ? checked : refusal(checked.path, "too_large", problem);
}

/**
 * Replaces the skill's own SKILL.md (or the lowercase `skill.md` it keeps) the same way. Only for
 * create, edit and patch, which have validated `text` first.
 */
export function writeSkillMdFile(skillDir: string, skillFileName: string, text: string): WriteOutcome {
  const checked: WritablePath = SKILL_FILE_NAMES.includes(skillFileName)
    ? { ok: true, path: skillFileName, segments: [skillFileName] }
    : refusal(skillFileName, "illegal_path", "it is not a skill's SKILL.md");
  return writeInto(skillDir, skillFileName, text, placeFor(skillDir, withinPackageLimits(skillDir, checked, text), { createFolders: false, sourceRoots: [] }));
}

function writeInto(skillDir: string, relative: string, text: string, place: Place): WriteOutcome {
  if (!place.ok) return place;
  const { parent, target, existing } = place;
  try {
    replaceFileIn(parent, target, Buffer.from(text, "utf8"), existing ? existing.mode & 0o7777 : 0o644);
  } catch (error) {
    return refusal(relative, "io", describe(error));
  } finally {
    place.release();
  }
  return { ok: true };
}

/** Removes one regular file of the skill (never a link, a folder or a special file). */
export function removeSkillFile(skillDir: string, relative: string, sourceRoots: readonly string[] = []): WriteOutcome {
  const place = placeFor(skillDir, writablePath(relative), { createFolders: false, sourceRoots });
  if (!place.ok) return place;
  try {
    if (!place.existing) return refusal(relative, "not_found", "no such file in this skill");
    fs.unlinkSync(place.target);
    fsyncDirectory(place.parent);
  } catch (error) {
    return refusal(relative, fileErrorReason(error), describe(error));
  } finally {
    place.release();
  }
  return { ok: true };
}

/**
 * A new skill folder `name` in `parentDir`, holding only SKILL.md: built whole under a hidden
 * temporary name (discovery skips dot-entries) and renamed into place, so the skill appears at
 * once or not at all. An existing entry of that name is never replaced.
 */
export function createSkillFolder(parentDir: string, name: string, skillFileText: string): WriteOutcome {
  if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes(path.sep) || name.includes("\0") || isLeftOutOfPackage(name)) {
    return refusal(name, "illegal_path", "a skill name is one folder name");
  }
  const target = path.join(parentDir, name);
  if (fs.lstatSync(target, { throwIfNoEntry: false }) !== undefined) return refusal(name, "io", "a folder or file of that name is already there");
  const temporary = path.join(parentDir, `.${name}.${process.pid}-${randomBytes(6).toString("hex")}.new`);
  try {
    fs.mkdirSync(parentDir, { recursive: true, mode: 0o755 });
    fs.mkdirSync(temporary, { mode: 0o755 });
    writeNewFileSync(path.join(temporary, "SKILL.md"), Buffer.from(skillFileText, "utf8"), 0o644);
    fsyncDirectory(temporary);
    // The check above is repeated by the rename itself for a non-empty folder made meanwhile.
    if (fs.lstatSync(target, { throwIfNoEntry: false }) !== undefined) throw Object.assign(new Error("exists"), { code: "EEXIST" });
    fs.renameSync(temporary, target);
    fsyncDirectory(parentDir);
  } catch (error) {
    fs.rmSync(temporary, { recursive: true, force: true });
    const code = errorCode(error);
    if (code === "EEXIST" || code === "ENOTEMPTY") return refusal(name, "io", "a folder or file of that name is already there");
    return refusal(name, fileErrorReason(error), describe(error));
  }
  return { ok: true };
}

/**
 * Removes a whole skill folder: renamed to a hidden sibling first (one step, so the skill is gone
 * for every reader at once), then deleted. A link is never followed or removed.
 */
export function deleteSkillFolder(skillDir: string): WriteOutcome {
  const name = path.basename(skillDir);
  const registered = registeredSkillDir(skillDir);
  if (!registered.ok) return refusal(name, registered.reason, registered.why);
  const stat = fs.lstatSync(skillDir, { throwIfNoEntry: false });
  if (stat === undefined) return refusal(name, "not_found", "the skill folder is gone");
  if (!stat.isDirectory()) return refusal(name, "illegal_path", "the skill folder is a link or not a folder");
  const parent = path.dirname(skillDir);
  const doomed = path.join(parent, `.${name}.${process.pid}-${randomBytes(6).toString("hex")}.deleted`);
  try {
    fs.renameSync(skillDir, doomed);
    fsyncDirectory(parent);
  } catch (error) {
    return refusal(name, fileErrorReason(error), describe(error));
  }
  // Gone for every reader already; what is left is hidden and only costs space if this fails.
  fs.rmSync(doomed, { recursive: true, force: true });
  return { ok: true };
}

export type LockedResult<T> = { ok: true; value: T } | { ok: false; holder: string };

/** A lock older than this was left by a writer that died on another machine sharing the folder. */
const STALE_LOCK_MS = 30_000;

/**
 * Runs `work` holding the write lock of the skill at `skillDir` (a hidden file beside the folder;
 * taken, broken and released by lock-file.ts). Another writer holding it answers `{ ok: false }`
 * at once rather than waiting: the skill is changing under the caller, which is what a stale
 * check reports. A lock left by a writer that died (its process gone, or the lock older than
 * 30 s) is broken; anything else planted there (a folder) stays, and the skill answers as held.
 */
export function withSkillWriteLock<T>(skillDir: string, work: () => T): LockedResult<T> {
  const lockFile = path.join(path.dirname(skillDir), `.${path.basename(skillDir)}.skillport-lock`);
  const tempBase = path.basename(skillDir);
  let held = placeLock(lockFile, tempBase);
  if (held === null) {
    const observed = observeLock(lockFile);
    if (observed !== null && lockIsAbandoned(observed) && breakLock(lockFile, observed)) held = placeLock(lockFile, tempBase);
  }
  if (held === null) return { ok: false, holder: lockHolder(lockFile) };
  try {
    removeLeftovers(skillDir);
    return { ok: true, value: work() };
  } finally {
    releaseLock(held);
  }
}

/** A hidden temporary made by `createSkillFolder`, `deleteSkillFolder` or `replaceFileIn` (safe-file-write.ts): its writer's pid is in its name. */
const LEFTOVER = /^\..+\.(\d+)-[0-9a-f]{12}\.(?:new|deleted|tmp)$/;
const LEFTOVER_DEPTH = 5;

/**
 * What a writer that was killed left of this skill: hidden temporaries named with a process id
 * that no longer runs on this host. Readers never saw them (discovery and listings skip
 * dot-entries); this only gives the space back. Run under the lock, so no live writer of this
 * skill in any process is using one; a temporary of a live process is never touched.
 */
function removeLeftovers(skillDir: string): void {
  const name = path.basename(skillDir);
  const sweep = (dir: string, depth: number, only: ((entry: string) => boolean) | null): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const match = LEFTOVER.exec(entry.name);
      if (match && (only === null || only(entry.name)) && !processRuns(Number(match[1]))) {
        fs.rmSync(path.join(dir, entry.name), { recursive: true, force: true });
      } else if (only === null && depth < LEFTOVER_DEPTH && entry.isDirectory() && !entry.name.startsWith(".")) {
        sweep(path.join(dir, entry.name), depth + 1, null);
      }
    }
  };
  sweep(path.dirname(skillDir), 0, (entry) => entry.startsWith(`.${name}.`));
  sweep(skillDir, 0, null);
}

function lockIsAbandoned(observed: ObservedLock): boolean {
  // Not in the shape a lock is written in: only its age can tell.
  if (!observed.wellFormed) return Date.now() - observed.mtimeMs > STALE_LOCK_MS;
  if (Date.now() - observed.since > STALE_LOCK_MS) return true;
  return observed.host === os.hostname() && !processRuns(observed.pid);
}

function lockHolder(lockFile: string): string {
  const observed = observeLock(lockFile);
  return observed?.wellFormed ? `process ${observed.pid}` : "another writer";
}

type Place = { ok: true; parent: string; target: string; existing: fs.Stats | null; release(): void } | WriteRefusal;

/** Whether this system names an open directory at `/proc/self/fd/N` (Linux), so a path can start from a descriptor. */
const DESCRIPTOR_PATHS = process.platform === "linux" && fs.existsSync("/proc/self/fd");

/**
 * Where `relative` lies in the skill, checked component by component without following links:
 * every folder on the way is a real folder inside the skill's real directory, and the target, if
 * it exists, is a regular file.
 *
 * On Linux each folder is opened (`O_NOFOLLOW`) and the next step named from that descriptor
 * (`/proc/self/fd/N/name`), and the write, rename or unlink goes through the last one: a folder
 * swapped for a link out of the skill between the check and the write (a local attacker racing
 * the writer) is refused when opened, or not on the way at all, since the descriptor holds the
 * folder that was checked. Measured before: 1 write in 20,000 landed outside under such a race.
 * Elsewhere the paths are checked one `lstat` at a time, which leaves that window open.
 */
function placeFor(skillDir: string, checked: WritablePath, { createFolders, sourceRoots }: { createFolders: boolean; sourceRoots: readonly string[] }): Place {
  if (!checked.ok) return checked;
  const shown = checked.path;
  const refuse = (reason: WriteErrorReason, why: string): WriteRefusal => refusal(shown, reason, why);
  const resolved = registeredSkillDir(skillDir);
  if (!resolved.ok) return refuse(resolved.reason, resolved.why);
  const realDir = resolved.realDir;
  // A nested skill's folder, or another source's root inside this skill, is another package: the
  // read rule (`liesInOtherPackage`), checked before a folder on the way is created.
  if (liesInOtherPackage(realDir, checked.segments, sourceRootsInside(realDir, sourceRoots))) return refuse("illegal_path", "it lies in another skill's folder");
  let fd: number | null = null;
  const release = (): void => {
    if (fd !== null) fs.closeSync(fd);
    fd = null;
  };
  const openFolder = (folder: string): void => {
    const next = fs.openSync(folder, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    release();
    fd = next;
  };
  const here = (fallback: string): string => (fd === null ? fallback : `/proc/self/fd/${fd}`);
  let parent = realDir;
  try {
    if (DESCRIPTOR_PATHS) openFolder(realDir);
    for (const segment of checked.segments.slice(0, -1)) {
      const next = path.join(here(parent), segment);
      const stat = fs.lstatSync(next, { throwIfNoEntry: false });
      if (stat === undefined) {
        if (!createFolders) return failed(refuse("not_found", "no such file in this skill"));
        fs.mkdirSync(next, { mode: 0o755 });
      } else if (stat.isSymbolicLink()) return failed(refuse("illegal_path", "a folder on the way is a link, and links are not written through"));
      else if (!stat.isDirectory()) return failed(refuse("not_a_file", `${JSON.stringify(segment)} on the way is not a folder`));
      // Swapped for a link since the lstat: O_NOFOLLOW refuses it (ELOOP, or ENOTDIR).
      if (DESCRIPTOR_PATHS) openFolder(next);
      parent = path.join(parent, segment);
    }
  } catch (error) {
    const code = errorCode(error);
    return failed(code === "ELOOP" || code === "ENOTDIR" ? refuse("illegal_path", "a folder on the way is a link, and links are not written through") : refuse(fileErrorReason(error), describe(error)));
  }
  const name = checked.segments[checked.segments.length - 1]!;
  if (!isInside(realDir, path.join(parent, name))) return failed(refuse("illegal_path", "it resolves outside the skill directory"));
  const target = path.join(here(parent), name);
  let existing: fs.Stats | undefined;
  try {
    existing = fs.lstatSync(target, { throwIfNoEntry: false });
  } catch (error) {
    return failed(refuse(fileErrorReason(error), describe(error)));
  }
  if (existing?.isSymbolicLink()) return failed(refuse("illegal_path", "it is a link, and links are not written through or removed"));
  if (existing !== undefined && !existing.isFile()) return failed(refuse("not_a_file", "it is not a regular file"));
  return { ok: true, parent: here(parent), target, existing: existing ?? null, release };

  function failed(refused: WriteRefusal): WriteRefusal {
    release();
    return refused;
  }
}

type SyncBytes = { ok: true; bytes: Buffer; size: number } | WriteRefusal;

function readConfinedBytesSync(skillDir: string, relative: string, sourceRoots: readonly string[] = []): SyncBytes {
  const read = readConfinedBytesUnderLimit(skillDir, relative, { maxBytes: MAX_AUTHORED_FILE_BYTES + 1, sourceRoots });
  return read.ok ? { ok: true, bytes: read.bytes, size: read.size } : read;
}

function refusal(relative: string, reason: WriteErrorReason, why: string): WriteRefusal {
  return { ok: false, reason, message: `Cannot write ${JSON.stringify(relative)}: ${why}.` };
}

/** The error's code only: Node's messages embed absolute paths, which must not reach a result. */
function describe(error: unknown): string {
  const code = errorCode(error);
  return code ? `the file system reported ${code}` : "the file could not be written";
}
