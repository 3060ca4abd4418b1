/**
 * Generates a realistic skill tree for benchmarks, deterministically (same seed, same bytes):
 * descriptions of 150–400 characters in plain, folded (`>-`) and double-quoted styles, bodies of
 * 2–8 KB, `license` and a two-key `metadata` map on some skills, and `references/` plus
 * `scripts/` on a third of them.
 *
 *   npx tsx bench/generate-tree.ts DIR [count] [perGroup]
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
}

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
    const style = i % 5;
    const lines = ["---", `name: ${name}`];
    if (style === 3) lines.push("description: >-", ...wrap(description, 80).map((l) => `  ${l}`));
    else if (style === 4) lines.push(`description: "${description.replace(/\\/g, "\\\\").replace(/"/g, '\\"')} \\"Quoted\\" part."`);
    else lines.push(`description: ${description}`);
    if (i % 3 === 1) lines.push("license: Apache-2.0");
    if (i % 4 === 2) lines.push("metadata:", `  author: team-${int(1, 40)}`, `  version: "${int(1, 9)}.${int(0, 20)}"`);
    lines.push("---", "");

    const bodyTarget = int(2048, 8192);
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
  const [dir, count = "1000", perGroup] = process.argv.slice(2);
  if (!dir) {
    process.stderr.write("usage: generate-tree.ts DIR [count] [perGroup]\n");
    process.exit(2);
  }
  const tree = generateTree(path.resolve(dir), { count: Number(count), ...(perGroup ? { perGroup: Number(perGroup) } : {}) });
  process.stdout.write(`${tree.skillDirs.length} skills in ${tree.groups.length} group(s) under ${tree.root}\n`);
}
