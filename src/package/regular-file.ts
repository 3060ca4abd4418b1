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
