/**
 * Where skills are installed and where their lockfile lives (SPEC §10). By default the project's
 * `.agents/skills`, the project being the repository root found as discovery finds it (§2);
 * `--global` the user's `~/.agents/skills`; `--to claude` `.claude/skills` (the project's, or
 * the user's with `--global`); `--to codex` `~/.codex/skills` (Codex reads no project folder).
 * `skills-lock.json` sits beside the folder: at the project root for the project's folders (one
 * lockfile for `.agents/skills` and `.claude/skills`, entries kept per folder), in `~/.agents/`,
 * `~/.claude/`, `~/.codex/` for the user's.
 */
import * as path from "node:path";
import { projectRoot } from "../registry/sources.js";

export const LOCKFILE_NAME = "skills-lock.json";

export type AgentFolder = "agents" | "claude" | "codex";
export const AGENT_FOLDERS: readonly AgentFolder[] = ["agents", "claude", "codex"];

export interface InstallTarget {
  /** The folder skills are written into, each as `<dir>/<name>`. */
  dir: string;
  /** The lockfile recording them. */
  lockfile: string;
  /** `dir` relative to the lockfile's folder, `/`-separated: the key its entries are kept under. */
  folder: string;
}

export interface TargetChoice {
  cwd: string;
  home: string;
  global?: boolean;
  to?: AgentFolder;
}

export function installTarget({ cwd, home, global = false, to = "agents" }: TargetChoice): InstallTarget {
  if (to === "codex" || global) {
    const base = path.join(home, `.${to}`);
    return { dir: path.join(base, "skills"), lockfile: path.join(base, LOCKFILE_NAME), folder: "skills" };
  }
  const root = projectRoot(cwd);
  const folder = `.${to}/skills`;
  return { dir: path.join(root, `.${to}`, "skills"), lockfile: path.join(root, LOCKFILE_NAME), folder };
}

/** A folder of the host's own choosing; its lockfile defaults to `skills-lock.json` beside it. */
export function folderTarget(dir: string, lockfile: string = path.join(path.dirname(path.resolve(dir)), LOCKFILE_NAME)): InstallTarget {
  const absolute = path.resolve(dir);
  const lock = path.resolve(lockfile);
  const folder = path.relative(path.dirname(lock), absolute).split(path.sep).join("/");
  return { dir: absolute, lockfile: lock, folder: folder === "" ? "." : folder };
}

/** Every folder a lockfile records, as targets, in the lockfile's order. */
export function targetsOfLock(lockfile: string, folders: readonly string[]): InstallTarget[] {
  const base = path.dirname(path.resolve(lockfile));
  return folders.map((folder) => ({ dir: path.resolve(base, ...folder.split("/")), lockfile: path.resolve(lockfile), folder }));
}
