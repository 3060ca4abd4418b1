/**
 * A source walked again only where it changed (a partial rescan): each changed directory's
 * subtree is walked on its own and takes the place of what the last walk found there, in the
 * order a whole walk would have found it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { MAX_SKILL_DEPTH, type FoundSkill, type SourceDiscovery } from "./discover.js";
import type { TimeSlicer } from "./time-slice.js";
import { walkHere, type SourceWalk, type WalkInput } from "./source-walk.js";

/** What a walk said about its source besides the skills it found. */
export type WalkReport = Pick<SourceDiscovery, "diagnostics" | "privateRefusals">;
export const NO_REPORT: WalkReport = Object.freeze({ diagnostics: [], privateRefusals: [] });

/** Whether `dir` is `root` or lies inside it. */
export function isWithin(dir: string, root: string): boolean {
  // The separator after the root first: a sibling (the common case, thousands per partial
  // rescan) fails it at once, before a comparison of the long prefix they share.
  return dir === root || (dir.charCodeAt(root.length) === SEP_CODE && dir.startsWith(root));
}

const SEP_CODE = path.sep.charCodeAt(0);

/**
 * A source walked again only where it changed: each changed directory's subtree is walked as a
 * source of its own and takes the place of what the last walk found there; everything else
 * stays as found. Null when a changed directory is the source root itself (walk it whole).
 */
export async function walkChanged<Hint>(
  sourcePath: string,
  changed: readonly string[],
  previous: readonly FoundSkill[],
  /** What the caller keeps beside each of `previous`, by place; carried to each skill's new place (fresh ones get none). */
  previousHints: ReadonlyArray<Hint | undefined>,
  previousReport: WalkReport,
  inputFor: (dir: string, inside: readonly FoundSkill[]) => WalkInput,
  slicer: TimeSlicer,
): Promise<{ walk: SourceWalk; gone: string[]; hints: Array<Hint | undefined> } | null> {
  let realRoot: string;
  try {
    realRoot = fs.realpathSync.native(sourcePath);
  } catch {
    return null;
  }
  // A directory inside another changed one is covered by that one's walk.
  const roots = [...new Set(changed)].filter((dir, _, all) => !all.some((other) => other !== dir && isWithin(dir, other)));
  if (roots.some((dir) => dir === realRoot || isWithin(realRoot, dir))) return null;
  let found = previous.slice();
  let hints: Array<Hint | undefined> = previousHints.length === previous.length ? previousHints.slice() : new Array<Hint | undefined>(previous.length);
  let diagnostics = previousReport.diagnostics.slice();
  let privateRefusals = previousReport.privateRefusals.slice();
  let reads = 0;
  let failed = false;
  const gone: string[] = [];
  for (const dir of roots) {
    // One pass over the source's skills, not one per question: which the last walk found inside
    // `dir`, which elsewhere, and where the first inside one stood.
    const inside: FoundSkill[] = [];
    const kept: FoundSkill[] = [];
    const keptHints: Array<Hint | undefined> = [];
    let at = -1;
    for (let i = 0; i < found.length; i++) {
      const skill = found[i]!;
      if (!isWithin(skill.dir, dir)) {
        kept.push(skill);
        keptHints.push(hints[i]);
      } else {
        if (at < 0) at = kept.length;
        inside.push(skill);
      }
    }
    const walk = await walkHere(inputFor(dir, inside), slicer);
    reads += walk.reads;
    // Unreadable now (not missing): keep what was found there, as a whole walk would.
    if (walk.discovery.failed) {
      failed = true;
      diagnostics.push(...walk.discovery.diagnostics);
      continue;
    }
    const fresh = walk.discovery.found.filter((skill) => !isWithin(skill.dir, realRoot) || depthBelow(realRoot, skill.dir) <= MAX_SKILL_DEPTH);
    const stillThere = new Set(fresh.map((skill) => skill.skillFile));
    for (const skill of inside) if (!stillThere.has(skill.skillFile)) gone.push(skill.skillFile);
    const insertAt = at >= 0 ? at : placeInWalkOrder(kept, dir);
    found = kept.slice(0, insertAt).concat(fresh, kept.slice(insertAt));
    hints = keptHints.slice(0, insertAt).concat(new Array<Hint | undefined>(fresh.length).fill(undefined), keptHints.slice(insertAt));
    // A path that is a file now simply holds no skills; as a source it would be "not a directory".
    const fromWalk = walk.discovery.diagnostics.filter((d) => !(d.code === "source_not_directory" && d.path === dir));
    diagnostics = diagnostics.filter((d) => !isWithin(d.path, dir)).concat(fromWalk);
    privateRefusals = privateRefusals.filter((r) => !isWithin(r.diagnostic.path, dir)).concat(walk.discovery.privateRefusals);
  }
  return { walk: { discovery: { found, diagnostics, privateRefusals, failed }, reads }, gone, hints };
}

/** Levels of `dir` below `root` (a direct child is 1). */
function depthBelow(root: string, dir: string): number {
  let depth = 0;
  for (let i = root.length; i < dir.length; i++) if (dir.charCodeAt(i) === SEP_CODE) depth += 1;
  return depth;
}

/** Where a new directory's skills go among `found`: a walk visits names in sorted order, depth first. */
function placeInWalkOrder(found: readonly FoundSkill[], dir: string): number {
  const parts = dir.split(path.sep);
  const index = found.findIndex((skill) => comparePaths(skill.dir.split(path.sep), parts) > 0);
  return index < 0 ? found.length : index;
}

function comparePaths(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length - b.length;
}
