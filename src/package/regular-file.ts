/**
 * Opening files that must be regular files (a config file, a session log). A FIFO planted at
 * such a path would block a read forever, or a write once its pipe buffer filled, freezing every
 * session in the process. So the file is opened without blocking and refused, with code
 * `ENOTREG`, unless `fstat` says it is a regular file.
 */
import * as fs from "node:fs";

export class NotRegularFileError extends Error {
  /** `EISDIR` for a directory, as a plain read would say; `ENOTREG` for anything else. */
  readonly code: "EISDIR" | "ENOTREG";

  constructor(file: string, isDirectory: boolean) {
    super(`${file} is ${isDirectory ? "a directory" : "not a regular file"}`);
    this.name = "NotRegularFileError";
    this.code = isDirectory ? "EISDIR" : "ENOTREG";
  }
}

/** `fs.openSync` that never blocks on a FIFO and hands back only a regular file's descriptor. */
export function openRegularFileSync(file: string, flags: number, mode?: fs.Mode): number {
  const fd = fs.openSync(file, flags | fs.constants.O_NONBLOCK, mode);
  let stat: fs.Stats | null = null;
  try {
    stat = fs.fstatSync(fd);
  } finally {
    if (!stat?.isFile()) fs.closeSync(fd);
  }
  if (!stat.isFile()) throw new NotRegularFileError(file, stat.isDirectory());
  return fd;
}

/** The whole file as UTF-8; throws for a missing, unreadable or non-regular file. */
export function readRegularFileSync(file: string): string {
  const fd = openRegularFileSync(file, fs.constants.O_RDONLY);
  try {
    return fs.readFileSync(fd, "utf8");
  } finally {
    fs.closeSync(fd);
  }
}

/** A file as it was checked: the device and inode `lstat` (or `stat`, through a link) saw, and its size. */
export interface CheckedFile {
  dev: number;
  ino: number;
  size: number;
}

/** The file at a path is no longer the one that was checked (swapped, replaced or grown since). */
export class ChangedFileError extends Error {
  readonly code = "ECHANGED";

  constructor(file: string) {
    super(`${file} changed while it was being read (it is no longer the file that was checked)`);
    this.name = "ChangedFileError";
  }
}

/**
 * The whole of the regular file at `file`, only if it is still the file `checked` describes:
 * opened without following a final link (`O_NOFOLLOW`) or blocking on a FIFO, then `fstat`ed
 * for the same device, inode and size. A copy that checks a path and then opens it again reads
 * whatever stands there at the open: a link to a secret swapped in between, or a FIFO that
 * never answers. Checking the descriptor leaves no such window.
 */
export function readCheckedFileSync(file: string, checked: CheckedFile): Buffer {
  let fd: number;
  try {
    fd = openRegularFileSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP" || error instanceof NotRegularFileError) throw new ChangedFileError(file);
    throw error;
  }
  try {
    const info = fs.fstatSync(fd);
    if (info.dev !== checked.dev || info.ino !== checked.ino || info.size !== checked.size) throw new ChangedFileError(file);
    // One byte more than checked is asked for: a file that grew since is refused, not cut.
    const buffer = Buffer.allocUnsafe(checked.size + 1);
    let filled = 0;
    for (;;) {
      const read = fs.readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (read === 0) break;
      filled += read;
      if (filled > checked.size) throw new ChangedFileError(file);
    }
    if (filled !== checked.size) throw new ChangedFileError(file);
    return buffer.subarray(0, filled);
  } finally {
    fs.closeSync(fd);
  }
}
