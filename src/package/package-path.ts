/**
 * Paths inside a package, between a skill's real directory and the `/`-separated relative paths
 * its listing names files by. `path.join` and `path.relative` normalize every segment in
 * JavaScript: reporting on 3,000 packages in a fresh process called them about 10,000 times and
 * spent more on that, before the JIT warmed up, than on the system calls they named. A real
 * directory is already normalized and a listed path holds only entry names, so plain
 * concatenation gives the same string.
 */
import * as path from "node:path";

/** `path.join(realDir, rel)` for a real (normalized, absolute) directory and a path of entry names separated by `/`. */
export function pathInPackage(realDir: string, rel: string): string {
  const native = path.sep === "/" ? rel : rel.split("/").join(path.sep);
  return realDir.endsWith(path.sep) ? realDir + native : realDir + path.sep + native;
}

/** `path.relative(realDir, file)` with `/` separators, for a file below a real directory; anything else through `path.relative`. */
export function relativeInPackage(realDir: string, file: string): string {
  const prefix = realDir.endsWith(path.sep) ? realDir : realDir + path.sep;
  const rel = file.startsWith(prefix) ? file.slice(prefix.length) : path.relative(realDir, file);
  return path.sep === "/" ? rel : rel.split(path.sep).join("/");
}
