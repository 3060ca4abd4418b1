/**
 * Dot-folders an install searches that discovery does not (SPEC §10, issue of openai/skills):
 * discovery skips every dot-entry (§2), which is right for a folder an agent reads, but
 * collections keep skills in dot-folders of their `skills/` folder (`skills/.curated`,
 * `skills/.system`, `skills/.experimental`), and a user installing from such a source expects
 * them. So a source being installed also has the dot-folders directly inside each `skills/`
 * folder searched, and when it holds no skill at all, the dot-folders left unsearched are named,
 * so the user can point `--path` at one.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** How deep below the start a `skills/` folder is looked for (`skills`, `x/skills`, `plugins/x/skills`). */
const SKILLS_FOLDER_DEPTH = 3;
/** Folders listed while looking: a bound, so a huge tree costs little. */
const MAX_FOLDERS_LISTED = 2_000;

/** Entries that are never a place for skills. */
const NEVER: ReadonlySet<string> = new Set([".git", ".hg", ".svn", "node_modules"]);

function subfolders(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory() && !NEVER.has(entry.name)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
}

/** The dot-folders directly inside every `skills/` folder at or below `start` (real paths; `start` itself counts when it is named `skills`). */
export function dotFoldersOfSkillsFolders(start: string): string[] {
  const result: string[] = [];
  let listed = 0;
  const visit = (dir: string, depth: number): void => {
    if (listed++ > MAX_FOLDERS_LISTED) return;
    const children = subfolders(dir);
    if (path.basename(dir) === "skills") {
      for (const child of children) if (child.name.startsWith(".")) result.push(path.join(dir, child.name));
    }
    if (depth >= SKILLS_FOLDER_DEPTH) return;
    for (const child of children) if (!child.name.startsWith(".")) visit(path.join(dir, child.name), depth + 1);
  };
  visit(start, 0);
  return result;
}

/** The dot-folders directly inside `start` and inside its non-dot folders, relative to `root` and `/`-separated: what discovery skipped there. */
export function skippedDotFolders(root: string, start: string): string[] {
  const skipped: string[] = [];
  const rel = (dir: string): string => path.relative(root, dir).split(path.sep).join("/");
  for (const child of subfolders(start)) {
    const dir = path.join(start, child.name);
    if (child.name.startsWith(".")) {
      skipped.push(rel(dir));
      continue;
    }
    for (const inner of subfolders(dir)) if (inner.name.startsWith(".")) skipped.push(rel(path.join(dir, inner.name)));
  }
  return skipped;
}
