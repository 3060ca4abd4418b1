/**
 * `binary:` requirements (SPEC §3.3): a `PATH` lookup done with `stat` and `access`, never by
 * running a shell, so checking a requirement has no side effect. POSIX semantics: an executable
 * regular file in one of the `PATH` directories, or at the absolute path given.
 */
import * as fs from "node:fs";
import * as path from "node:path";

export function findBinary(name: string, pathVariable: string | undefined): string | null {
  if (name.includes("/")) return path.isAbsolute(name) && isExecutableFile(name) ? name : null;
  for (const dir of (pathVariable ?? "").split(path.delimiter)) {
    // An empty entry means "the current directory" to a shell, and a relative one is relative to
    // it; a requirement check should not depend on where the process happens to run.
    if (dir === "" || !path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
