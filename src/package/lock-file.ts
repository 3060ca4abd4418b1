/**
 * Lock files shared by processes on one folder (the per-skill write lock of `skill_manage`, the
 * install lock beside `skills-lock.json`): the one place a lock is taken, broken and released.
 *
 * - Taken with its holder already in it: the holder is written to a hidden temporary, and the
 *   lock appears by `link`, which fails if the name is taken. A lock is never seen empty.
 * - Broken atomically: a lock judged abandoned is renamed aside (one step, which only one of
 *   several breakers can win) and the renamed file is checked to be the very file judged (same
 *   inode): if a live writer's fresh lock was renamed instead, it is put back.
 * - Released only while it is still the holder's own: renamed aside, checked by inode, put back
 *   if it is someone else's (a lock broken meanwhile and taken by another run).
 *
 * What makes a lock abandoned is the caller's rule (its process gone, its age); the fields
 * `lockFields` reads are the ones `lockContent` writes.
 */
import { randomBytes } from "node:crypto";
import fs, { constants } from "node:fs";
import os from "node:os";
import path from "node:path";
import { errorCode } from "./file-error.js";

/** A lock this process holds: the file, the inode it was created as and its text (an inode number can be reused). */
export interface HeldLock {
  file: string;
  ino: number;
  text: string;
}

/** A lock as read by someone deciding whether to break it. */
export interface ObservedLock {
  pid: number;
  host: string;
  since: number;
  /** The inode and text read: only this file may be broken. */
  ino: number;
  text: string;
  /** Whether it held the fields a lock is written with (an older writer's, or a planted file, may not). */
  wellFormed: boolean;
  /** Its modification time, for a lock that says nothing of its age. */
  mtimeMs: number;
}

/** The text a lock holds: pid, host, since (ms), and a random token so no two locks are the same text. */
export function lockContent(): string {
  return `${process.pid} ${os.hostname()} ${Date.now()} ${randomBytes(6).toString("hex")}\n`;
}

/**
 * Creates `file` holding `lockContent()`, or answers null when it exists. `tempBase` names the
 * hidden temporary (`.<tempBase>.<pid>-<hex>.tmp`, the shape leftover sweeps know).
 */
export function placeLock(file: string, tempBase: string): HeldLock | null {
  const dir = path.dirname(file);
  const content = lockContent();
  const temp = path.join(dir, `.${tempBase}.${process.pid}-${randomBytes(6).toString("hex")}.tmp`);
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  let fd: number;
  try {
    fd = fs.openSync(temp, flags, 0o600);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
    fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
    fd = fs.openSync(temp, flags, 0o600);
  }
  let ino: number;
  try {
    // Not fsynced: after a crash the lock is abandoned anyway, and a lock is taken on every write.
    fs.writeSync(fd, content);
    ino = fs.fstatSync(fd).ino;
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.linkSync(temp, file);
    return { file, ino, text: content };
  } catch (error) {
    const code = errorCode(error);
    if (code === "EEXIST") return null;
    // A file system without hard links: the lock is created exclusively and filled after, and a
    // writer killed between the two leaves an empty lock that only age breaks.
    if (code === "EPERM" || code === "ENOTSUP" || code === "EOPNOTSUPP") return placeLockWithoutLink(file, content);
    throw error;
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

function placeLockWithoutLink(file: string, content: string): HeldLock | null {
  let fd: number;
  try {
    fd = fs.openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    if (errorCode(error) === "EEXIST") return null;
    throw error;
  }
  try {
    fs.writeSync(fd, content);
    return { file, ino: fs.fstatSync(fd).ino, text: content };
  } finally {
    fs.closeSync(fd);
  }
}

/** The lock at `file` as it is now; null when there is none, or it is not a regular file (never ours to break). */
export function observeLock(file: string): ObservedLock | null {
  let fd: number;
  try {
    fd = fs.openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return null;
    const text = stat.size > 4096 ? "" : fs.readFileSync(fd, "utf8");
    const [pid, host, since] = text.trim().split(" ");
    const fields = { pid: Number(pid), host: host ?? "", since: Number(since) };
    const wellFormed = Number.isSafeInteger(fields.pid) && fields.pid > 0 && fields.host !== "" && Number.isFinite(fields.since);
    return { ...fields, ino: stat.ino, text, wellFormed, mtimeMs: stat.mtimeMs };
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** Whether process `pid` runs on this host (EPERM: it runs, as someone else). */
export function processRuns(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) !== "ESRCH";
  }
}

/**
 * Removes the lock `observed` was read from, if it is still that file: true when it is gone
 * (broken here, or by someone else meanwhile), false when another lock stands there now.
 */
export function breakLock(file: string, observed: ObservedLock): boolean {
  return takeAside(file, observed) !== "other";
}

/** Removes the lock `held`, unless it is no longer this process's own (broken and taken by another run meanwhile). */
export function releaseLock(held: HeldLock): void {
  takeAside(held.file, held);
}

/**
 * Renames `file` aside and deletes it if it is the lock `expected` (same inode and text: a lock
 * removed and another created can get the freed inode number); another file found there is put
 * back (by `link`, which never replaces a lock taken in between) and reported as `other`.
 */
function takeAside(file: string, expected: { ino: number; text: string }): "removed" | "gone" | "other" {
  const aside = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}-${randomBytes(6).toString("hex")}.broken`);
  try {
    fs.renameSync(file, aside);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return "gone";
    throw error;
  }
  const stat = fs.lstatSync(aside, { throwIfNoEntry: false });
  if (stat !== undefined && stat.isFile() && stat.ino === expected.ino && textOf(aside) === expected.text) {
    fs.rmSync(aside, { force: true });
    return "removed";
  }
  if (stat?.isDirectory()) {
    // Planted, never a lock of ours: back where it was, untouched.
    try {
      fs.renameSync(aside, file);
    } catch {
      // A lock was taken there meanwhile; the folder stays aside, hidden, and is never deleted.
    }
    return "other";
  }
  try {
    fs.linkSync(aside, file);
  } catch {
    // A third run took the name meanwhile: its lock stands; the one moved aside is lost to its
    // holder, which then finds its lock gone at release and removes nothing.
  }
  fs.rmSync(aside, { force: true });
  return "other";
}

function textOf(file: string): string | null {
  try {
    const fd = fs.openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      return fs.fstatSync(fd).size > 4096 ? null : fs.readFileSync(fd, "utf8");
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
}
