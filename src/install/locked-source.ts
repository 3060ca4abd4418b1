/**
 * A source read back from a lockfile (SPEC §10), before `update` or `add --frozen` fetches it. A
 * committed lockfile is the repository's text, not the user's: a local source in it must resolve
 * inside the project (or a clone's lockfile could copy `~/.claude/skills/deploy`, secrets and
 * all, into the repository), and a `file://` repository it names is said before it is fetched,
 * since the `source` shown beside it can say anything. The user's own lockfiles (`--global`) may
 * name any folder, as their sources may.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { isInside } from "../package/confined-read.js";
import { InstallError } from "./install-error.js";
import type { LockedSkill } from "./lockfile.js";
import type { SourceSpec } from "./source-spec.js";
import type { InstallTarget } from "./targets.js";

export function lockedSourceSpec(entry: LockedSkill, target: InstallTarget, names: readonly string[], onProgress?: (line: string) => void): SourceSpec {
  const lockName = path.basename(target.lockfile);
  if (entry.sourceType === "local") {
    if (target.within !== undefined) {
      const root = realOrResolved(target.within);
      const dir = realOrResolved(entry.url);
      if (dir !== root && !isInside(root, dir)) {
        throw new InstallError(
          `${lockName} names the local folder ${entry.source} (${entry.url}), outside the project; a project's lockfile may only name local folders inside it (skillport add ${entry.url} installs it if you mean it)`,
          "usage",
        );
      }
    }
    return { kind: "local", given: entry.source, dir: entry.url };
  }
  if (entry.sourceType === "well-known") return { kind: "well-known", given: entry.source, url: entry.url, gitFallback: false };
  if (/^file:/i.test(entry.url)) onProgress?.(`${lockName} names the local repository ${entry.url} for ${names.join(", ")}; fetching it`);
  return { kind: "git", given: entry.source, url: entry.url, ref: entry.ref, path: "" };
}

function realOrResolved(file: string): string {
  try {
    return fs.realpathSync.native(file);
  } catch {
    return path.resolve(file);
  }
}
