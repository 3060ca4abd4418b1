/**
 * What belongs to a skill's package (SPEC §1 Resources, §4 Read): every regular file of the
 * skill's directory except entries whose names start with `.` and `node_modules` folders. A
 * `.env` or `.git` beside a skill is the author's working state, not something the skill ships,
 * and may hold secrets; `node_modules` is installed, not authored, and huge. The listing leaves
 * these out and a read refuses them, so the model is never offered one and cannot ask for one;
 * discovery skips the same names, and never looks for skills inside the resource folders.
 */

/** The standard's folders. Files under `scripts/` are listed as absolute paths, to be run. */
export const SCRIPTS_DIR = "scripts";
export const RESOURCE_DIRS = [SCRIPTS_DIR, "references", "assets"] as const;

/** Names that mark a directory as a skill of its own (`skill.md` is accepted with a warning). */
export const SKILL_FILE_NAMES: readonly string[] = ["SKILL.md", "skill.md"];

/** Whether an entry of that name is left out of the package (listing and reads alike). */
export function isLeftOutOfPackage(name: string): boolean {
  return name.startsWith(".") || name === "node_modules";
}
