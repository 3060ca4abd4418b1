import path from "node:path";

/** Where session logs live unless `--log-dir` says otherwise (the session layer's default, relative to cwd). */
export function defaultLogDir(cwd: string): string {
  return path.join(cwd, ".skillport", "sessions");
}
