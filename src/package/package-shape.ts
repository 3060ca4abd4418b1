/**
 * What belongs to a skill's package (SPEC §1 Resources, §4 Read): every regular file of the
 * skill's directory except entries whose names start with `.` and `node_modules` folders. A
 * `.env` or `.git` beside a skill is the author's working state, not something the skill ships,
 * and may hold secrets; `node_modules` is installed, not authored, and huge. The listing leaves
 * these out and a read refuses them, so the model is never offered one and cannot ask for one;
 * discovery skips the same names, and never looks for skills inside the resource folders.
 */
import fs from "node:fs";
import path from "node:path";

/** The standard's folders. Files under `scripts/` are listed as absolute paths, to be run. */
export const SCRIPTS_DIR = "scripts";
export const RESOURCE_DIRS = [SCRIPTS_DIR, "references", "assets"] as const;

/** Names that mark a directory as a skill of its own (`skill.md` is accepted with a warning). */
export const SKILL_FILE_NAMES: readonly string[] = ["SKILL.md", "skill.md"];

/**
 * What a listing gives in place of the bytes of a name that are not UTF-8. A listed name holding
 * it may name nothing on disk (nothing can be read, listed or served by it); one whose entry is
 * found by that name really holds the character.
 */
export const NOT_UTF8_MARK = "\uFFFD";

/** Whether an entry of that name is left out of the package (listing and reads alike). */
export function isLeftOutOfPackage(name: string): boolean {
  return name.startsWith(".") || name === "node_modules";
}

/**
 * Whether a directory entry is the nested-skill marker: SKILL.md (or skill.md) that is not a
 * directory. A link counts, dangling or not, as it does for discovery, which takes the folder
 * for a skill (and never for part of the one around it) whatever the link leads to.
 */
export function isSkillFileEntry(entry: { name: string; isDirectory(): boolean }): boolean {
  return SKILL_FILE_NAMES.includes(entry.name) && !entry.isDirectory();
}

/**
 * Where a package ends (SPEC §1 Resources): at a directory below the skill that is a skill of
 * its own (it holds the marker and lies outside the resource folders, as discovery finds nested
 * skills) or the root of another source. Everything below such a directory belongs to that skill
 * or source alone, so the enclosing skill neither lists it nor reads it, whoever asks: an
 * agent's private source kept inside a shared skill's folder, or a nested skill a policy
 * excludes, must not be reachable by naming the skill around it. The one rule: the resource
 * listing asks it with the listing in hand, a read with `lstat`s (`liesInOtherPackage`).
 *
 * `dirPath` is the directory's real path, some levels below the skill's real directory, and
 * `topSegment` the first of those levels (a nested skill never sits in a resource folder);
 * `sourceRoots` are the real root directories of sources (`sourceRootsInside`); `holdsSkillFile`
 * says whether the directory holds the marker, and is asked only where a nested skill may sit.
 */
export function endsPackage(dirPath: string, topSegment: string, sourceRoots: readonly string[], holdsSkillFile: () => boolean): boolean {
  if (sourceRoots.length > 0 && sourceRoots.includes(dirPath)) return true;
  return !(RESOURCE_DIRS as readonly string[]).includes(topSegment) && holdsSkillFile();
}

/** The roots among `sourceRoots` that lie below `realDir`: the only ones `endsPackage` can meet there (nearly always none). */
export function sourceRootsInside(realDir: string, sourceRoots: readonly string[]): readonly string[] {
  const prefix = realDir.endsWith(path.sep) ? realDir : realDir + path.sep;
  return sourceRoots.some((root) => root.startsWith(prefix)) ? sourceRoots.filter((root) => root.startsWith(prefix)) : NO_ROOTS;
}

const NO_ROOTS: readonly string[] = Object.freeze([]);

/**
 * Whether the entry at `segments` (its real path below the skill's real directory `realDir`)
 * lies in another package: some directory on its way, or the entry itself when `isDirectory`,
 * ends the skill's (`endsPackage`). One `lstat` per marker name per directory outside the
 * resource folders: `forms.md` costs none, `references/x.md` none, `themes/x.md` two.
 */
export function liesInOtherPackage(realDir: string, segments: readonly string[], sourceRoots: readonly string[], isDirectory = false): boolean {
  const directories = isDirectory ? segments.length : segments.length - 1;
  // Plain concatenation: the parts are clean real-path segments, and path.join per level cost
  // more than the lstats.
  let dirPath = realDir;
  for (let depth = 0; depth < directories; depth++) {
    dirPath = dirPath + path.sep + segments[depth]!;
    const here = dirPath;
    if (endsPackage(here, segments[0]!, sourceRoots, () => SKILL_FILE_NAMES.some((name) => isNotDirectory(here + path.sep + name)))) return true;
  }
  return false;
}

/** Whether something other than a directory is at `file` (a link is not followed); false when nothing is. */
function isNotDirectory(file: string): boolean {
  try {
    const stat = fs.lstatSync(file, { throwIfNoEntry: false });
    return stat !== undefined && !stat.isDirectory();
  } catch {
    // Unreadable (a directory on the way without search permission): nothing is known to be there.
    return false;
  }
}
