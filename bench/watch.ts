/**
 * Watching at scale: what `watch: true` costs to set up over a loaded tree, and what one edit
 * costs to refresh once a watcher has said which skill directory changed. Each way of watching
 * runs in a fresh process (so memory figures are its own), over the same tree:
 *
 * - `floor`: a bare loop of `fs.watch` over the directories skillport watches (the root of each
 *   source and each skill directory), nothing else;
 * - `skillport`: `watchSources` as the runtime calls it, until every directory is watched;
 * - `recursive`: Node's own `fs.watch(source, { recursive: true })` per source, the design this
 *   replaced (on Linux it is built in JavaScript from a watcher per entry).
 *
 * Memory is the growth of the JavaScript heap plus external memory after a full collection, and
 * of the resident set, from just before set-up to just after. The refresh rows time
 * `refreshAfterChange` told the edited directory (what the watcher does) against a whole
 * `refresh()` after the same kind of edit, in one process.
 *
 * `npm run bench` runs it for each size; on its own, after `npm run build`:
 *
 *   node --import tsx bench/watch.ts [COUNT...]      (default: 1000 10000)
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as os from "node:os";
import { performance } from "node:perf_hooks";
import { createBenchTree, readTreeManifest, writeTreeManifest } from "./bench-tree.js";
import { runChildMain } from "./child-main.js";
import { collectGarbage, summarise, timed, type Summary } from "./measure.js";
import { registryModule } from "./skillport-build.js";

type Mode = "floor" | "skillport" | "recursive";

export interface WatchSetUp {
  mode: Mode;
  ms: number;
  /** CPU time (user + system) of the set-up: on a shared machine, what the wall time hides. */
  cpuMs: number;
  /** Largest event-loop delay during set-up. */
  delayMs: number;
  heapBytes: number;
  rssBytes: number;
  watched: number;
}

export interface WatchOutcome {
  count: number;
  /** Which tree (simple or real-shaped), when a run measures more than one. */
  tree?: string;
  setUp: WatchSetUp[];
  /** `refreshAfterChange` told the edited skill directory, per edit. */
  partialRefresh?: Summary;
  /** `refresh()` after the same kind of edit. */
  wholeRefresh?: Summary;
  failures: Array<{ mode: Mode; reason: string }>;
}

const watchModule = (await import(new URL("../dist/src/registry/watch.js", import.meta.url).href)) as typeof import("../src/registry/watch.js");

function memory(): { heap: number; rss: number } {
  collectGarbage();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed + usage.external, rss: usage.rss };
}

async function child(mode: Mode, manifest: string, runs: number, out: string): Promise<void> {
  const tree = readTreeManifest(manifest);
  const sources = tree.groups.map((group) => ({ path: group, origin: "global" as const }));
  const registry = registryModule.createRegistry(sources, { env: () => ({}) });
  await registry.refresh();
  const noop = () => {};
  let watched = 0;
  let close = () => {};
  const before = memory();
  const cpuBefore = process.cpuUsage();
  const run = await timed(async () => {
    if (mode === "floor") {
      const watchers = [...tree.groups, ...tree.skillDirs].map((dir) => fs.watch(dir, { persistent: false }, noop));
      watched = watchers.length;
      close = () => watchers.forEach((w) => w.close());
    } else if (mode === "recursive") {
      const watchers = tree.groups.map((dir) => fs.watch(dir, { persistent: false, recursive: true }, noop));
      watched = watchers.length;
      close = () => watchers.forEach((w) => w.close());
    } else {
      const watcher = watchModule.watchSources(tree.groups, { skillDirectories: (i) => registry.skillDirectories(i), refresh: (c) => registry.refreshAfterChange(c) }, 200);
      await watcher.ready;
      watched = watcher.watchedDirectories().length;
      close = () => watcher.close();
    }
  });
  const cpu = process.cpuUsage(cpuBefore);
  // Node's recursive watcher keeps adding watchers after it returns; let it finish before measuring.
  if (mode === "recursive") await new Promise((resolve) => setTimeout(resolve, 2000));
  const after = memory();
  const result: { setUp: WatchSetUp; partial?: number[]; whole?: number[] } = {
    setUp: { mode, ms: run.ms, cpuMs: (cpu.user + cpu.system) / 1000, delayMs: run.delayMs, heapBytes: after.heap - before.heap, rssBytes: after.rss - before.rss, watched },
  };

  if (mode === "skillport") {
    // Edits spread over the tree; each is timed as the watcher would ask for it, then as a whole rescan.
    const edit = (i: number) => {
      const file = tree.skillFiles[(i * 7919) % tree.skillFiles.length]!;
      const text = fs.readFileSync(file, "utf8");
      fs.writeFileSync(file, text.replace(/\ndescription: /, `\ndescription: (edit ${i}) `));
      const dir = path.dirname(file);
      const group = tree.groups.findIndex((g) => dir.startsWith(g + path.sep));
      return new Map([[group, [fs.realpathSync(dir)]]]);
    };
    result.partial = [];
    result.whole = [];
    for (let i = 0; i < runs + 3; i++) {
      const changes = edit(i);
      const start = performance.now();
      const outcome = await registry.refreshAfterChange(changes);
      const ms = performance.now() - start;
      if (!outcome.ok || !outcome.changed) throw new Error(`the partial refresh after edit ${i} did not take the edit`);
      if (i >= 3) result.partial.push(ms);
    }
    for (let i = 0; i < runs + 3; i++) {
      edit(runs + 3 + i);
      const start = performance.now();
      await registry.refresh();
      if (i >= 3) result.whole.push(performance.now() - start);
    }
  }
  close();
  await registry.close();
  fs.writeFileSync(out, JSON.stringify(result));
}

function runWatchChild(mode: Mode, manifest: string, runs: number, out: string): Promise<string | null> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, ["--expose-gc", "--import", import.meta.resolve("tsx"), fileFromUrl(import.meta.url), mode, manifest, String(runs), out], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    proc.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
    proc.on("close", (code) => resolve(code === 0 ? null : `exit ${code}: ${stderr.trim().split("\n").at(-1) ?? ""}`));
  });
}

function fileFromUrl(url: string): string {
  return new URL(url).pathname;
}

/** Every watch row for one tree, each mode in its own process. */
export async function measureWatch(manifest: string, runs: number, workDir: string): Promise<WatchOutcome> {
  const tree = readTreeManifest(manifest);
  const outcome: WatchOutcome = { count: tree.count, setUp: [], failures: [] };
  for (const mode of ["floor", "skillport", "recursive"] as const) {
    const out = path.join(workDir, `watch-${mode}.json`);
    const failure = await runWatchChild(mode, manifest, runs, out);
    if (failure) {
      outcome.failures.push({ mode, reason: failure });
      continue;
    }
    const result = JSON.parse(fs.readFileSync(out, "utf8")) as { setUp: WatchSetUp; partial?: number[]; whole?: number[] };
    outcome.setUp.push(result.setUp);
    if (result.partial) outcome.partialRefresh = summarise(result.partial);
    if (result.whole) outcome.wholeRefresh = summarise(result.whole);
  }
  return outcome;
}

const MB = 1e6;
const fixed = (n: number, digits = 1) => n.toFixed(digits);

/** The "Watching" section of docs/BENCHMARKS.md. */
export function renderWatchSection(outcomes: readonly WatchOutcome[]): string {
  if (outcomes.length === 0) return "";
  const lines = [
    "## Watching",
    "",
    "`watch: true` set-up over a loaded tree (one source per 1,000 skills), each way of watching in",
    "a fresh process: `floor` is a bare loop of `fs.watch` over the directories skillport watches,",
    "`recursive` is Node's `fs.watch(source, { recursive: true })` per source, the design this",
    "replaced. Memory: heap plus external after a full collection, and resident set, grown over the",
    "set-up. Target at 10,000 skills: set-up ≤ 150 ms and ≤ 10 MB; refresh after one edit ≤ 2 ms.",
    "",
    "| skills, tree | way | directories watched | set-up ms | CPU ms | CPU × floor | largest loop delay ms | heap+external MB | RSS MB |",
    "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
  const label = (outcome: WatchOutcome): string => `${outcome.count.toLocaleString("en-US")}${outcome.tree ? ` ${outcome.tree}` : ""}`;
  for (const outcome of outcomes) {
    const floor = outcome.setUp.find((s) => s.mode === "floor");
    for (const row of outcome.setUp) {
      const ratio = floor ? `${fixed(row.cpuMs / floor.cpuMs, 2)}×` : "–";
      lines.push(
        `| ${label(outcome)} | ${row.mode} | ${row.mode === "recursive" ? `${row.watched} sources` : row.watched.toLocaleString("en-US")} | ${fixed(row.ms)} | ${fixed(row.cpuMs)} | ${ratio} | ${fixed(row.delayMs)} | ${fixed(row.heapBytes / MB)} | ${fixed(row.rssBytes / MB)} |`,
      );
    }
    for (const failure of outcome.failures) lines.push(`| ${label(outcome)} | ${failure.mode} | failed: ${failure.reason} | | | | | | |`);
  }
  lines.push(
    "",
    "Refresh after one edit of a SKILL.md, ms (median, min–max over the runs; the whole rescan re-reads the one file too). Process CPU time would count the collector's and the parse workers' threads, so this is wall time: on a loaded machine the minimum is the figure closest to the work itself.",
    "",
    "| skills, tree | told the changed directory (watcher) | whole rescan | ratio |",
    "|---:|---:|---:|---:|",
  );
  for (const outcome of outcomes) {
    const partial = outcome.partialRefresh;
    const whole = outcome.wholeRefresh;
    if (!partial || !whole) continue;
    lines.push(
      `| ${label(outcome)} | ${fixed(partial.median, 2)} (${fixed(partial.min, 2)}–${fixed(partial.max, 2)}) | ${fixed(whole.median)} (${fixed(whole.min)}–${fixed(whole.max)}) | ${fixed(whole.median / partial.median, 0)}× |`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** On its own: generates trees of the sizes given (default 1,000 and 10,000) and prints the section. */
async function standalone(sizes: number[]): Promise<void> {
  const outcomes: WatchOutcome[] = [];
  for (const count of sizes) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), `skillport-watch-bench-${count}-`));
    try {
      const manifest = writeTreeManifest(createBenchTree(root, count));
      outcomes.push(await measureWatch(manifest, 21, root));
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
  process.stdout.write(renderWatchSection(outcomes));
}

const isMain = process.argv[1] !== undefined && fs.realpathSync(process.argv[1]) === fs.realpathSync(fileFromUrl(import.meta.url));
if (isMain && ["floor", "skillport", "recursive"].includes(process.argv[2] ?? "")) {
  const [mode, manifest, runs, out] = process.argv.slice(2);
  await runChildMain(() => child(mode as Mode, manifest!, Number(runs), out!));
} else if (isMain) {
  const sizes = process.argv.slice(2).map(Number);
  await standalone(sizes.length > 0 ? sizes : [1000, 10_000]);
}
