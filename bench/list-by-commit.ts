/**
 * Fresh `skillport list --json` processes of several commits side by side: each commit's bundled
 * CLI is built alone (`git archive`, then this checkout's dependencies, `tsc` and the bundler),
 * and the builds take turns, run after run, on one generated tree, so the machine's drift falls on
 * all of them. Each build is timed with the parse cache off and with a cache a run before filled
 * (a directory of its own per build: a cache entry names the code that wrote it). Prints a
 * Markdown table of the medians, and each against the first commit given.
 *
 *   node --import tsx bench/list-by-commit.ts [--count 3000 | --corpus DIR] [--runs 10] COMMIT...
 */
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { createBenchTree, createCorpusTree } from "./bench-tree.js";
import { summarise } from "./measure.js";

const REPO = path.resolve(import.meta.dirname, "..");

/** Builds `commit`'s bundled CLI under `dir`; returns its entry. */
function build(commit: string, dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const archive = execFileSync("git", ["archive", commit, "src", "scripts", "tsconfig.json", "package.json"], { cwd: REPO, maxBuffer: 1 << 28 });
  execFileSync("tar", ["-x", "-C", dir], { input: archive });
  fs.symlinkSync(path.join(REPO, "node_modules"), path.join(dir, "node_modules"));
  // An older commit may not typecheck against today's dependencies' types; tsc emits regardless.
  spawnSync(process.execPath, [path.join(REPO, "node_modules", "typescript", "bin", "tsc"), "-p", path.join(dir, "tsconfig.json")], { stdio: "ignore" });
  const bundled = spawnSync(process.execPath, [path.join(dir, "scripts", "build-cli.mjs")], { cwd: dir, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  const cli = path.join(dir, "dist", "cli", "skillport.js");
  if (bundled.status !== 0 || !fs.existsSync(cli)) throw new Error(`${commit}: the build wrote no dist/cli/skillport.js: ${bundled.stderr.trim().split("\n").at(-1)}`);
  return cli;
}

function subject(commit: string): string {
  return execFileSync("git", ["log", "-1", "--format=%h %s", commit], { cwd: REPO, encoding: "utf8" }).trim().slice(0, 70).replace(/\|/g, "\\|");
}

/** One `list --json` process over `roots`; its wall time in milliseconds and how many skills it listed. */
function listOnce(cli: string, roots: readonly string[], cwd: string, cache: NodeJS.ProcessEnv): { ms: number; skills: number } {
  const args = [cli, "list", "--json", ...roots.flatMap((r) => ["--root", r])];
  const start = performance.now();
  const run = spawnSync(process.execPath, args, { cwd, env: { ...process.env, HOME: cwd, ...cache }, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 28, encoding: "utf8" });
  const ms = performance.now() - start;
  if (run.status !== 0 && run.status !== 1) throw new Error(`list exited ${run.status}: ${run.stderr.trim().split("\n").at(-1)}`);
  const listed = JSON.parse(run.stdout) as { skills?: unknown[] };
  return { ms, skills: Array.isArray(listed.skills) ? listed.skills.length : 0 };
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { count: { type: "string", default: "3000" }, corpus: { type: "string" }, runs: { type: "string", default: "10" } },
  });
  if (positionals.length === 0) throw new Error("usage: list-by-commit.ts [--count 3000 | --corpus DIR] [--runs 10] COMMIT...");
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "skillport-list-by-commit-"));
  try {
    const tree = values.corpus === undefined ? createBenchTree(path.join(scratch, "tree"), Number(values.count), "simple") : createCorpusTree(path.join(scratch, "tree"), path.resolve(values.corpus));
    const builds = positionals.map((commit, i) => {
      process.stderr.write(`building ${commit}\n`);
      const cacheDir = path.join(scratch, `cache-${i}`);
      return { commit, cli: build(commit, path.join(scratch, `build-${i}`)), off: [] as number[], warm: [] as number[], skills: 0, cacheEnv: { XDG_CACHE_HOME: cacheDir } as NodeJS.ProcessEnv };
    });
    const off: NodeJS.ProcessEnv = { SKILLPORT_PARSE_CACHE: "0" };
    // One run each first: the JIT's code cache, the file system's, and each build's parse cache filled.
    for (const b of builds) {
      listOnce(b.cli, tree.groups, tree.root, off);
      b.skills = listOnce(b.cli, tree.groups, tree.root, b.cacheEnv).skills;
    }
    const runs = Number(values.runs);
    for (let run = 1; run <= runs; run++) {
      process.stderr.write(`run ${run}/${runs}\n`);
      for (const b of builds) b.off.push(listOnce(b.cli, tree.groups, tree.root, off).ms);
      for (const b of builds) b.warm.push(listOnce(b.cli, tree.groups, tree.root, b.cacheEnv).ms);
    }
    const median = (v: number[]): number => summarise(v).median;
    const base = builds[0]!;
    const against = (v: number, b: number): string => `${v >= b ? "+" : ""}${((100 * (v - b)) / b).toFixed(1)}%`;
    const lines = [
      `${tree.groups.length} sources, ${builds[0]!.skills} skills listed, ${runs} runs per build and cache setting, alternated; medians`,
      "",
      "| commit | cache off, ms | against the first | warm cache, ms | against the first |",
      "|---|---|---|---|---|",
      ...builds.map(
        (b) => `| ${subject(b.commit)} | ${median(b.off).toFixed(0)} | ${against(median(b.off), median(base.off))} | ${median(b.warm).toFixed(0)} | ${against(median(b.warm), median(base.warm))} |`,
      ),
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main();
