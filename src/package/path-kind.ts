/**
 * "Is this path a file / a directory?" asked without throwing: a path that vanished or cannot
 * be stat'ed is neither, which is the answer every caller (discovery, watching, the CLI) wants.
 * Symlinks are followed, as everywhere else skills are read.
 */
import * as fs from "node:fs";

// `throwIfNoEntry: false`: a missing path is the common "no" and answers without building an
// error; other failures (permissions, loops) still throw and are caught.
export function isFile(p: string): boolean {
  try {
    return fs.statSync(p, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

export function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}
