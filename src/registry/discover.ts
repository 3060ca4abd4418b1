/**
 * Discovery (SPEC §2): finds the skill directories of one source. A source is a single skill
 * directory or a directory of skills with nested categories, down to MAX_SKILL_DEPTH levels.
 * A directory whose listing holds SKILL.md (or skill.md) is a skill; the walk goes on below it
 * into its subdirectories other than `scripts/`, `references/` and `assets/`, because real
 * repositories nest skills inside other skills' folders.
 *
 * Every directory visited is listed once, and the listing is what says whether it is a skill:
 * the walk never opens a SKILL.md that is not there (a failed open throws, and cost more than a
 * listing), and the listing's entry types say for free whether SKILL.md is a symlink. For a skill
 * the walk then asks its probe: by default one `stat` of SKILL.md (the stamp that decides
 * re-reads); a walk that is going to read every SKILL.md anyway passes a probe that opens it and
 * takes the stamp from the open file.
 *
 * Links are where a source can reach what it should not: a link out of the source leads wherever
 * its author chose (`x -> /` walked the whole machine), and a link into another agent's private
 * skills would show them to everyone who sees this source. So a link is followed only when its
 * real target stays inside the source's link root (its own real directory, unless the source
 * names a wider one or opts in to every link), and never into a real directory private to an
 * agent other than the one the source belongs to.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { diagnostic, type Diagnostic } from "../package/diagnostic.js";
import type { FileStamp } from "../package/types.js";
import type { TimeSlicer } from "./time-slice.js";
import { isDirectory } from "../package/path-kind.js";
import { isLeftOutOfPackage, RESOURCE_DIRS } from "../package/package-shape.js";
import { noteDiscoveredListing } from "../package/discovered-listings.js";

/** Deepest level below the source root at which a skill directory is found (Codex allows 6). */
export const MAX_SKILL_DEPTH = 6;
/** Directories visited per source unless the source says otherwise, so a mistaken root (say `~`) ends quickly. */
export const DEFAULT_MAX_DIRECTORIES = 50_000;
/** A skill's own resource folders: its files, never searched for skills. */
const RESOURCE_FOLDERS: ReadonlySet<string> = new Set(RESOURCE_DIRS);

/** The real root of a source private to an agent, and which agent (or agents) it belongs to. */
export interface PrivateRoot {
  path: string;
  owners: readonly string[];
}

/** How far one source's walk may go. Plain data: it crosses to parse workers as it is. */
export interface WalkOptions {
  /** Directories visited below the root before the walk stops with a `directory_limit` warning. */
  maxDirectories: number;
  /** Follow links wherever they lead (the source opted in), rather than only inside `linkRoot`. */
  followExternalLinks: boolean;
  /** Links may lead anywhere inside this directory (resolved to its real path); default the source's own root. */
  linkRoot?: string;
  /** Every agent's private source roots: only their owners' walks may enter them. */
  privateRoots: readonly PrivateRoot[];
  /** The agent whose source this is; absent for shared and project sources. */
  agentId?: string;
  /** Say so (a `source_missing` warning) when the source does not exist; off for the default folders. */
  reportsMissing?: boolean;
  /** Real roots of other sources inside this one that the walk leaves to them (`separateRootsOf`). */
  separateRoots?: readonly string[];
}

export const DEFAULT_WALK_OPTIONS: WalkOptions = Object.freeze({
  maxDirectories: DEFAULT_MAX_DIRECTORIES,
  followExternalLinks: true,
  privateRoots: Object.freeze([]) as readonly PrivateRoot[],
});

export interface FoundSkill {
  /** Real path of the skill directory. */
  dir: string;
  /** `dir` + `/SKILL.md` (or `/skill.md`); the key of the parse cache. */
  skillFile: string;
  stamp: FileStamp;
}

/**
 * A place the walk left alone because it is another agent's private skill. Reported apart from
 * the other diagnostics, so that only the owner's scopes (and unscoped views) ever see it.
 */
export interface PrivateRefusal {
  owner: string;
  diagnostic: Diagnostic;
}

export interface SourceDiscovery {
  /** Skill directories in walk order (names sorted at each level, so the order is stable). */
  found: FoundSkill[];
  diagnostics: Diagnostic[];
  /** Links and folders not followed because they lead into another agent's private skills. */
  privateRefusals: PrivateRefusal[];
  /**
   * True when part of the source could not be read for a reason other than absence (permissions,
   * I/O): the caller then keeps the source's last good contribution rather than dropping skills.
   */
  failed: boolean;
}

/** Where a probe reports problems; `failed` as in `SourceDiscovery`. */
export interface WalkProblems {
  diagnostics: Diagnostic[];
  privateRefusals: PrivateRefusal[];
  failed: boolean;
}

/** Reads or stats the SKILL.md (or skill.md) of `dir`, which its listing shows: its stamp, or null. */
export type SkillProbe = (dir: string, problems: WalkProblems) => FoundSkill | null;

interface Walk extends WalkProblems {
  found: FoundSkill[];
  probe: SkillProbe;
  /**
   * Real directories already examined, so a directory reached twice loads once. Only a symlink
   * can reach a directory a second time, so until the walk meets one, the directories it
   * examines are only listed (`plain`) — no hashing of every path in a tree without links — and
   * the set is built from that list when the first link is followed.
   */
  visited: Set<string> | null;
  plain: string[];
  realRoot: string;
  /** Real directory a link's target must stay inside; null when the source follows every link. */
  linkRoot: string | null;
  privateRoots: readonly PrivateRoot[];
  /** The private roots' paths, so a plain directory is checked with one lookup. */
  privatePaths: ReadonlySet<string>;
  /** Roots of other sources this walk does not enter (`WalkOptions.separateRoots`). */
  separatePaths: ReadonlySet<string>;
  agentId: string | undefined;
  maxDirectories: number;
  directories: number;
  stopped: boolean;
  slicer: TimeSlicer;
  sourcePath: string;
}

/** Walks one source, handing each skill directory it finds to `probe`. */
export async function discoverSource(
  sourcePath: string,
  slicer: TimeSlicer,
  probe: SkillProbe = statSkillFile,
  options: WalkOptions = DEFAULT_WALK_OPTIONS,
): Promise<SourceDiscovery> {
  const root = path.resolve(sourcePath);
  const result: SourceDiscovery = { found: [], diagnostics: [], privateRefusals: [], failed: false };
  let realRoot: string;
  try {
    // The native call is one system call; the JavaScript one checks each component in turn.
    realRoot = fs.realpathSync.native(root);
  } catch (error) {
    const code = errorCode(error);
    // A missing source is an empty contribution (SPEC §2), not an error; but a path someone named
    // and mistyped must not serve nothing without a word, so a named source says it is missing.
    if (code === "ENOENT" || code === "ENOTDIR") {
      if (options.reportsMissing) {
        result.diagnostics.push(
          diagnostic(root, "warning", "source_missing", `Source ${root} does not exist; it contributes no skills until it is created (a watching runtime picks it up then)`),
        );
      }
      return result;
    }
    if (code === "ELOOP") {
      result.diagnostics.push(diagnostic(root, "error", "symlink_loop", `Source ${root} is a symlink loop; it contributes no skills`));
      return result;
    }
    result.diagnostics.push(diagnostic(root, "error", "source_unreadable", `Cannot read source ${root}: ${code}`));
    result.failed = true;
    return result;
  }
  const leftRoot = linkRootLeft(realRoot, options);
  if (leftRoot !== null) {
    // The folder itself is a link (or lies below one) leading out: `.claude/skills -> /` walked
    // the whole disk as project skills. The rule every link inside the source obeys holds for
    // the source's own path too; the message does not say where it leads.
    result.diagnostics.push(
      diagnostic(
        root,
        "warning",
        "symlink_external",
        `Source ${root} is reached through a link leading outside ${leftRoot}; not walked (set followExternalLinks on the source, or a linkRoot holding where it leads, to walk it)`,
      ),
    );
    return result;
  }
  if (!isDirectory(realRoot)) {
    result.diagnostics.push(diagnostic(root, "warning", "source_not_directory", `Source ${root} is not a directory; it contributes no skills`));
    return result;
  }
  const walk: Walk = {
    ...result,
    probe,
    visited: null,
    plain: [],
    realRoot,
    linkRoot: options.followExternalLinks ? null : linkRootOf(options.linkRoot, realRoot),
    privateRoots: options.privateRoots,
    privatePaths: new Set(options.privateRoots.map((r) => r.path)),
    separatePaths: new Set(options.separateRoots ?? []),
    agentId: options.agentId,
    maxDirectories: options.maxDirectories,
    directories: 0,
    stopped: false,
    slicer,
    sourcePath: root,
  };
  const owner = foreignOwner(realRoot, walk);
  // A rescan of one folder of the source that lies in a root left to another source finds nothing.
  if ((options.separateRoots ?? []).some((separate) => isInside(realRoot, separate))) {
    // Nothing to walk.
  } else if (owner !== null) {
    refusePrivate(walk, owner, root, `Source ${root} lies inside agent '${owner}''s private skills; it contributes no skills here`);
  } else {
    await walkTree(realRoot, walk);
  }
  return { found: walk.found, diagnostics: walk.diagnostics, privateRefusals: walk.privateRefusals, failed: walk.failed };
}

/** A directory being walked: its sorted listing and how far the walk has gone through it. */
interface Frame {
  dir: string;
  entries: fs.Dirent[];
  next: number;
  level: number;
  isSkill: boolean;
  /** Below a skill (this directory or an ancestor is one). */
  insideSkill: boolean;
}

/**
 * Walks the tree below the real root depth first, in listing order, with an explicit stack of
 * directories rather than an async call per directory: now that every skill directory is listed
 * too, a promise and a resumed frame per directory were a visible share of a large walk.
 * `chain` holds the real directories from the root down to the current one, for loop checks.
 */
async function walkTree(realRoot: string, walk: Walk): Promise<void> {
  const chain = [realRoot];
  const stack: Frame[] = [];
  const root = openFrame(realRoot, 0, false, walk);
  if (root) stack.push(root);
  while (stack.length > 0) {
    if (walk.stopped) return;
    const frame = stack[stack.length - 1]!;
    if (frame.next >= frame.entries.length) {
      stack.pop();
      chain.pop();
      continue;
    }
    const entry = frame.entries[frame.next++]!;
    if (isLeftOutOfPackage(entry.name) || (frame.isSkill && RESOURCE_FOLDERS.has(entry.name))) continue;
    // A file (SKILL.md among them) leads nowhere: its path is not even built.
    const link = entry.isSymbolicLink();
    if (!link && !entry.isDirectory()) continue;
    // Plain concatenation: both parts are already clean, and path.join costs more than the stat.
    const child = frame.dir + path.sep + entry.name;
    let real: string | null;
    if (link) {
      real = followLink(child, frame.dir, chain, walk);
      walk.visited ??= new Set([walk.realRoot, ...walk.plain]);
    } else real = walk.privatePaths.has(child) ? plainIntoPrivate(child, walk) : child;
    if (real === null) continue;
    // Another source's root, left to it (a writable one, or one inside a writable one): what lies there is that source's alone.
    // A link may lead anywhere below such a root, a plain folder only into the root itself.
    if (walk.separatePaths.size > 0 && (walk.separatePaths.has(real) || (real !== child && [...walk.separatePaths].some((root) => isInside(real!, root))))) continue;
    if (walk.visited === null) walk.plain.push(real);
    else if (walk.visited.has(real)) continue;
    else walk.visited.add(real);
    if (++walk.directories > walk.maxDirectories) {
      walk.stopped = true;
      walk.diagnostics.push(
        diagnostic(
          walk.sourcePath,
          "warning",
          "directory_limit",
          `Stopped after ${walk.maxDirectories} directories in source ${walk.sourcePath} (its maxDirectories); skills beyond them are not loaded (point the source at a narrower directory, or raise maxDirectories)`,
        ),
      );
      return;
    }
    const opened = openFrame(real, frame.level + 1, frame.insideSkill || frame.isSkill, walk);
    if (opened) {
      stack.push(opened);
      chain.push(real);
    }
    // An await per entry costs a microtask turn each; yield only when the slice is used up.
    if (walk.slicer.due()) await walk.slicer.yield();
  }
}

/**
 * Lists `dir` (a real directory `level` below the root) and takes it as a skill when its listing
 * holds SKILL.md. Returns the frame to walk its subdirectories from, or null when there is
 * nothing below it to search (the depth bound).
 */
function openFrame(dir: string, level: number, insideSkill: boolean, walk: Walk): Frame | null {
  const entries = readEntries(dir, walk);
  const isSkill = takeSkill(dir, entries, walk);
  if (level < MAX_SKILL_DEPTH) return { dir, entries, next: 0, level, isSkill, insideSkill };
  // Inside a skill, deep folders are its content (examples, vendored code), not lost skills.
  if (!isSkill && !insideSkill && entries.some((e) => !isLeftOutOfPackage(e.name) && (e.isDirectory() || e.isSymbolicLink()))) {
    walk.diagnostics.push(
      diagnostic(dir, "warning", "depth_limit", `Not searched: ${dir} is ${MAX_SKILL_DEPTH} levels below source ${walk.sourcePath}, the deepest a skill directory may sit`),
    );
  }
  return null;
}

/** A plain folder enters another root only by being that root: a private source nested in this one. */
function plainIntoPrivate(dir: string, walk: Walk): string | null {
  const owner = foreignOwner(dir, walk);
  if (owner === null) return dir;
  refusePrivate(walk, owner, dir, `Not searched: ${dir} holds agent '${owner}''s private skills`);
  return null;
}

/** Whether `dir`'s listing makes it a skill; a skill's SKILL.md is probed and its record kept. */
function takeSkill(dir: string, entries: fs.Dirent[], walk: Walk): boolean {
  let entry: fs.Dirent | undefined;
  for (let i = 0; i < entries.length; i++) {
    const name = entries[i]!.name;
    if (name === "SKILL.md" || (name === "skill.md" && entry === undefined)) {
      if (!entries[i]!.isDirectory()) entry = entries[i];
    }
  }
  if (entry === undefined) return false;
  // A linked SKILL.md is a link like any other: it may not lead out of the source or into
  // another agent's skills. It still marks a skill, so its resource folders stay unsearched.
  if (entry.isSymbolicLink() && !fileLinkAllowed(dir + path.sep + entry.name, walk)) return true;
  const skill = walk.probe(dir, walk);
  if (skill) {
    walk.found.push(skill);
    noteDiscoveredListing(dir, entries);
  }
  return skill !== null;
}

/**
 * Lists `dir`, on the event loop. Listings read ahead on libuv's thread pool while the loop
 * parsed were tried and taken out: paired loads of 3,000 skills, alternated in one process, took
 * about 190 ms without them against 270–300 ms with them, and a fresh `list` 1.24 s against 1.39 s;
 * each listing's trip through the pool and its callback cost the loop more than the `readdir`.
 */
function readEntries(dir: string, walk: Walk): fs.Dirent[] {
  try {
    const entries = fs.readdirSync(dir, { withFileTypes: true });
    // readdir order is filesystem-specific; sorting makes "first found wins" the same everywhere.
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (error) {
    const code = errorCode(error);
    // Removed while walking: it simply has no skills now.
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    walk.failed = true;
    walk.diagnostics.push(diagnostic(dir, "error", "directory_unreadable", `Cannot read directory ${dir}: ${code}`));
    return [];
  }
}

/** Resolves a symlink to the real directory it names, or null (with a diagnostic when it is refused, a loop or broken). */
function followLink(link: string, parent: string, chain: string[], walk: Walk): string | null {
  const real = resolveLink(link, walk);
  if (real === null || !isDirectory(real)) return null;
  if (chain.includes(real) || isInside(parent, real)) {
    walk.diagnostics.push(diagnostic(link, "warning", "symlink_loop", `Symlink ${link} points back to ${real}, which contains it; not followed`));
    return null;
  }
  return linkTargetAllowed(link, real, walk) ? real : null;
}

/** Whether a linked SKILL.md may be read: its target must be allowed as any link's is. */
function fileLinkAllowed(link: string, walk: Walk): boolean {
  const real = resolveLink(link, walk);
  return real !== null && linkTargetAllowed(link, real, walk);
}

function resolveLink(link: string, walk: Walk): string | null {
  try {
    return fs.realpathSync.native(link);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ELOOP") walk.diagnostics.push(diagnostic(link, "warning", "symlink_loop", `Symlink ${link} is a loop; not followed`));
    else walk.diagnostics.push(diagnostic(link, "warning", "symlink_broken", `Symlink ${link} points nowhere (${code}); not followed`));
    return null;
  }
}

/**
 * The two rules every link obeys. The messages never name the target: a link into someone else's
 * files must not tell the people who see this source where those files are.
 */
function linkTargetAllowed(link: string, real: string, walk: Walk): boolean {
  const owner = foreignOwner(real, walk);
  if (owner !== null) {
    refusePrivate(walk, owner, link, `Symlink ${link} leads into agent '${owner}''s private skills; not followed (a private skill stays private to its agent)`);
    return false;
  }
  if (walk.linkRoot !== null && !isInside(real, walk.linkRoot)) {
    walk.diagnostics.push(
      diagnostic(
        link,
        "warning",
        "symlink_external",
        `Symlink ${link} leads outside source ${walk.sourcePath}; not followed (set followExternalLinks on the source to follow it)`,
      ),
    );
    return false;
  }
  return true;
}

/**
 * The agent a real path is private to, when that is not the agent walking: the owners of the
 * deepest private root holding it (an agent's folder nested in another's belongs to the inner one).
 */
function foreignOwner(real: string, walk: Walk): string | null {
  let deepest: PrivateRoot | null = null;
  for (let i = 0; i < walk.privateRoots.length; i++) {
    const root = walk.privateRoots[i]!;
    if (isInside(real, root.path) && (deepest === null || root.path.length > deepest.path.length)) deepest = root;
  }
  if (deepest === null || (walk.agentId !== undefined && deepest.owners.includes(walk.agentId))) return null;
  return deepest.owners[0]!;
}

function refusePrivate(walk: Walk, owner: string, where: string, message: string): void {
  walk.privateRefusals.push({ owner, diagnostic: diagnostic(where, "warning", "private_skill_link", message) });
}

/** `child` is `parent` or lies below it, compared by whole components (`/s/a-evil` is not inside `/s/a`). */
export function isInside(child: string, parent: string): boolean {
  if (child === parent) return true;
  const prefix = parent.endsWith(path.sep) ? parent : parent + path.sep;
  return child.startsWith(prefix);
}

/**
 * The link root a source's real root lies outside of, or null when the source may be walked:
 * links may not lead a source out of its link root, and the source's own path is no exception.
 * Without a `linkRoot` the source's own real directory is its root, so only a wider root set
 * by its owner (the repository, for the default project folders) can refuse it.
 */
export function linkRootLeft(realRoot: string, options: Pick<WalkOptions, "followExternalLinks" | "linkRoot">): string | null {
  if (options.followExternalLinks || options.linkRoot === undefined) return null;
  const linkRoot = linkRootOf(options.linkRoot, realRoot);
  return isInside(realRoot, linkRoot) ? null : linkRoot;
}

function linkRootOf(linkRoot: string | undefined, realRoot: string): string {
  if (linkRoot === undefined) return realRoot;
  try {
    return fs.realpathSync.native(path.resolve(linkRoot));
  } catch {
    // A link root that does not exist widens nothing.
    return realRoot;
  }
}

/** The default probe: a `stat` of SKILL.md, then of skill.md. */
export function statSkillFile(dir: string, problems: Pick<WalkProblems, "diagnostics" | "failed">): FoundSkill | null {
  for (const name of ["SKILL.md", "skill.md"]) {
    const skillFile = dir + path.sep + name;
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(skillFile, { throwIfNoEntry: false });
    } catch (error) {
      const code = errorCode(error);
      if (code === "ENOTDIR") return null;
      problems.failed = true;
      problems.diagnostics.push(diagnostic(skillFile, "error", "skill_file_unreadable", `Cannot stat ${skillFile}: ${code}`));
      return null;
    }
    if (stat) return { dir, skillFile, stamp: { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino } };
  }
  return null;
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}
