/**
 * Generates skill trees for benchmarks, deterministically (same seed, same bytes), in two shapes:
 *
 * - `simple`: descriptions of 150–400 characters in plain, folded (`>-`) and double-quoted
 *   styles, bodies of 2–8 KB, `license` and a two-key `metadata` map on some skills.
 * - `real`: frontmatter shaped like the public SKILL.md files PERFORMANCE.md measured ("What real
 *   skills look like"): quoted scalars, block and flow lists, nested mappings, block scalars and
 *   multi-line plain descriptions, and the keys beyond name/description, each in about the share
 *   of files measured there; file sizes around a 5.8 KB median with a 14 KB p90 and one 292 KB
 *   file. `realShapeShares` reports the shares a generated tree really has.
 *
 * Both put `references/` plus `scripts/` on a third of the skills.
 *
 *   npx tsx bench/generate-tree.ts DIR [count] [perGroup] [simple|real]
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { seededRandom } from "./seeded-random.js";

export interface GenerateOptions {
  count: number;
  seed?: number;
  /**
   * Skills per group directory (`group-000/`, `group-001/`, …); absent puts every skill directly
   * in the root. Registries bound the directories per source, so large trees need groups.
   */
  perGroup?: number;
  /** Default `simple`. */
  shape?: TreeShape;
}

export type TreeShape = "simple" | "real";

export interface GeneratedTree {
  root: string;
  /** Directories that directly hold skills: the root, or each group directory. */
  groups: string[];
  /** Every skill directory, in generation order. */
  skillDirs: string[];
  /** Total bytes of all SKILL.md files. */
  skillFileBytes: number;
}

const WORDS = (
  "analyse build check convert deploy draft extract format generate index inspect migrate " +
  "monitor normalise package parse plan profile publish refactor render report review scan " +
  "schedule sign summarise sync test trace translate upload validate verify archive audit " +
  "benchmark catalog chart compile compress debug document encode export filter import lint " +
  "merge model optimise query record release resolve sample search shard snapshot split stream " +
  "table template tokenize transform tune version visualise workflow spreadsheet invoice contract " +
  "dataset pipeline dashboard manifest changelog diagram schema endpoint cluster container"
).split(" ");

export function generateTree(root: string, options: GenerateOptions): GeneratedTree {
  const rand = seededRandom(options.seed ?? 20261130);
  const int = (min: number, max: number) => min + Math.floor(rand() * (max - min + 1));
  const word = () => WORDS[int(0, WORDS.length - 1)]!;
  const sentence = (min: number, max: number) => {
    const words = Array.from({ length: int(min, max) }, word);
    return words.join(" ").replace(/^./, (c) => c.toUpperCase()) + ".";
  };
  const textOfLength = (min: number, max: number) => {
    const target = int(min, max);
    let text = "";
    while (text.length < target) text += (text ? " " : "") + sentence(6, 14);
    return text.slice(0, target).trimEnd().replace(/[ .]*$/, ".");
  };

  fs.mkdirSync(root, { recursive: true });
  const tree: GeneratedTree = { root, groups: [], skillDirs: [], skillFileBytes: 0 };
  for (let i = 0; i < options.count; i++) {
    let parent = root;
    if (options.perGroup) {
      parent = path.join(root, `group-${String(Math.floor(i / options.perGroup)).padStart(3, "0")}`);
    }
    if (tree.groups.at(-1) !== parent) {
      fs.mkdirSync(parent, { recursive: true });
      tree.groups.push(parent);
    }
    const name = `${word()}-${word()}-${String(i).padStart(5, "0")}`;
    const dir = path.join(parent, name);
    fs.mkdirSync(dir);

    const description = textOfLength(150, 400);
    const lines = ["---", `name: ${name}`];
    if (options.shape === "real") lines.push(...realFrontmatter(description, rand, word));
    else {
      const style = i % 5;
      if (style === 3) lines.push("description: >-", ...wrap(description, 80).map((l) => `  ${l}`));
      else if (style === 4) lines.push(`description: "${description.replace(/\\/g, "\\\\").replace(/"/g, '\\"')} \\"Quoted\\" part."`);
      else lines.push(`description: ${description}`);
      if (i % 3 === 1) lines.push("license: Apache-2.0");
      if (i % 4 === 2) lines.push("metadata:", `  author: team-${int(1, 40)}`, `  version: "${int(1, 9)}.${int(0, 20)}"`);
    }
    lines.push("---", "");

    const bodyTarget = options.shape === "real" ? realBodyBytes(i, rand) : int(2048, 8192);
    let body = `# ${name}\n\n`;
    let section = 1;
    while (body.length < bodyTarget) {
      body += `## Step ${section++}\n\n${textOfLength(200, 600)}\n\n`;
      body += `- ${sentence(4, 9)}\n- ${sentence(4, 9)}\n- ${sentence(4, 9)}\n\n`;
    }
    const text = lines.join("\n") + body.slice(0, bodyTarget) + "\n";
    fs.writeFileSync(path.join(dir, "SKILL.md"), text);
    tree.skillFileBytes += Buffer.byteLength(text);

    if (i % 3 === 0) {
      fs.mkdirSync(path.join(dir, "references"));
      fs.writeFileSync(path.join(dir, "references", "guide.md"), `# Guide\n\n${textOfLength(400, 1200)}\n`);
      fs.mkdirSync(path.join(dir, "scripts"));
      fs.writeFileSync(path.join(dir, "scripts", "run.sh"), `#!/bin/sh\necho "${name}"\n`, { mode: 0o755 });
    }
    tree.skillDirs.push(dir);
  }
  return tree;
}

/**
 * Frontmatter after `name:` in the shapes and shares PERFORMANCE.md measured on 10,512 public
 * SKILL.md files. Each key is drawn on its own with its measured share, and written in the styles
 * that give each shape about its share of files: double-quoted 47%, block list 37%, single-quoted
 * 35%, nested mapping 33%, flow list 19%, block scalar 9%, multi-line plain description 5%, flow
 * mapping 1.4% (`realShapeShares` checks a tree).
 */
function realFrontmatter(description: string, rand: () => number, word: () => string): string[] {
  const chance = (p: number) => rand() < p;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const lines: string[] = [];
  const roll = rand();
  if (roll < 0.09) lines.push(`description: ${pick([">", "|", ">-"])}`, ...wrap(description, 76).map((l) => `  ${l}`));
  else if (roll < 0.14) lines.push(...wrap(`description: ${description.replace(/: /g, " - ")}`, 90).map((l, k) => (k === 0 ? l : `  ${l}`)));
  else if (roll < 0.3) lines.push(`description: "${description} Use when the user says \\"${word()} it\\"."`);
  else if (roll < 0.4) lines.push(`description: '${description} It''s for ${word()} work.'`);
  else lines.push(`description: ${description}`);
  if (chance(0.53)) lines.push(`license: ${pick(["MIT", "Apache-2.0", "MIT", '"Proprietary. LICENSE.txt has complete terms"'])}`);
  if (chance(0.46)) lines.push(`version: ${pick(['"1.0"', "1.2.0", "'2.1.3'", "0.4.1", "2.0.0"])}`);
  const authored = chance(0.44);
  if (authored) {
    if (chance(0.25)) lines.push("author:", `  name: ${word()} ${word()}`, `  email: ${word()}@example.com`);
    else lines.push(`author: ${pick([`${word()}-team`, `"${word()} ${word()} <${word()}@example.com>"`, `'${word()} ${word()}'`, `${word()} ${word()}`])}`);
  }
  if (chance(0.41)) {
    const tools = ["Read", "Write", "Edit", "Bash", "Grep", "Glob", "WebFetch"].filter(() => chance(0.45)).concat("Read");
    const style = rand();
    if (style < 0.25) lines.push("allowed-tools:", ...tools.map((t) => `  - ${t}`));
    else if (style < 0.35) lines.push(`allowed-tools: [${tools.join(", ")}]`);
    else lines.push(`allowed-tools: ${tools.join(" ")}`);
  }
  if (chance(0.37)) {
    const tags = Array.from({ length: 2 + Math.floor(rand() * 4) }, word);
    if (chance(0.5)) lines.push("tags:", ...tags.map((t) => `  - ${t}`));
    else lines.push(`tags: [${tags.join(", ")}]`);
  }
  if (chance(0.28)) lines.push(`compatibility: ${pick([`"Requires ${word()} 3.10+ and network access"`, `'Claude Code, ${word()}'`, `Works with any ${word()} agent`])}`);
  if (chance(0.16)) {
    lines.push("requires:", "  bins:", `    - ${word()}`, `    - ${word()}`, `  env: ${word().toUpperCase().replace(/[^A-Z]/g, "")}_KEY`);
  }
  if (chance(0.11)) {
    if (chance(0.12)) lines.push(`metadata: {author: ${word()}, version: "1.0"}`);
    else lines.push("metadata:", `  author: ${word()}`, `  version: "${Math.floor(rand() * 9) + 1}.0"`, `  category: ${word()}`);
  } else if (chance(0.002)) lines.push(`hooks: {on-load: ${word()}}`);
  return lines;
}

/** A body size with PERFORMANCE.md's median (~5.8 KB) and p90 (~14 KB); one file is the measured maximum, 292 KB. */
function realBodyBytes(index: number, rand: () => number): number {
  if (index === 7) return 292 * 1024;
  // A log-normal size: the sum of twelve uniforms less six is close enough to a standard normal.
  let normal = -6;
  for (let k = 0; k < 12; k++) normal += rand();
  return Math.max(800, Math.min(200_000, Math.round(5300 * Math.exp(0.69 * normal))));
}

/** The share of SKILL.md files in `files` whose frontmatter has each shape PERFORMANCE.md counts. */
export function realShapeShares(files: readonly string[]): Record<string, number> {
  const shapes: Record<string, RegExp> = {
    "double-quoted scalar": /^\s*(?:- |[\w-]+: )"/m,
    "block list": /^\s*- /m,
    "single-quoted scalar": /^\s*(?:- |[\w-]+: )'/m,
    "nested mapping": /^[\w-]+:\s*\n\s+[\w-]+:/m,
    "flow sequence": /^\s*[\w-]+: \[/m,
    "block scalar": /^\s*[\w-]+: [|>]-?\s*$/m,
    "multi-line plain description": /^description: [^"'|>\s].*\n\s+\S/m,
    "flow mapping": /^\s*[\w-]+: \{/m,
  };
  const counts = Object.fromEntries(Object.keys(shapes).map((k) => [k, 0]));
  for (const file of files) {
    const text = fs.readFileSync(file, "utf8");
    const frontmatter = text.slice(4, text.indexOf("\n---\n", 3) + 1);
    for (const [shape, pattern] of Object.entries(shapes)) if (pattern.test(frontmatter)) counts[shape]!++;
  }
  return Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v / Math.max(1, files.length)]));
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const w of text.split(" ")) {
    if (line && line.length + 1 + w.length > width) {
      lines.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) lines.push(line);
  return lines;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const [dir, count = "1000", perGroup, shape = "simple"] = process.argv.slice(2);
  if (!dir || (shape !== "simple" && shape !== "real")) {
    process.stderr.write("usage: generate-tree.ts DIR [count] [perGroup] [simple|real]\n");
    process.exit(2);
  }
  const tree = generateTree(path.resolve(dir), { count: Number(count), shape, ...(perGroup ? { perGroup: Number(perGroup) } : {}) });
  process.stdout.write(`${tree.skillDirs.length} ${shape} skills in ${tree.groups.length} group(s) under ${tree.root}\n`);
  if (shape === "real") process.stdout.write(`${JSON.stringify(realShapeShares(tree.skillDirs.map((d) => path.join(d, "SKILL.md"))), null, 2)}\n`);
}
