/**
 * Writing a whole file where someone else may have planted links: the one rule every writer of
 * the command line shares (`sync`'s AGENTS.md, the install lockfile, staged skill files, the
 * files `skill_manage` writes).
 *
 * - A new file is created exclusively (`O_CREAT|O_EXCL|O_NOFOLLOW`): a link or a file already at
 *   that name fails the open instead of being written through, so a link committed under the name
 *   of a temporary (`.AGENTS.md.<pid>.tmp -> ~/.bashrc`) never receives a byte.
 * - A temporary is named at random (`.<name>.<pid>-<12 hex>.tmp`), so no one can plant it ahead.
 * - A file is replaced by renaming that temporary over it, after an fsync, so a reader sees the
 *   old file or the new one, whole.
 * - The place written must lie inside an allowed root, judged on real paths: a target that is a
 *   link (or a folder on its way that is one) leading out of the root is refused, never followed.
 */
import { randomBytes } from "node:crypto";
import fs, { constants } from "node:fs";
import path from "node:path";
import { isInside } from "./confined-read.js";
import { errorCode } from "./file-error.js";
import { fsyncDirectory } from "./fsync-directory.js";

/** A write refused because of where it would land; the message names the path as the caller gave it. */
export class UnsafeWriteError extends Error {
  readonly code = "EUNSAFEWRITE";

  constructor(message: string) {
    super(message);
    this.name = "UnsafeWriteError";
  }
}

/** A file that did not exist, written whole, given exactly `mode` (whatever the umask), and fsynced before it is closed. */
export function writeNewFileSync(file: string, bytes: Uint8Array, mode: number): void {
  const fd = fs.openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    let written = 0;
    while (written < bytes.length) written += fs.writeSync(fd, bytes, written, bytes.length - written);
    fs.fchmodSync(fd, mode);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The hidden temporary a replacement of `target` is written under, in `dir`. */
export function temporaryNameFor(dir: string, target: string): string {
  return path.join(dir, `.${path.basename(target)}.${process.pid}-${randomBytes(6).toString("hex")}.tmp`);
}

/**
 * Replaces (or creates) the file `target` in the folder `dir` (which the caller has checked or
 * holds open) by a temporary written exclusively beside it and renamed over it. The temporary is
 * removed on failure only once this call created it: a name found taken is never touched.
 */
export function replaceFileIn(dir: string, target: string, bytes: Uint8Array, mode: number): void {
  const temporary = temporaryNameFor(dir, target);
  writeNewFileSync(temporary, bytes, mode);
  try {
    fs.renameSync(temporary, target);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
  fsyncDirectory(dir);
}

export interface SafeWriteOptions {
  /** The folder the file's real path must stay inside (or be directly in). */
  root: string;
  /** The mode of a new file; an existing file keeps its own. Default 0644. */
  mode?: number;
}

/**
 * Writes `content` as the whole of `file`, atomically, refusing (`UnsafeWriteError`) when the
 * real place it would land leaves `root`, or `file` is anything but a regular file or a link to
 * one inside `root`. A link that stays inside is followed: the file it names is replaced and the
 * link is kept (a project that keeps AGENTS.md as a link to its own CLAUDE.md keeps it so).
 */
export function writeFileWithin(file: string, content: string | Uint8Array, options: SafeWriteOptions): void {
  const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content;
  const place = placeWithin(file, options.root);
  replaceFileIn(path.dirname(place.real), place.real, bytes, place.mode ?? options.mode ?? 0o644);
}

/** Where `file` really lies, checked against `root`, and the mode it has now (undefined when new). */
function placeWithin(file: string, root: string): { real: string; mode: number | undefined } {
  let realRoot: string;
  try {
    realRoot = fs.realpathSync.native(root);
  } catch (error) {
    throw new UnsafeWriteError(`cannot write ${file}: its folder ${root} cannot be resolved (${errorCode(error) ?? "error"})`);
  }
  const within = (real: string): boolean => path.dirname(real) === realRoot || isInside(realRoot, real);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.lstatSync(file, { throwIfNoEntry: false });
  } catch (error) {
    throw new UnsafeWriteError(`cannot write ${file}: ${errorCode(error) ?? "it cannot be examined"}`);
  }
  let real: string;
  if (stat?.isSymbolicLink()) {
    try {
      real = fs.realpathSync.native(file);
    } catch {
      throw new UnsafeWriteError(`refusing to write ${file}: it is a link to nothing (or a loop), and links are not written through`);
    }
    if (!within(real)) throw new UnsafeWriteError(`refusing to write ${file}: it is a link to ${real}, outside ${realRoot}`);
    stat = fs.lstatSync(real);
  } else {
    let realParent: string;
    try {
      realParent = fs.realpathSync.native(path.dirname(file));
    } catch (error) {
      throw new UnsafeWriteError(`cannot write ${file}: its folder cannot be resolved (${errorCode(error) ?? "error"})`);
    }
    real = path.join(realParent, path.basename(file));
    if (!within(real)) throw new UnsafeWriteError(`refusing to write ${file}: a link on its way leads to ${realParent}, outside ${realRoot}`);
  }
  if (stat !== undefined && !stat.isFile()) throw new UnsafeWriteError(`refusing to write ${file}: it is not a regular file`);
  return { real, mode: stat === undefined ? undefined : stat.mode & 0o7777 };
}
