/**
 * Every file a skill package ships, with what would make it unfit to install (SPEC §10): the
 * files an installer copies and a lockfile digests, found by the package's own rules
 * (package-shape.ts: dot-entries and `node_modules` left out, a nested skill's folder left to
 * that skill) and checked against the package limits. A package is refused whole, never copied
 * in part, when it holds:
 * - a link whose target lies outside the skill's real directory (it would carry whatever its
 *   author pointed it at into the installed copy), or a link to nothing, or a loop;
 * - anything but regular files and directories (a FIFO would hang a reader, a device is not a file);
 * - a name the resource listing cannot show on one line or that holds a backslash (it could
 *   never be listed or read);
 * - more than the listing's bounds (files five directories below the skill, 500 files besides
 *   SKILL.md, 500 directories), more than 16 MiB in all, or a SKILL.md over its 1 MiB limit:
 *   a package the registry could not list whole, or the Skills Extension could not serve.
 * Links that stay inside the skill are followed, and their targets are shipped as plain files
 * and folders. Nothing here reads a file's bytes: the caller reads what it copies or digests,
 * through `readCheckedFileSync` (regular-file.ts), so it reads only the file checked here.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { isInside } from "./confined-read.js";
import { hasUnshowableCharacter } from "./display-text.js";
import { MAX_PACKAGE_BYTES, MAX_SKILL_FILE_BYTES } from "./limits.js";
import { endsPackage, isLeftOutOfPackage, isSkillFileEntry, NOT_UTF8_MARK, SKILL_FILE_NAMES } from "./package-shape.js";
import { MAX_RESOURCE_DEPTH, MAX_RESOURCE_DIRECTORIES, MAX_RESOURCE_ENTRIES } from "./resources.js";

export interface PackageFile {
  /** Relative to the skill directory, `/`-separated. */
  path: string;
  /** The real path to read it from (a link's target when the package reached it through a link). */
  source: string;
  size: number;
  /** Whether any execute bit is set: scripts keep being runnable where the package is copied to. */
  executable: boolean;
  /** The device and inode seen here: a reader of `source` reads it only if it is still this file (`readCheckedFileSync`). */
  dev: number;
  ino: number;
}

export interface PackageFiles {
  /** Every file, SKILL.md included, in walk order (names sorted at each level). */
  files: PackageFile[];
  /** Every folder below the skill directory that holds something shipped, parents first. */
  folders: string[];
  /** Why the package cannot be installed, one sentence each; empty when it can. */
  problems: string[];
  /** Whether the walk stopped at a limit (depth, files, folders, bytes): the lists above are then partial. */
  limitReached: boolean;
}

/** The files of the skill at `dir` and its problems. Never throws for what the package holds; a missing `dir` is a problem too. */
export function readPackageFiles(dir: string): PackageFiles {
  const result: PackageFiles = { files: [], folders: [], problems: [], limitReached: false };
  let root: string;
  try {
    root = fs.realpathSync.native(dir);
  } catch (error) {
    result.problems.push(`cannot read the skill's directory: ${codeOf(error)}`);
    return result;
  }
  let bytes = 0;
  let resourceFiles = 0;
  let folders = 0;
  // Once one limit is passed the walk stops: the package is refused anyway, and a hostile one may be huge.
  let over = false;
  const refuse = (problem: string): void => {
    result.problems.push(problem);
  };

  const walk = (real: string, relative: string, depth: number, chain: readonly string[]): void => {
    let names: string[];
    try {
      names = fs.readdirSync(real).sort();
    } catch (error) {
      refuse(`${relative || "."}: cannot be read (${codeOf(error)})`);
      return;
    }
    for (const name of names) {
      if (over) return;
      if (isLeftOutOfPackage(name)) continue;
      const rel = relative === "" ? name : `${relative}/${name}`;
      if (name.includes("\\") || hasUnshowableCharacter(name)) {
        refuse(`${JSON.stringify(rel)}: its name holds a backslash, a line break or a hidden character, so it could never be listed or read`);
        continue;
      }
      const entry = path.join(real, name);
      let stat: fs.Stats;
      let target = entry;
      let named = false;
      try {
        stat = fs.lstatSync(entry);
        named = true;
        if (stat.isSymbolicLink()) {
          target = fs.realpathSync.native(entry);
          if (target !== root && !isInside(root, target)) {
            refuse(`${rel}: a link leading outside the skill`);
            continue;
          }
          stat = fs.statSync(target);
        }
      } catch (error) {
        const code = codeOf(error);
        // The entry's own lstat found nothing by its listed name: not UTF-8 on disk (NOT_UTF8_MARK).
        const unnamed = !named && code === "ENOENT" && name.includes(NOT_UTF8_MARK);
        refuse(
          unnamed
            ? `${JSON.stringify(rel)}: its name is not valid UTF-8, so it could never be listed or read`
            : code === "ENOENT"
              ? `${rel}: a link to nothing`
              : code === "ELOOP"
                ? `${rel}: a link loop`
                : `${rel}: cannot be read (${code})`,
        );
        continue;
      }
      if (stat.isDirectory()) {
        if (chain.some((ancestor) => ancestor === target || isInside(target, ancestor))) {
          refuse(`${rel}: a link back to a folder above it (a loop)`);
          continue;
        }
        let children: fs.Dirent[];
        try {
          children = fs.readdirSync(target, { withFileTypes: true });
        } catch (error) {
          refuse(`${rel}: cannot be read (${codeOf(error)})`);
          continue;
        }
        // A nested skill is discovered and installed as itself; its files are not this skill's.
        if (endsPackage(target, rel.split("/", 1)[0]!, [], () => children.some(isSkillFileEntry))) continue;
        if (depth + 1 > MAX_RESOURCE_DEPTH) {
          refuse(`${rel}: deeper than ${MAX_RESOURCE_DEPTH} folders below the skill`);
          over = true;
          return;
        }
        folders += 1;
        if (folders > MAX_RESOURCE_DIRECTORIES) {
          refuse(`the package has more than ${MAX_RESOURCE_DIRECTORIES} folders`);
          over = true;
          return;
        }
        result.folders.push(rel);
        walk(target, rel, depth + 1, [...chain, target]);
      } else if (stat.isFile()) {
        const manifest = relative === "" && SKILL_FILE_NAMES.includes(name);
        if (manifest && stat.size > MAX_SKILL_FILE_BYTES) refuse(`${rel} is ${stat.size} bytes, over the ${MAX_SKILL_FILE_BYTES}-byte limit`);
        if (!manifest) resourceFiles += 1;
        if (resourceFiles > MAX_RESOURCE_ENTRIES) {
          refuse(`the package has more than ${MAX_RESOURCE_ENTRIES} files besides SKILL.md`);
          over = true;
          return;
        }
        bytes += stat.size;
        if (bytes > MAX_PACKAGE_BYTES) {
          refuse(`the package's files add up to more than ${MAX_PACKAGE_BYTES} bytes`);
          over = true;
          return;
        }
        result.files.push({ path: rel, source: target, size: stat.size, executable: (stat.mode & 0o111) !== 0, dev: stat.dev, ino: stat.ino });
      } else {
        refuse(`${rel}: not a regular file (a FIFO, socket or device)`);
      }
    }
  };
  walk(root, "", 0, [root]);
  result.limitReached = over;
  // Folders that end up holding nothing shipped (only dot-entries, say) are still created: harmless, and what the author laid out.
  return result;
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

/**
 * Why writing `size` bytes at `relative` (`/`-separated, already confined) into the skill at
 * `dir` would take the package past the limits `readPackageFiles` refuses it at, or null when it
 * stays inside them. An agent writes one file a call (SPEC §11), so only the whole package can
 * be bounded: without this, 520 calls leave 520 files, 17 leave 17 MiB, and one call leaves a
 * file 2,000 folders deep, a package no install, listing or Skills Extension client takes whole.
 * A write that does not grow the package (same or fewer files, folders and bytes) is always let
 * through, so a package already past a limit (made by hand) can still be trimmed and fixed.
 */
export function packageWriteProblem(dir: string, relative: string, size: number): string | null {
  const segments = relative.split("/");
  const folders = segments.slice(0, -1);
  if (folders.length > MAX_RESOURCE_DEPTH) return `it would lie ${folders.length} folders below the skill; a package goes at most ${MAX_RESOURCE_DEPTH} deep`;
  const now = readPackageFiles(dir);
  const existing = now.files.find((file) => file.path === relative);
  const newFolders = folders.map((_, i) => folders.slice(0, i + 1).join("/")).filter((folder) => !now.folders.includes(folder)).length;
  const resourceFiles = now.files.filter((file) => !(SKILL_FILE_NAMES.includes(file.path))).length;
  const isManifest = SKILL_FILE_NAMES.includes(relative);
  const grows = existing === undefined || size > existing.size || newFolders > 0;
  if (!grows) return null;
  if (existing === undefined && !isManifest && resourceFiles + 1 > MAX_RESOURCE_ENTRIES) return `the package would hold more than ${MAX_RESOURCE_ENTRIES} files besides SKILL.md`;
  if (now.folders.length + newFolders > MAX_RESOURCE_DIRECTORIES) return `the package would hold more than ${MAX_RESOURCE_DIRECTORIES} folders`;
  const bytes = now.files.reduce((sum, file) => sum + file.size, 0) - (existing?.size ?? 0) + size;
  if (bytes > MAX_PACKAGE_BYTES) return `the package's files would add up to ${bytes} bytes, over the ${MAX_PACKAGE_BYTES}-byte limit`;
  // The walk stops at the first limit it meets, so its counts are partial then: the package is already over.
  return now.limitReached ? `the package is already past a limit (${now.problems[now.problems.length - 1]})` : null;
}
