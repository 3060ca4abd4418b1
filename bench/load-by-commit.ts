/**
 * The in-process cold load of several commits side by side, to find which one made loading
 * slower: each commit's `src/` is built alone (`git archive`, then this checkout's `tsc` and
 * dependencies), and the builds take turns, round after round, on one generated simple tree, so
 * the machine's drift falls on all of them. Per build and round: `load-cpu-child.mjs` (9 loads,
 * each over the read floor just before it). Prints a Markdown table of the medians over rounds.
 *
 *   node --import tsx bench/load-by-commit.ts [--count 3000 | --corpus DIR] [--rounds 3] [--loads 9] COMMIT...
 *
 * `--corpus DIR` loads a copy of a folder of real skills instead of the generated tree.
 */
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { createBenchTree, createCorpusTree, writeTreeManifest } from "./bench-tree.js";
import { summarise } from "./measure.js";

const REPO = path.resolve(import.meta.dirname, "..");
const CHILD = path.join(import.meta.dirname, "load-cpu-child.mjs");

interface Reading {
  found: number;
  cpuRatio: number;
  minCpuRatio: number;
  wallRatio: number;
  loadCpuMs: number;
}

/** Builds `commit`'s src/ under `dir`; returns the built index.js. */
function build(commit: string, dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const archive = execFileSync("git", ["archive", commit, "src", "tsconfig.json", "package.json"], { cwd: REPO, maxBuffer: 1 << 28 });
  execFileSync("tar", ["-x", "-C", dir], { input: archive });
  fs.symlinkSync(path.join(REPO, "node_modules"), path.join(dir, "node_modules"));
  // An older commit may not typecheck against today's dependencies' types; tsc emits regardless.
  spawnSync(process.execPath, [path.join(REPO, "node_modules", "typescript", "bin", "tsc"), "-p", path.join(dir, "tsconfig.json")], { stdio: "ignore" });
  const index = path.join(dir, "dist", "src", "index.js");
  if (!fs.existsSync(index)) throw new Error(`${commit}: the build wrote no dist/src/index.js`);
  return index;
}

function subject(commit: string): string {
  return execFileSync("git", ["log", "-1", "--format=%h %s", commit], { cwd: REPO, encoding: "utf8" }).trim().slice(0, 80).replace(/\|/g, "\\|");
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { count: { type: "string", default: "3000" }, corpus: { type: "string" }, rounds: { type: "string", default: "3" }, loads: { type: "string", default: "9" } },
  });
  if (positionals.length === 0) throw new Error("usage: load-by-commit.ts [--count 3000 | --corpus DIR] [--rounds 3] [--loads 9] COMMIT...");
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "skillport-load-by-commit-"));
  try {
    const tree = values.corpus === undefined ? createBenchTree(path.join(scratch, "tree"), Number(values.count), "simple") : createCorpusTree(path.join(scratch, "tree"), path.resolve(values.corpus));
    const manifest = writeTreeManifest(tree);
    const builds = positionals.map((commit, i) => {
      process.stderr.write(`building ${commit}\n`);
      return { commit, index: build(commit, path.join(scratch, `build-${i}`)), readings: [] as Reading[] };
    });
    for (let round = 1; round <= Number(values.rounds); round++) {
      for (const b of builds) {
        process.stderr.write(`round ${round}: ${b.commit}\n`);
        const child = spawnSync(process.execPath, ["--expose-gc", CHILD, b.index, manifest, values.loads], { encoding: "utf8", maxBuffer: 1 << 24 });
        if (child.status !== 0) throw new Error(`${b.commit}: ${child.stderr.trim().split("\n").at(-1)}`);
        b.readings.push(JSON.parse(child.stdout.trim().split("\n").at(-1)!) as Reading);
      }
    }
    const median = (values: number[]) => summarise(values).median;
    const lines = [
      "| commit | CPU × floor (median) | CPU × floor (min over min) | wall × floor | load CPU ms | skills found |",
      "|---|---|---|---|---|---|",
      ...builds.map(
        (b) =>
          `| ${subject(b.commit)} | ${median(b.readings.map((r) => r.cpuRatio)).toFixed(2)}× | ${median(b.readings.map((r) => r.minCpuRatio)).toFixed(2)}× | ${median(
            b.readings.map((r) => r.wallRatio),
          ).toFixed(2)}× | ${median(b.readings.map((r) => r.loadCpuMs)).toFixed(0)} | ${b.readings[0]!.found} |`,
      ),
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main();
