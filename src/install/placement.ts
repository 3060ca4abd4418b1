/**
 * Putting a skill folder in place (SPEC §10): the package is written whole into a temporary
 * sibling of its final folder, flushed, and renamed into place, so a reader (the registry, a
 * watching server, an agent) sees the old skill or the new one, never half of either. A folder
 * being replaced is first renamed aside and removed only once the new one is in place.
 *
 * Temporary siblings are dot-named (`.skillport-…`): discovery, the watcher's rescans and the
 * package rules all leave dot-entries out, so one left behind by a killed process is never taken
 * for a skill. Their names carry the owning process id; a later run removes those whose process
 * is gone.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fsyncDirectory } from "../package/fsync-directory.js";
import { breakLock, observeLock, placeLock, processRuns, releaseLock, type ObservedLock } from "../package/lock-file.js";
import { fileDigest, packageDigest, type DigestedFile } from "../package/package-digest.js";
import type { PackageFiles } from "../package/package-files.js";
import { ChangedFileError, readCheckedFileSync } from "../package/regular-file.js";
import { writeNewFileSync } from "../package/safe-file-write.js";
import { InstallError } from "./install-error.js";

const TEMP_PREFIX = ".skillport-";

/** Called as each file of a package has been written into its temporary folder. */
export type CopyListener = (event: { skill: string; staging: string; file: string }) => void | Promise<void>;

/** Writes `pkg` into a new temporary sibling of `<dir>/<name>`; returns it and the digest of what was written. */
export async function stageSkill(dir: string, name: string, pkg: PackageFiles, onCopy?: CopyListener): Promise<{ staging: string; digest: string }> {
  fs.mkdirSync(dir, { recursive: true });
  const staging = fs.mkdtempSync(path.join(dir, `${TEMP_PREFIX}staging-${process.pid}-`));
  try {
    // mkdtemp makes it private (0700); the skill's folder is as readable as any folder made here.
    const umask = currentUmask();
    fs.chmodSync(staging, 0o777 & ~umask);
    for (const folder of pkg.folders) fs.mkdirSync(path.join(staging, ...folder.split("/")), { recursive: true });
    const digested: DigestedFile[] = [];
    for (const file of pkg.files) {
      let bytes: Buffer;
      try {
        bytes = readCheckedFileSync(file.source, file);
      } catch (error) {
        // Swapped for a link, a FIFO or another file since the package was checked: refused whole.
        if (error instanceof ChangedFileError) throw new InstallError(`${file.path} changed while it was being copied (it is no longer the regular file that was checked); nothing was installed`, "failed");
        throw error;
      }
      writeNewFileSync(path.join(staging, ...file.path.split("/")), bytes, (file.executable ? 0o777 : 0o666) & ~umask);
      digested.push({ path: file.path, digest: fileDigest(bytes) });
      await onCopy?.({ skill: name, staging, file: file.path });
    }
    fsyncDirectory(staging);
    return { staging, digest: packageDigest(digested) };
  } catch (error) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

/** Renames a staged folder to `<dir>/<name>`, replacing what is there (already judged replaceable by the caller). */
export function placeStaged(staging: string, dir: string, name: string): void {
  const final = path.join(dir, name);
  let aside: string | null = null;
  if (exists(final)) {
    aside = uniqueSibling(dir, "replaced");
    fs.renameSync(final, aside);
  }
  try {
    fs.renameSync(staging, final);
  } catch (error) {
    if (aside) fs.renameSync(aside, final);
    fs.rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  fsyncDirectory(dir);
  if (aside) fs.rmSync(aside, { recursive: true, force: true });
}

/** Takes `<dir>/<name>` out in one step (renamed aside, then deleted). */
export function removePlaced(dir: string, name: string): void {
  const final = path.join(dir, name);
  if (!exists(final)) return;
  const aside = uniqueSibling(dir, "removed");
  fs.renameSync(final, aside);
  fsyncDirectory(dir);
  fs.rmSync(aside, { recursive: true, force: true });
}

/** Removes temporary siblings in `dir` left by processes that no longer run. */
export function removeAbandonedTemporaries(dir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const match = /^\.skillport-(?:staging|replaced|removed)-(\d+)-/.exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    if (pid === process.pid || processRuns(pid)) continue;
    fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  }
}

/** Whether `<dir>/<name>` exists at all (a file, a folder, a link, even a broken one). */
export function exists(file: string): boolean {
  try {
    fs.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

function currentUmask(): number {
  const mask = process.umask(0o022);
  process.umask(mask);
  return mask;
}

function uniqueSibling(dir: string, role: string): string {
  return path.join(dir, `${TEMP_PREFIX}${role}-${process.pid}-${Math.random().toString(36).slice(2, 10)}`);
}

/** An install lock that names no live holder and is this old was left by a run that died mid-write (or by an older skillport). */
const STALE_UNREADABLE_LOCK_MS = 30_000;

/**
 * Runs `work` holding the lockfile's lock (`.<lockfile name>.lock` beside it; taken, broken and
 * released by lock-file.ts, with its holder in it from the moment it appears): two installs into
 * one folder at once would each rewrite the lockfile from what they read, and one's entries would
 * be lost. A lock whose process is gone is broken atomically (only one of several runs that find
 * it can), and one held by a live process refuses at once rather than waiting. On the way out the
 * lock is removed only while it is still this run's own.
 */
export async function withInstallLock<T>(lockfile: string, work: () => Promise<T>): Promise<T> {
  const dir = path.dirname(lockfile);
  fs.mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, `.${path.basename(lockfile)}.lock`);
  const tempBase = path.basename(lock);
  let held = placeLock(lock, tempBase);
  if (held === null) {
    const observed = observeLock(lock);
    if (observed !== null && installLockAbandoned(observed) && breakLock(lock, observed)) held = placeLock(lock, tempBase);
  }
  if (held === null) throw lockBusy(lock);
  const mine = held;
  // A run ended by a signal leaves through `exit` (see the CLI), where no `finally` runs.
  const release = (): void => releaseLock(mine);
  process.once("exit", release);
  try {
    return await work();
  } finally {
    process.removeListener("exit", release);
    release();
  }
}

function installLockAbandoned(observed: ObservedLock): boolean {
  // An install may run for minutes (a fetch): a live holder's lock never goes stale by age.
  if (!observed.wellFormed) return Date.now() - observed.mtimeMs > STALE_UNREADABLE_LOCK_MS;
  if (observed.host !== os.hostname()) return false;
  return observed.pid !== process.pid && !processRuns(observed.pid);
}

function lockBusy(lock: string): Error {
  const observed = observeLock(lock);
  const owner = observed?.wellFormed ? ` (process ${observed.pid}${observed.host === os.hostname() ? "" : ` on ${observed.host}`})` : "";
  return new InstallError(`another skillport run${owner} is changing these skills (${lock} exists); try again when it ends`, "failed");
}
