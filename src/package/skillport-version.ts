import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The package version, read from package.json. The file sits two levels up from `src/package` and
 * three from `dist/src/package`, so walk up instead of hard-coding either layout.
 */
export function packageVersion(): string {
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
