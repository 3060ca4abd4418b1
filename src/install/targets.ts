/**
 * Where skills are installed and where their lockfile lives (SPEC §10). By default the project's
 * `.agents/skills`, the project being the repository root found as discovery finds it (§2);
 * `--global` the user's `~/.agents/skills`; `--to claude` `.claude/skills` (the project's, or
 * the user's with `--global`); `--to codex` `~/.codex/skills` (Codex reads no project folder).
 * `skills-lock.json` sits beside the folder: at the project root for the project's folders (one
 * lockfile for `.agents/skills` and `.claude/skills`, entries kept per folder), in `~/.agents/`,
 * `~/.claude/`, `~/.codex/` for the user's.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { isInside } from "../package/confined-read.js";
import { projectRoot } from "../registry/sources.js";
import type { HostScope } from "./host-links.js";
import { InstallError } from "./install-error.js";
import { canonicalFolderOf } from "./lockfile.js";

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
  /** The project root `dir` must stay inside on its real path (a project's folders); absent for the user's own folders. */
  within?: string;
  /** Where hosts' folders are, for the canonical folder (`.agents/skills`, `~/.agents/skills`): `--agent` links them to it. */
  hosts?: HostScope;
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
    return { dir: path.join(base, "skills"), lockfile: path.join(base, LOCKFILE_NAME), folder: "skills", ...(to === "agents" ? { hosts: { global: true, root: home, home } } : {}) };
  }
  const root = projectRoot(cwd);
  const folder = `.${to}/skills`;
  return { dir: path.join(root, `.${to}`, "skills"), lockfile: path.join(root, LOCKFILE_NAME), folder, within: root, ...(to === "agents" ? { hosts: { global: false, root, home } } : {}) };
}

/**
 * Throws unless the target's folder stays inside its project on its real path. A cloned
 * repository chooses its own files, links included: a committed `.agents -> ../..` (or a
 * lockfile folder key whose folder is such a link) would have `add`, `update` and `add
 * --frozen` write skill folders, and `remove` delete them, wherever the link leads. Discovery
 * refuses such a project folder for reading (`linkRootLeft`); installs refuse it for writing.
 * The user's own folders (`--global`, `--to codex`) may be links anywhere, as their sources may.
 */
export function checkTargetInside(target: InstallTarget): void {
  if (target.within === undefined) return;
  let root: string;
  try {
    root = fs.realpathSync.native(target.within);
  } catch {
    return;
  }
  // The nearest part of the folder that exists: what is still missing is made below it.
  let probe = path.resolve(target.dir);
  while (fs.lstatSync(probe, { throwIfNoEntry: false }) === undefined) {
    const parent = path.dirname(probe);
    if (parent === probe) return;
    probe = parent;
  }
  let real: string | null;
  try {
    real = fs.realpathSync.native(probe);
  } catch {
    real = null;
  }
  if (real === null || (real !== root && !isInside(root, real))) {
    throw new InstallError(`${target.folder} is reached through a link leading outside the project (or to nothing); nothing was installed or removed there`, "usage");
  }
}

/** A folder of the host's own choosing; its lockfile defaults to `skills-lock.json` beside it. */
export function folderTarget(dir: string, lockfile: string = path.join(path.dirname(path.resolve(dir)), LOCKFILE_NAME)): InstallTarget {
  const absolute = path.resolve(dir);
  const lock = path.resolve(lockfile);
  const folder = path.relative(path.dirname(lock), absolute).split(path.sep).join("/");
  return { dir: absolute, lockfile: lock, folder: folder === "" ? "." : folder };
}

/** Every folder a lockfile records, as targets, in the lockfile's order; `within` is the project they must stay inside. */
export function targetsOfLock(lockfile: string, folders: readonly string[], within?: string, hosts?: HostScope): InstallTarget[] {
  const base = path.dirname(path.resolve(lockfile));
  return folders.map((folder) => ({
    dir: path.resolve(base, ...folder.split("/")),
    lockfile: path.resolve(lockfile),
    folder,
    ...(within !== undefined ? { within } : {}),
    ...(hosts !== undefined && folder === canonicalFolderOf(base) ? { hosts } : {}),
  }));
}
