/**
 * One generated skill tree as every benchmark process sees it: the directories that hold skills
 * (one source each), every SKILL.md, and the description each skill really has, so a loader's
 * answers can be checked, not only timed.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import jsYaml from "js-yaml";
import { generateTree, realShapeShares, type TreeShape } from "./generate-tree.js";

/** A generated tree's shape, or `corpus`: a tree of real skills copied from disk (`--corpus DIR`). */
export type BenchShape = TreeShape | "corpus";

export interface BenchTree {
  root: string;
  count: number;
  shape: BenchShape;
  /** For the real-shaped tree: the share of files with each frontmatter shape. */
  shapeShares: Record<string, number> | null;
  /** Directories that directly hold skills; each is one source. */
  groups: string[];
  skillDirs: string[];
  skillFiles: string[];
  skillFileBytes: number;
  /** JSON file of `{ [name]: description }` as a full YAML parser reads each file. */
  referenceFile: string;
}

/**
 * Registries bound the directories of one source (SPEC §2: 2,000), so large trees are split
 * into groups of this many skills and every loader is pointed at the same groups.
 */
export const SKILLS_PER_GROUP = 1000;

export function createBenchTree(root: string, count: number, shape: TreeShape = "simple"): BenchTree {
  const generated = generateTree(root, { count, perGroup: SKILLS_PER_GROUP, shape });
  const skillFiles = generated.skillDirs.map((dir) => path.join(dir, "SKILL.md"));
  const reference: Record<string, string> = {};
  for (const file of skillFiles) {
    const text = fs.readFileSync(file, "utf8");
    const end = text.indexOf("\n---\n", 3);
    const data = jsYaml.load(text.slice(4, end)) as { name: string; description: string };
    reference[data.name] = data.description;
  }
  const referenceFile = path.join(root, "reference.json");
  fs.writeFileSync(referenceFile, JSON.stringify(reference));
  return {
    root,
    count,
    shape,
    shapeShares: shape === "real" ? realShapeShares(skillFiles) : null,
    groups: generated.groups,
    skillDirs: generated.skillDirs,
    skillFiles,
    skillFileBytes: generated.skillFileBytes,
    referenceFile,
  };
}

/** Deepest level below the corpus at which a SKILL.md is looked for. */
const CORPUS_MAX_DEPTH = 8;

/** The frontmatter's name and description as js-yaml reads them, or null when it cannot. */
function corpusFrontmatter(text: string): { name: string; description: string | null } | null {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\s*(?:\r?\n|$)/.exec(text);
  try {
    const data = match ? (jsYaml.load(match[1]!) as { name?: unknown; description?: unknown } | null) : null;
    if (!data || typeof data.name !== "string") return null;
    return { name: data.name, description: typeof data.description === "string" ? data.description : null };
  } catch {
    return null;
  }
}

/** Every directory holding a SKILL.md below `dir`, in sorted path order (links not followed; `.git` and node_modules left out). */
function corpusSkillDirs(dir: string, level = 0, found: string[] = []): string[] {
  if (fs.existsSync(path.join(dir, "SKILL.md"))) found.push(dir);
  if (level >= CORPUS_MAX_DEPTH) return found;
  const entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.isDirectory() && entry.name !== ".git" && entry.name !== "node_modules") corpusSkillDirs(path.join(dir, entry.name), level + 1, found);
  }
  return found;
}

/**
 * A tree of real skills from `corpusDir` (say, a folder of cloned skill repositories), copied
 * under `root` so the benchmark's edits never touch the original. Every SKILL.md down to eight
 * levels counts, wherever it sits (`skills/`, `.claude/skills/`, a category folder); the groups
 * (one source each) are the folders that directly hold skills not inside another skill, as a
 * user would point an agent at them, so loaders that look one level down find them too, and
 * skills nested inside a skill are left to the loaders that look there. Names are unique in the
 * copy: a skill whose name (its folder's, when js-yaml cannot read its frontmatter) came earlier
 * in path order is removed from it, so every loader is asked for the same skills and each
 * description has one right answer: what js-yaml reads (none when it cannot read the file).
 */
export function createCorpusTree(root: string, corpusDir: string): BenchTree {
  const copy = path.join(root, "corpus");
  fs.cpSync(corpusDir, copy, { recursive: true, verbatimSymlinks: true });
  const seen = new Set<string>();
  for (const dir of corpusSkillDirs(copy)) {
    if (!fs.existsSync(dir)) continue;
    const name = corpusFrontmatter(fs.readFileSync(path.join(dir, "SKILL.md"), "utf8"))?.name ?? path.basename(dir);
    if (seen.has(name)) fs.rmSync(dir, { recursive: true, force: true });
    else seen.add(name);
  }
  const skillDirs = corpusSkillDirs(copy);
  const isInsideSkill = (dir: string) => skillDirs.some((skill) => dir.startsWith(skill + path.sep));
  const groups = [...new Set(skillDirs.filter((dir) => !isInsideSkill(dir)).map((dir) => path.dirname(dir)))].sort();
  const skillFiles = skillDirs.map((dir) => path.join(dir, "SKILL.md"));
  const reference: Record<string, string> = {};
  let skillFileBytes = 0;
  for (const file of skillFiles) {
    const text = fs.readFileSync(file, "utf8");
    skillFileBytes += Buffer.byteLength(text);
    const data = corpusFrontmatter(text);
    if (data?.description != null) reference[data.name] = data.description;
  }
  const referenceFile = path.join(root, "reference.json");
  fs.writeFileSync(referenceFile, JSON.stringify(reference));
  return {
    root,
    count: skillFiles.length,
    shape: "corpus",
    shapeShares: realShapeShares(skillFiles),
    groups,
    skillDirs,
    skillFiles,
    skillFileBytes,
    referenceFile,
  };
}

export function writeTreeManifest(tree: BenchTree): string {
  const file = path.join(tree.root, "manifest.json");
  fs.writeFileSync(file, JSON.stringify(tree));
  return file;
}

/** The runtime options that load `tree` as a user's global skills, nothing else in view. */
export function treeRuntimeOptions(tree: BenchTree): { sources: Array<{ path: string; origin: "global" }>; cwd: string; home: string; env: Record<string, string> } {
  return { sources: tree.groups.map((group) => ({ path: group, origin: "global" as const })), cwd: tree.root, home: tree.root, env: {} };
}

export function readTreeManifest(file: string): BenchTree {
  return JSON.parse(fs.readFileSync(file, "utf8")) as BenchTree;
}
