/**
 * A `skillport.config.json` the CLI found on its own (in the working directory, not named by
 * `--config`) may be anyone's: a cloned repository ships one as easily as a README. Trusted in
 * full, it could add `/` as a source (every file of every skill on the machine readable to the
 * model), or make the user's own `~/.agents/skills` a writable, trusted project source (a model
 * then edits the user's global skills and pre-approves `Bash` for every project). So such a file
 * may only name folders inside the project, and may not grant: `writable`, `trusted`,
 * `followExternalLinks`, a `linkRoot` outside the project, a source's `audit: "off"` or `"warn"`, and
 * `audit.accept` are ignored, each
 * with a warning naming what and why. Naming the file with `--config` trusts it as written.
 */
import fs from "node:fs";
import path from "node:path";
import type { SkillportConfig } from "../config.js";
import { oneLineShown } from "../package/display-text.js";
import { projectRoot } from "../registry/sources.js";
import type { SkillSource } from "../registry/types.js";

export interface ConfinedConfig {
  config: SkillportConfig;
  /** One line per thing ignored, for stderr. */
  ignored: string[];
}

/** `config` as far as a file found implicitly may set it, for the project around `cwd`. */
export function confineImplicitConfig(config: SkillportConfig, cwd: string): ConfinedConfig {
  const project = realOrResolved(projectRoot(cwd));
  const ignored: string[] = [];
  const sources: SkillSource[] = [];
  (config.sources ?? []).forEach((source, index) => {
    const at = `sources[${index}] (${oneLineShown(source.path)})`;
    if (!inside(project, realOrResolved(source.path))) {
      ignored.push(`${at}: outside the project (${oneLineShown(project)})`);
      return;
    }
    const kept: SkillSource = { ...source };
    for (const key of ["writable", "trusted", "followExternalLinks"] as const) {
      if (kept[key] === true) {
        delete kept[key];
        ignored.push(`${at}: ${key}`);
      }
    }
    if (kept.linkRoot !== undefined && !inside(project, realOrResolved(kept.linkRoot))) {
      ignored.push(`${at}: linkRoot ${oneLineShown(kept.linkRoot)}, outside the project`);
      delete kept.linkRoot;
    }
    // Turning the audit off, or down to warnings, lets a skill that blocks reach the model.
    if (kept.audit === "off" || kept.audit === "warn") {
      ignored.push(`${at}: audit "${kept.audit}"`);
      delete kept.audit;
    }
    sources.push(kept);
  });
  const confined: SkillportConfig = { ...config, ...(config.sources ? { sources } : {}) };
  // Accepting a finding is a grant too: a cloned file could accept the very rule its skill breaks.
  if (confined.audit?.accept !== undefined && confined.audit.accept.length > 0) {
    ignored.push(`audit.accept (${confined.audit.accept.map((pair) => `${oneLineShown(pair.skill)}: ${oneLineShown(pair.rule)}`).join(", ")})`);
    delete confined.audit;
  }
  return { config: confined, ignored };
}

/** The warning lines for what was ignored: one saying why, then one per item. */
export function implicitConfigWarnings(file: string, ignored: readonly string[]): string[] {
  if (ignored.length === 0) return [];
  return [
    `warning: ${oneLineShown(file)} was found in the working directory, not named by --config, so it may only name folders inside the project and grant nothing; ignored:`,
    ...ignored.map((item) => `  ${item}`),
    "  (name it with --config to use it as written)",
  ];
}

/**
 * The real path of `target`, or of its nearest existing ancestor with the rest appended: a
 * link anywhere on the way (`skills -> /`) is seen through, and a folder not made yet still
 * has a place.
 */
function realOrResolved(target: string): string {
  const absolute = path.resolve(target);
  const rest: string[] = [];
  for (let dir = absolute; ; ) {
    try {
      return path.join(fs.realpathSync(dir), ...rest.reverse());
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) return absolute;
      rest.push(path.basename(dir));
      dir = parent;
    }
  }
}

function inside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === "" || (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}
