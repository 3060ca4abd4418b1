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

/** Deepest level below a source at which a SKILL.md is looked for (skillport's and Codex's bound). */
const CORPUS_MAX_DEPTH = 6;

/**
 * A tree of real skills from `corpusDir`, copied under `root` (links kept as they are), so the
 * benchmark's edits and scratch files never touch the original. `corpusDir` holds source folders
 * (each a directory of skills, nested or not), or is itself one source: skill folders directly
 * inside it, or a SKILL.md of its own. Every SKILL.md down to six levels below a source counts
 * (links not followed, dot-folders and node_modules left out); the reference description of each
 * is what js-yaml reads from its frontmatter, and a file js-yaml refuses has none.
 */
export function createCorpusTree(root: string, corpusDir: string): BenchTree {
  const copy = path.join(root, "corpus");
  fs.cpSync(corpusDir, copy, { recursive: true, verbatimSymlinks: true });
  const children = fs
    .readdirSync(copy, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
    .map((entry) => path.join(copy, entry.name))
    .sort();
  const isOneSource = fs.existsSync(path.join(copy, "SKILL.md")) || children.some((dir) => fs.existsSync(path.join(dir, "SKILL.md")));
  const groups = isOneSource ? [copy] : children;
  const skillDirs: string[] = [];
  const visit = (dir: string, level: number) => {
    if (fs.existsSync(path.join(dir, "SKILL.md"))) skillDirs.push(dir);
    if (level >= CORPUS_MAX_DEPTH) return;
    const entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.isDirectory() && !entry.name.startsWith(".") && entry.name !== "node_modules") visit(path.join(dir, entry.name), level + 1);
    }
  };
  for (const group of groups) visit(group, 0);
  const skillFiles = skillDirs.map((dir) => path.join(dir, "SKILL.md"));
  const reference: Record<string, string> = {};
  let skillFileBytes = 0;
  for (const file of skillFiles) {
    const text = fs.readFileSync(file, "utf8");
    skillFileBytes += Buffer.byteLength(text);
    const match = /^---\r?\n([\s\S]*?)\r?\n---\s*(?:\r?\n|$)/.exec(text);
    try {
      const data = match ? (jsYaml.load(match[1]!) as { name?: unknown; description?: unknown } | null) : null;
      if (data && typeof data.name === "string" && typeof data.description === "string") reference[data.name] = data.description;
    } catch {
      // js-yaml refuses it: no reference description, so no loader can be right or wrong about it.
    }
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

export function readTreeManifest(file: string): BenchTree {
  return JSON.parse(fs.readFileSync(file, "utf8")) as BenchTree;
}
