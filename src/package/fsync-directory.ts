/**
 * Making a rename durable: one rule for every writer that places a file or a folder by renaming
 * (skill_manage's writes, installs).
 */
import fs, { constants } from "node:fs";

/** A rename is durable once its folder is synced; some file systems refuse to sync a folder, which costs only durability. */
export function fsyncDirectory(dir: string): void {
  let fd: number;
  try {
    fd = fs.openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch {
    return;
  }
  try {
    fs.fsyncSync(fd);
  } catch {
    // EINVAL on file systems that cannot sync a directory.
  } finally {
    fs.closeSync(fd);
  }
}
