import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Read once a process: every parse-cache file read and written, and the CLI's start, ask for it. */
let version: string | undefined;

/**
 * The package version, read from package.json. The file sits two levels up from `src/package`,
 * three from `dist/src/package` and two from the bundled `dist/cli`, so walk up instead of
 * hard-coding any layout.
 */
export function packageVersion(): string {
  version ??= readPackageVersion();
  return version;
}

function readPackageVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = path.join(dir, "package.json");
    try {
      const pkg = JSON.parse(fs.readFileSync(candidate, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "skillport" && pkg.version) return pkg.version;
    } catch {
      // not here; keep walking up
    }
    dir = path.dirname(dir);
  }
  return "0.0.0";
}
