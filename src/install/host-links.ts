/**
 * Installing for hosts (SPEC §10.1): a skill is written once into the canonical folder
 * (`.agents/skills`, or `~/.agents/skills`) and each host's folder gets a relative link to it, as
 * the `skills` CLI does (`.claude/skills/pdf -> ../../.agents/skills/pdf`); where a link cannot
 * be made, or with `--copy`, the host's folder gets a copy, placed as every install is (whole,
 * renamed into place). A link is made under a temporary name and renamed over, so a host never
 * sees a half-made entry. `remove` takes out the links it made, and any link in a host's folder
 * that leads to the skill removed (another tool's), for those would lead nowhere after it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { PackageFiles } from "../package/package-files.js";
import { hostById, hostGlobalDir, hostProjectDir, HOSTS, isUniversalHost, type Host, type HostContext } from "./hosts.js";
import { InstallError } from "./install-error.js";
import { placeStaged, removePlaced, stageSkill } from "./placement.js";
import { checkTargetInside } from "./targets.js";

/** Where the hosts of an install live: a project's root, or the user's home (`--global`). */
export interface HostScope {
  global: boolean;
  /** The project root (also the folder the canonical one is in); the home directory for `--global`. */
  root: string;
  home: string;
  env?: NodeJS.ProcessEnv;
}

export interface HostFolder {
  id: string;
  /** The host's skills folder. */
  dir: string;
}

/** The folders of the hosts named, in the scope; a usage error for an unknown id or a project-only host asked for `--global`. */
export function hostFolders(ids: readonly string[], scope: HostScope): HostFolder[] {
  const context = contextOf(scope);
  const folders: HostFolder[] = [];
  for (const id of new Set(ids)) {
    const host = hostById(id);
    if (!host) throw new InstallError(`--agent ${JSON.stringify(id)} is not a host skillport knows (skillport add --help lists them)`, "usage");
    const dir = scope.global ? hostGlobalDir(host, context) : hostProjectDir(host, scope.root);
    if (dir === null) throw new InstallError(`${host.name} (${host.id}) reads skills only from a project's ${host.project}; it has no global folder, so --global cannot install for it`, "usage");
    folders.push({ id: host.id, dir });
  }
  return folders;
}

/** Every host folder of the table in the scope that is not the canonical folder itself (where links to a skill may be). */
export function everyLinkedHostFolder(scope: HostScope): HostFolder[] {
  const context = contextOf(scope);
  const folders: HostFolder[] = [];
  for (const host of HOSTS) {
    if (isUniversalHost(host)) continue;
    const dir = scope.global ? hostGlobalDir(host, context) : hostProjectDir(host, scope.root);
    if (dir !== null) folders.push({ id: host.id, dir });
  }
  return folders;
}

/** `'*'`: the ids of every host detected on this machine. */
export function detectedHostIds(scope: HostScope, detect: (context: HostContext) => Host[]): string[] {
  return detect(contextOf(scope)).map((host) => host.id);
}

/**
 * Why the skill's entry in each host folder may not be replaced: something is there that is not
 * a link to the canonical skill and not a copy this lockfile's entry made (`recorded` hosts).
 */
export function blockedHostEntries(name: string, canonicalDir: string, folders: readonly HostFolder[], recorded: ReadonlySet<string>, scope: HostScope): string[] {
  const problems: string[] = [];
  for (const folder of linkedFolders(folders, canonicalDir)) {
    const entry = path.join(folder.dir, name);
    if (!scope.global) checkFolderInside(folder, scope.root);
    const stat = fs.lstatSync(entry, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isSymbolicLink() && leadsTo(entry, path.join(canonicalDir, name))) continue;
    if (recorded.has(folder.id)) continue;
    problems.push(`${entry} already exists and is not a link skillport made (${folder.id}); use --force to replace it`);
  }
  return problems;
}

/** Links (or copies, with `copy` or where a link cannot be made) each host folder's entry to the placed skill; returns the ids done. */
export async function linkHostFolders(name: string, canonicalDir: string, folders: readonly HostFolder[], pkg: PackageFiles, copy: boolean, scope: HostScope): Promise<{ linked: string[]; copied: string[] }> {
  const linked: string[] = [];
  const copied: string[] = [];
  const targets = linkedFolders(folders, canonicalDir);
  // Checked for every folder before any is written, --force or not: a cloned repository's `.claude -> /elsewhere` gets nothing.
  if (!scope.global) for (const folder of targets) checkFolderInside(folder, scope.root);
  for (const folder of targets) {
    const entry = path.join(folder.dir, name);
    fs.mkdirSync(folder.dir, { recursive: true });
    if (!copy) {
      const existing = fs.lstatSync(entry, { throwIfNoEntry: false });
      if (existing?.isSymbolicLink() && leadsTo(entry, path.join(canonicalDir, name))) {
        linked.push(folder.id);
        continue;
      }
      if (makeLink(folder.dir, name, path.join(canonicalDir, name))) {
        linked.push(folder.id);
        continue;
      }
    }
    const staged = await stageSkill(folder.dir, name, pkg);
    placeStaged(staged.staging, folder.dir, name);
    copied.push(folder.id);
  }
  return { linked, copied };
}

/**
 * Takes out the skill's entry in each host folder: a link leading to the canonical skill, or a
 * copy a recorded host got (`recorded`). A folder of the same name that is neither is left alone.
 */
export function unlinkHostFolders(name: string, canonicalDir: string, folders: readonly HostFolder[], recorded: ReadonlySet<string>): string[] {
  const removed: string[] = [];
  for (const folder of linkedFolders(folders, canonicalDir)) {
    const entry = path.join(folder.dir, name);
    const stat = fs.lstatSync(entry, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isSymbolicLink()) {
      if (!leadsTo(entry, path.join(canonicalDir, name))) continue;
      fs.unlinkSync(entry);
    } else if (stat.isDirectory() && recorded.has(folder.id)) {
      removePlaced(folder.dir, name);
    } else continue;
    removed.push(entry);
  }
  return removed;
}

/** Host folders other than the canonical one (a universal host reads it and needs no link), each once. */
function linkedFolders(folders: readonly HostFolder[], canonicalDir: string): HostFolder[] {
  const seen = new Set<string>([path.resolve(canonicalDir)]);
  const out: HostFolder[] = [];
  for (const folder of folders) {
    const dir = path.resolve(folder.dir);
    if (seen.has(dir)) continue;
    seen.add(dir);
    out.push(folder);
  }
  return out;
}

/** A relative link `<dir>/<name>` to `target`, made under a temporary name and renamed over; false when links cannot be made here. */
function makeLink(dir: string, name: string, target: string): boolean {
  // Relative from the folder's real path, as the other CLI computes it, so the link survives the project being moved.
  const relative = path.relative(realOrSelf(dir), realOrSelf(target));
  const temp = path.join(dir, `.skillport-link-${process.pid}-${Math.random().toString(36).slice(2, 10)}`);
  try {
    fs.symlinkSync(relative, temp, "dir");
  } catch {
    return false;
  }
  placeStaged(temp, dir, name);
  return true;
}

/** Whether the link at `entry` leads to `target` (compared on real paths). */
function leadsTo(entry: string, target: string): boolean {
  let text: string;
  try {
    text = fs.readlinkSync(entry);
  } catch {
    return false;
  }
  const resolved = path.resolve(realOrSelf(path.dirname(entry)), text);
  return realOrSelf(resolved) === realOrSelf(target) || resolved === path.resolve(target);
}

function realOrSelf(file: string): string {
  try {
    return fs.realpathSync.native(file);
  } catch {
    // A target not there (yet): its parent's real path and its name.
    const parent = path.dirname(file);
    if (parent === file) return file;
    return path.join(realOrSelf(parent), path.basename(file));
  }
}

/** A project host folder reached through a link leading outside the project is refused, as the canonical folder is. */
function checkFolderInside(folder: HostFolder, root: string): void {
  checkTargetInside({ dir: folder.dir, lockfile: path.join(root, "skills-lock.json"), folder: path.relative(root, folder.dir).split(path.sep).join("/"), within: root });
}

function contextOf(scope: HostScope): HostContext {
  return { home: scope.home, cwd: scope.root, env: scope.env ?? process.env };
}

