/**
 * Which files of an installed skill differ from what was installed (SPEC §10, `verify` and
 * `doctor`): the lockfile keeps each file's digest beside the package digest, so a skill that no
 * longer matches is reported with the files added, removed and changed, not just "modified".
 */
import * as fs from "node:fs";
import { fileDigest, packageDigest, type DigestedFile } from "../package/package-digest.js";
import { readPackageFiles } from "../package/package-files.js";

export interface FileChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

/** Each file of the package at `dir` with its digest, and the package digest; null with the reasons when it is not a package. */
export function packageFileDigests(dir: string): { digest: string; files: DigestedFile[] } | { digest: null; problems: string[] } {
  const pkg = readPackageFiles(dir);
  if (pkg.problems.length > 0) return { digest: null, problems: pkg.problems };
  const files: DigestedFile[] = [];
  for (const file of pkg.files) {
    try {
      files.push({ path: file.path, digest: fileDigest(fs.readFileSync(file.source)) });
    } catch (error) {
      return { digest: null, problems: [`${file.path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`] };
    }
  }
  return { digest: packageDigest(files), files };
}

/** `path → digest` as the lockfile records it, sorted by path. */
export function fileDigestRecord(files: readonly DigestedFile[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) record[file.path] = file.digest;
  return record;
}

/** What differs between the files recorded and the files there now. */
export function fileChanges(recorded: Readonly<Record<string, string>>, now: readonly DigestedFile[]): FileChanges {
  const present = new Map(now.map((file) => [file.path, file.digest]));
  const changes: FileChanges = { added: [], removed: [], changed: [] };
  for (const [file, digest] of present) {
    if (!Object.hasOwn(recorded, file)) changes.added.push(file);
    else if (recorded[file] !== digest) changes.changed.push(file);
  }
  for (const file of Object.keys(recorded)) if (!present.has(file)) changes.removed.push(file);
  for (const list of [changes.added, changes.removed, changes.changed]) list.sort();
  return changes;
}

/** One line naming the changes ("changed SKILL.md; added notes.md"), or null when there are none. */
export function fileChangesText(changes: FileChanges): string | null {
  const parts = [
    changes.changed.length > 0 ? `changed ${changes.changed.join(", ")}` : null,
    changes.added.length > 0 ? `added ${changes.added.join(", ")}` : null,
    changes.removed.length > 0 ? `removed ${changes.removed.join(", ")}` : null,
  ].filter((part): part is string => part !== null);
  return parts.length > 0 ? parts.join("; ") : null;
}
