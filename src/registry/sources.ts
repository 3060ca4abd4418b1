/**
 * Where skills come from (SPEC §2): the default source list, the precedence of origins, and
 * which sources a scope can see together.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { DEFAULT_MAX_DIRECTORIES, linkRootLeft, type PrivateRoot, type WalkOptions } from "./discover.js";
import type { Origin, SkillSource } from "./types.js";

/** Lower ranks win a name collision: agent > project > global > bundled. */
export const ORIGIN_RANK: Readonly<Record<Origin, number>> = Object.freeze({ agent: 0, project: 1, global: 2, bundled: 3 });

const DEFAULT_LABEL: Readonly<Record<Origin, string>> = Object.freeze({
  agent: "Private",
  project: "Project",
  global: "Global",
  bundled: "Bundled",
});

export function defaultLabel(origin: Origin): string {
  return DEFAULT_LABEL[origin];
}

/**
 * Folders of skills inside a project directory and inside the home directory, in precedence order.
 * `.agent/skills` (singular) is where `openskills install --universal` puts skills; it comes last,
 * so the standard folders win a name clash.
 */
const PROJECT_FOLDERS = [".agents/skills", ".claude/skills", ".agent/skills"] as const;
const GLOBAL_FOLDERS = [".agents/skills", ".claude/skills", ".codex/skills", ".agent/skills"] as const;

/**
 * The sources the CLI and MCP server use when none are configured (SPEC §2): the project folders
 * of the working directory and of each parent up to the repository root, nearest first, then the
 * user's. The project sources carry no `projectId`: they are the working directory's own project,
 * seen by scopes that name no project. Outside a repository only the working directory's own
 * folders count: walking up to `/` would pick up whatever some ancestor happens to hold. A folder
 * that is also a global one (the working directory is the home directory) is listed once, as global.
 */
export function defaultSources(cwd: string, home: string): SkillSource[] {
  const globals = GLOBAL_FOLDERS.map((folder) => path.resolve(home, folder));
  const sources: SkillSource[] = [];
  const dirs = projectDirectories(path.resolve(cwd));
  // A repository often keeps its skills in one folder and links them from both `.agents/skills`
  // and `.claude/skills`: links may lead anywhere inside the repository, never out of it.
  const linkRoot = dirs[dirs.length - 1]!;
  for (const dir of dirs) {
    for (const folder of PROJECT_FOLDERS) {
      const folderPath = path.resolve(dir, folder);
      if (!globals.includes(folderPath)) sources.push({ path: folderPath, origin: "project", linkRoot, optional: true });
    }
  }
  for (const folderPath of globals) sources.push({ path: folderPath, origin: "global", optional: true });
  return sources;
}

/**
 * The project a command run in `cwd` belongs to (SPEC §2, §10): the nearest directory up from it
 * holding `.git`, or `cwd` itself outside a repository. Skills are installed into its folders.
 */
export function projectRoot(cwd: string): string {
  const dirs = projectDirectories(path.resolve(cwd));
  return dirs[dirs.length - 1]!;
}

/**
 * `cwd` and each parent up to the nearest directory holding `.git` (a directory in a clone, a
 * file in a worktree or submodule), nearest first; just `cwd` when no parent holds one.
 */
function projectDirectories(cwd: string): string[] {
  const chain: string[] = [];
  for (let dir = cwd; ; ) {
    chain.push(dir);
    if (fs.existsSync(path.join(dir, ".git"))) return chain;
    const parent = path.dirname(dir);
    if (parent === dir) return [cwd];
    dir = parent;
  }
}

/**
 * Skills of one visibility group are always seen together, so a name collision inside a group
 * has a loser everywhere. Different groups meet only in some scopes: the shared pool meets every
 * project and agent, an agent meets any project, but two agents or two projects never meet.
 */
export type VisibilityGroup = string;

export const SHARED_GROUP: VisibilityGroup = "shared";

export function visibilityGroup(source: Pick<SkillSource, "origin" | "projectId" | "agentId">): VisibilityGroup {
  if (source.origin === "agent") return `agent:${source.agentId ?? ""}`;
  if (source.origin === "project") return `project:${source.projectId ?? ""}`;
  return SHARED_GROUP;
}

/** The groups one `(projectId?, agentId?)` scope sees. A scope naming no project sees the unnamed one. */
export function groupsOfScope(scope: { projectId?: string; agentId?: string }): Set<VisibilityGroup> {
  const groups = new Set<VisibilityGroup>([SHARED_GROUP, `project:${scope.projectId ?? ""}`]);
  if (scope.agentId !== undefined) groups.add(`agent:${scope.agentId}`);
  return groups;
}

/** Whether some scope sees both groups at once (and so a collision between them matters). */
export function groupsMeet(a: VisibilityGroup, b: VisibilityGroup): boolean {
  if (a === b) return true;
  const kindA = a.slice(0, a.indexOf(":") + 1) || a;
  const kindB = b.slice(0, b.indexOf(":") + 1) || b;
  return kindA !== kindB;
}

/**
 * Whether a source of each origin follows links wherever they lead when it does not say: the
 * user's own folders do (`~/.claude/skills` holding links to checkouts is how many people install
 * skills); a project's do not (a cloned repository chose them), nor an agent's (a private skill is
 * always allowed to its agent, so a link out of its folder would widen that agent's policy).
 */
const FOLLOWS_EXTERNAL_LINKS: Readonly<Record<Origin, boolean>> = Object.freeze({ agent: false, project: false, global: true, bundled: true });

/** How far the walk of `source` may go, given every agent's private roots (and the roots it leaves to other sources: `separateRootsOf`). */
export function walkOptionsOf(source: SkillSource, privateRoots: readonly PrivateRoot[], separateRoots: readonly string[] = []): WalkOptions {
  const options: WalkOptions = {
    maxDirectories: source.maxDirectories ?? DEFAULT_MAX_DIRECTORIES,
    followExternalLinks: source.followExternalLinks ?? FOLLOWS_EXTERNAL_LINKS[source.origin],
    privateRoots,
  };
  if (separateRoots.length > 0) options.separateRoots = separateRoots;
  if (source.linkRoot !== undefined) options.linkRoot = source.linkRoot;
  if (source.origin === "agent" && source.agentId !== undefined) options.agentId = source.agentId;
  if (source.optional !== true) options.reportsMissing = true;
  return options;
}

/** Whether a source whose folder now resolves to `realRoot` may be walked (and watched): see `linkRootLeft`. */
export function sourceRootAllowed(source: SkillSource, realRoot: string): boolean {
  return linkRootLeft(realRoot, walkOptionsOf(source, [])) === null;
}

/** The real directories of agent sources, each with the agents it is private to; one entry per directory. */
export function privateRootsOf(sources: readonly SkillSource[]): PrivateRoot[] {
  const owners = new Map<string, string[]>();
  for (const source of sources) {
    if (source.origin !== "agent" || !source.agentId || typeof source.path !== "string" || source.path === "") continue;
    let real: string;
    try {
      real = fs.realpathSync.native(path.resolve(source.path));
    } catch {
      // Missing now: it holds nothing to protect, and it is looked for again at the next scan.
      continue;
    }
    const list = owners.get(real) ?? [];
    if (!list.includes(source.agentId)) list.push(source.agentId);
    owners.set(real, list);
  }
  return [...owners].map(([rootPath, agents]) => ({ path: rootPath, owners: agents }));
}

/**
 * Per source (by index), the real roots of other sources inside its folder that its walk must
 * not enter, because one of the two is writable (SPEC §11): a writable source nested in a
 * read-only one would otherwise have what the agent writes found again by the outer source,
 * where `allowed-tools` and env grants count (an agent pre-approving itself `Bash`); and a
 * writable source around a read-only one would claim that source's skills as writable (an agent
 * editing an installed or trusted skill). So a writable source's skills are found by it alone,
 * and it finds no other source's. Sources that are both read-only keep overlapping as before.
 */
export function separateRootsOf(sources: readonly SkillSource[]): string[][] {
  const reals = sources.map((source) => {
    if (typeof source.path !== "string" || source.path === "") return null;
    try {
      return fs.realpathSync.native(path.resolve(source.path));
    } catch {
      // Missing now: nothing inside it to find, and it is looked for again at the next scan.
      return null;
    }
  });
  return sources.map((source, index) => {
    const own = reals[index];
    if (own === null || own === undefined) return [];
    const prefix = own.endsWith(path.sep) ? own : own + path.sep;
    const inside = new Set<string>();
    sources.forEach((other, j) => {
      const real = reals[j];
      if (j === index || real === null || real === undefined || !real.startsWith(prefix)) return;
      if (source.writable === true || other.writable === true) inside.add(real);
    });
    return [...inside].sort();
  });
}

/**
 * Every source's root directory, as the path names it and as its real path when it exists: a
 * root inside a skill's folder is another package (`endsPackage`). The named path counts even
 * before it exists, so a source folder created inside a skill is never part of that skill's
 * package, not even until the next scan. Sorted, without repeats.
 */
export function sourceRootsOf(sources: readonly SkillSource[]): string[] {
  const roots = new Set<string>();
  for (const source of sources) {
    if (typeof source.path !== "string" || source.path === "") continue;
    const named = path.resolve(source.path);
    roots.add(named);
    try {
      roots.add(fs.realpathSync.native(named));
    } catch {
      // Missing now: its named path stands for it.
    }
  }
  return [...roots].sort();
}
