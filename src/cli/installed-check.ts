/**
 * What `doctor` adds about installed skills (SPEC §10): every skill a default lockfile records
 * (the project's, and the user's beside `~/.agents`, `~/.claude` and `~/.codex`) whose files no
 * longer match its digest is an error, and one whose folder is gone a warning. The same check as
 * `verify`, reported as diagnostics.
 */
import * as path from "node:path";
import { verifySkills, lockedFolders } from "../install/operations.js";
import { installTarget, targetsOfLock, AGENT_FOLDERS } from "../install/targets.js";
import { diagnostic, type Diagnostic } from "../package/diagnostic.js";
import { InstallError } from "../install/install-error.js";

export async function installedSkillDiagnostics(cwd: string, home: string): Promise<Diagnostic[]> {
  const lockfiles = new Set<string>([installTarget({ cwd, home }).lockfile, ...AGENT_FOLDERS.map((to) => installTarget({ cwd, home, global: true, to }).lockfile)]);
  const found: Diagnostic[] = [];
  for (const lockfile of lockfiles) {
    let folders: string[];
    try {
      folders = lockedFolders(lockfile);
    } catch (error) {
      if (!(error instanceof InstallError)) throw error;
      found.push(diagnostic(lockfile, "error", "skills_lock_unreadable", error.message));
      continue;
    }
    for (const target of targetsOfLock(lockfile, folders)) {
      const report = await verifySkills({ target });
      for (const skill of report.skills) {
        if (skill.status === "modified") {
          found.push(diagnostic(skill.dir, "error", "installed_skill_modified", `installed skill '${skill.name}' does not match ${path.basename(lockfile)}: ${skill.messages.join("; ")} (skillport update --force puts the source's back)`));
        } else if (skill.status === "missing") {
          found.push(diagnostic(skill.dir, "warning", "installed_skill_missing", `${path.basename(lockfile)} records '${skill.name}', but its folder is gone (skillport add --frozen puts it back)`));
        }
      }
    }
  }
  return found;
}
