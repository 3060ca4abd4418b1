/**
 * Fresh `skillport list --json` processes of several commits side by side: each commit's bundled
 * CLI is built alone (`git archive`, then this checkout's dependencies, `tsc` and the bundler),
 * and the builds take turns, run after run, on one generated tree, so the machine's drift falls on
 * all of them. Each build is timed with the parse cache off and with a cache a run before filled
 * (a directory of its own per build: a cache entry names the code that wrote it). Prints a
 * Markdown table of the medians, and each against the first commit given: wall time, and the
 * process's CPU time (what the children waited for used, from /proc/self/stat), which a busy
 * machine disturbs less than the wall clock.
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

// Linux's clock ticks per second for /proc times (USER_HZ, 100 on every architecture Node runs on).
const TICKS_PER_SECOND = 100;

/** CPU milliseconds used by the children this process has waited for (fields 16 and 17 of /proc/self/stat). */
function childrenCpuMs(): number {
  const stat = fs.readFileSync("/proc/self/stat", "utf8");
  // The command name may hold spaces; the fields after it start past its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND;
}

/** One `list --json` process over `roots`: its wall and CPU milliseconds, and how many skills it listed. */
function listOnce(cli: string, roots: readonly string[], cwd: string, cache: NodeJS.ProcessEnv): { ms: number; cpuMs: number; skills: number } {
  const args = [cli, "list", "--json", ...roots.flatMap((r) => ["--root", r])];
  const cpuBefore = childrenCpuMs();
  const start = performance.now();
  const run = spawnSync(process.execPath, args, { cwd, env: { ...process.env, HOME: cwd, ...cache }, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 28, encoding: "utf8" });
  const ms = performance.now() - start;
  const cpuMs = childrenCpuMs() - cpuBefore;
  if (run.status !== 0 && run.status !== 1) throw new Error(`list exited ${run.status}: ${run.stderr.trim().split("\n").at(-1)}`);
  const listed = JSON.parse(run.stdout) as { skills?: unknown[] };
  return { ms, cpuMs, skills: Array.isArray(listed.skills) ? listed.skills.length : 0 };
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
      return { commit, cli: build(commit, path.join(scratch, `build-${i}`)), off: [] as number[], warm: [] as number[], offCpu: [] as number[], warmCpu: [] as number[], skills: 0, cacheEnv: { XDG_CACHE_HOME: cacheDir } as NodeJS.ProcessEnv };
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
      for (const b of builds) {
        const r = listOnce(b.cli, tree.groups, tree.root, off);
        b.off.push(r.ms);
        b.offCpu.push(r.cpuMs);
      }
      for (const b of builds) {
        const r = listOnce(b.cli, tree.groups, tree.root, b.cacheEnv);
        b.warm.push(r.ms);
        b.warmCpu.push(r.cpuMs);
      }
    }
    const median = (v: number[]): number => summarise(v).median;
    const base = builds[0]!;
    const against = (v: number, b: number): string => `${v >= b ? "+" : ""}${((100 * (v - b)) / b).toFixed(1)}%`;
    const lines = [
      `${tree.groups.length} sources, ${builds[0]!.skills} skills listed, ${runs} runs per build and cache setting, alternated; medians`,
      "",
      "| commit | cache off: wall ms | CPU ms | CPU against the first | warm cache: wall ms | CPU ms | CPU against the first |",
      "|---|---|---|---|---|---|---|",
      ...builds.map((b) => {
        const cell = (wall: number[], cpu: number[], baseCpu: number[]): string =>
          `${median(wall).toFixed(0)} | ${median(cpu).toFixed(0)} | ${against(median(cpu), median(baseCpu))}`;
        return `| ${subject(b.commit)} | ${cell(b.off, b.offCpu, base.offCpu)} | ${cell(b.warm, b.warmCpu, base.warmCpu)} |`;
      }),
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main();
