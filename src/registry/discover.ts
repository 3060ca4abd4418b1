/**
 * Discovery (SPEC §2): finds the skill directories of one source without reading any SKILL.md.
 * A source is a single skill directory or a directory of skills with nested categories. A
 * directory holding SKILL.md (or skill.md) is a skill and is never searched further: its
 * subdirectories are its resources.
 *
 * The walk costs one `stat` per skill (of its SKILL.md, which is also the stamp that decides
 * re-reads) plus one `readdir` per category, so a rescan of an unchanged tree stays cheap. A
 * caller that is going to read every SKILL.md anyway may pass its own probe, which opens the
 * file instead and takes the stamp from the open file: one syscall chain per skill, not two.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { diagnostic, type Diagnostic } from "../package/diagnostic.js";
import type { FileStamp } from "../package/types.js";
import type { TimeSlicer } from "./time-slice.js";
import { isDirectory } from "../package/path-kind.js";

/** Deepest level below the source root at which a skill directory is found. */
export const MAX_SKILL_DEPTH = 4;
/** Directories examined per source before the walk stops, so a mistaken root (say `~`) ends quickly. */
export const MAX_DIRECTORIES_PER_SOURCE = 2000;

export interface FoundSkill {
  /** Real path of the skill directory. */
  dir: string;
  /** `dir` + `/SKILL.md` (or `/skill.md`); the key of the parse cache. */
  skillFile: string;
  stamp: FileStamp;
}

export interface SourceDiscovery {
  /** Skill directories in walk order (names sorted at each level, so the order is stable). */
  found: FoundSkill[];
  diagnostics: Diagnostic[];
  /**
   * True when part of the source could not be read for a reason other than absence (permissions,
   * I/O): the caller then keeps the source's last good contribution rather than dropping skills.
   */
  failed: boolean;
}

/** Where a probe reports problems; `failed` as in `SourceDiscovery`. */
export interface WalkProblems {
  diagnostics: Diagnostic[];
  failed: boolean;
}

/** Decides whether `dir` holds a skill: its SKILL.md (or skill.md) and stamp, or null. */
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
  directories: number;
  stopped: boolean;
  slicer: TimeSlicer;
  sourcePath: string;
}

export async function discoverSource(sourcePath: string, slicer: TimeSlicer, probe: SkillProbe = statSkillFile): Promise<SourceDiscovery> {
  const root = path.resolve(sourcePath);
  const result: SourceDiscovery = { found: [], diagnostics: [], failed: false };
  let realRoot: string;
  try {
    // The native call is one system call; the JavaScript one checks each component in turn.
    realRoot = fs.realpathSync.native(root);
  } catch (error) {
    const code = errorCode(error);
    // A missing source is an empty contribution (SPEC §2), not a problem to report.
    if (code === "ENOENT" || code === "ENOTDIR") return result;
    if (code === "ELOOP") {
      result.diagnostics.push(diagnostic(root, "error", "symlink_loop", `Source ${root} is a symlink loop; it contributes no skills`));
      return result;
    }
    result.diagnostics.push(diagnostic(root, "error", "source_unreadable", `Cannot read source ${root}: ${code}`));
    result.failed = true;
    return result;
  }
  if (!isDirectory(realRoot)) {
    result.diagnostics.push(diagnostic(root, "warning", "source_not_directory", `Source ${root} is not a directory; it contributes no skills`));
    return result;
  }
  const walk: Walk = { ...result, probe, visited: null, plain: [], realRoot, directories: 0, stopped: false, slicer, sourcePath: root };
  // A source root is nearly always a directory of skills rather than a skill: a quiet stat says
  // so without the failed opens, each a thrown error, that a reading probe would cost.
  const rootSkill = probe === statSkillFile || statSkillFile(realRoot, walk) ? probe(realRoot, walk) : null;
  if (rootSkill) walk.found.push(rootSkill);
  else await walkCategory(realRoot, 0, [realRoot], walk);
  return { found: walk.found, diagnostics: walk.diagnostics, failed: walk.failed };
}

async function walkCategory(dir: string, depth: number, chain: string[], walk: Walk): Promise<void> {
  const entries = readEntries(dir, walk);
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (walk.stopped) return;
    if (isSkipped(entry.name)) continue;
    // Plain concatenation: both parts are already clean, and path.join costs more than the stat.
    const child = dir + path.sep + entry.name;
    let real: string | null;
    if (entry.isSymbolicLink()) {
      real = followLink(child, dir, chain, walk);
      walk.visited ??= new Set([walk.realRoot, ...walk.plain]);
    } else real = entry.isDirectory() ? child : null;
    if (real === null) continue;
    if (walk.visited === null) walk.plain.push(real);
    else if (walk.visited.has(real)) continue;
    else walk.visited.add(real);
    if (++walk.directories > MAX_DIRECTORIES_PER_SOURCE) {
      walk.stopped = true;
      walk.diagnostics.push(
        diagnostic(
          walk.sourcePath,
          "warning",
          "directory_limit",
          `Stopped after ${MAX_DIRECTORIES_PER_SOURCE} directories in source ${walk.sourcePath}; skills beyond them are not loaded (split the source or point it at a narrower directory)`,
        ),
      );
      return;
    }
    const skill = walk.probe(real, walk);
    if (skill) walk.found.push(skill);
    else if (depth + 1 < MAX_SKILL_DEPTH) await walkCategory(real, depth + 1, [...chain, real], walk);
    else if (hasSubdirectory(real)) {
      walk.diagnostics.push(
        diagnostic(
          child,
          "warning",
          "depth_limit",
          `Not searched: ${child} is ${MAX_SKILL_DEPTH} levels below source ${walk.sourcePath}, the deepest a skill directory may sit`,
        ),
      );
    }
    // An await per entry costs a microtask turn each; yield only when the slice is used up.
    if (walk.slicer.due()) await walk.slicer.yield();
  }
}

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

/** Resolves a symlink to the real directory it names, or null (with a diagnostic when it is a loop or broken). */
function followLink(link: string, parent: string, chain: string[], walk: Walk): string | null {
  let real: string;
  try {
    real = fs.realpathSync.native(link);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ELOOP") {
      walk.diagnostics.push(diagnostic(link, "warning", "symlink_loop", `Symlink ${link} is a loop; not followed`));
    } else {
      walk.diagnostics.push(diagnostic(link, "warning", "symlink_broken", `Symlink ${link} points nowhere (${code}); not followed`));
    }
    return null;
  }
  if (!isDirectory(real)) return null;
  if (chain.includes(real) || parent.startsWith(real + path.sep)) {
    walk.diagnostics.push(
      diagnostic(link, "warning", "symlink_loop", `Symlink ${link} points back to ${real}, which contains it; not followed`),
    );
    return null;
  }
  return real;
}

/** The default probe: a `stat` of SKILL.md, then of skill.md. */
export function statSkillFile(dir: string, problems: WalkProblems): FoundSkill | null {
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
    if (stat) return { dir, skillFile, stamp: { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino } };
  }
  return null;
}

function hasSubdirectory(dir: string): boolean {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .some((entry) => !isSkipped(entry.name) && (entry.isDirectory() || entry.isSymbolicLink()));
  } catch {
    return false;
  }
}

function isSkipped(name: string): boolean {
  return name.startsWith(".") || name === "node_modules";
}


function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}
