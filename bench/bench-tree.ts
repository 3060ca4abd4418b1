/**
 * One generated skill tree as every benchmark process sees it: the directories that hold skills
 * (one source each), every SKILL.md, and the description each skill really has, so a loader's
 * answers can be checked, not only timed.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import jsYaml from "js-yaml";
import { generateTree, realShapeShares, type TreeShape } from "./generate-tree.js";

export interface BenchTree {
  root: string;
  count: number;
  shape: TreeShape;
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

export function writeTreeManifest(tree: BenchTree): string {
  const file = path.join(tree.root, "manifest.json");
  fs.writeFileSync(file, JSON.stringify(tree));
  return file;
}

export function readTreeManifest(file: string): BenchTree {
  return JSON.parse(fs.readFileSync(file, "utf8")) as BenchTree;
}
