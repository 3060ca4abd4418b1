/**
 * `npm run bench`: generates skill trees of each shape (the simple generated tree, and one shaped
 * like real skills) and size, times the floor, the floor plus each YAML parser, skillport and the
 * peer loaders side by side (each in its own process), then what a fresh process costs (`list
 * --json`, MCP spawn to the first `tools/list`, each against a floor), skillport's rescans, tool
 * calls, catalog and MCP round trips; prints the Markdown report and writes it to
 * docs/BENCHMARKS.md.
 *
 *   npm run bench -- [--sizes 1000,10000] [--shapes simple,real] [--runs 11] [--processes 2] [--samples 100] [--fresh-runs 5] [--no-peers] [--no-write] [--only loaders,fresh,…] [--corpus DIR]
 *
 * `--corpus DIR` benches a tree of real skills instead of the generated ones: DIR holds source
 * folders, or is one source (skill folders inside it); it is copied, never written to.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { createBenchTree, createCorpusTree, writeTreeManifest, type BenchTree } from "./bench-tree.js";
import { measureFreshProcesses } from "./fresh-process.js";
import type { TreeShape } from "./generate-tree.js";
import type { LoaderOutcome } from "./loader-child.js";
import { measureMcpHttpCost } from "./mcp-http-cost.js";
import { measureMcpRoundTrips } from "./mcp-roundtrip.js";
import { renderReport, type BenchRun, type SizeResult } from "./report.js";
import { measureWatch, renderWatchSection, type WatchOutcome } from "./watch.js";
import { measureStore, renderStoreSection, type StoreBench } from "./store.js";
import type { OperationsOutcome } from "./skillport-ops.js";
import { measureSessionMemory, renderSessionMemorySection, type SessionMemoryOutcome } from "./session-memory-report.js";

const BENCH = import.meta.dirname;
const REPO = path.resolve(BENCH, "..");
const PEERS_DIR = path.join(BENCH, "peers");
const PEER_PACKAGES = ["openskills", "skills-ref", "deepagents", "@google/adk", "@mastra/core", "@openai/codex"];
const OWN_LOADER_IDS = ["floor", "parse-floor", "floor-js-yaml", "floor-yaml", "floor-own-yaml", "skillport"];
const PEER_LOADER_IDS = ["openskills", "skills-ref", "deepagents", "adk", "mastra"];
/** No single child may hold the run hostage: a loader slower than this is reported as failed. */
const CHILD_TIME_LIMIT_MS = 5 * 60_000;
const TSX = import.meta.resolve("tsx");

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** The parts of a run `--only` can pick; without it every part runs. */
const PARTS = ["loaders", "ops", "watch", "mcp", "fresh", "codex", "http", "store", "session-memory"];

function runs(part: string, settings: { only: Set<string> | null }): boolean {
  return settings.only === null || settings.only.has(part);
}

function options() {
  const { values } = parseArgs({
    options: {
      sizes: { type: "string", default: "1000,10000" },
      shapes: { type: "string", default: "simple,real" },
      "fresh-runs": { type: "string", default: "5" },
      runs: { type: "string", default: "11" },
      processes: { type: "string", default: "2" },
      samples: { type: "string", default: "100" },
      "no-peers": { type: "boolean", default: false },
      "no-write": { type: "boolean", default: false },
      only: { type: "string", default: "" },
      corpus: { type: "string" },
    },
  });
  const sizes = values.sizes.split(",").map((s) => Number(s.trim().replace(/_/g, "")));
  const runs = Number(values.runs);
  const processes = Number(values.processes);
  const samples = Number(values.samples);
  const freshRuns = Number(values["fresh-runs"]);
  const shapes = values.shapes.split(",").map((s) => s.trim()) as TreeShape[];
  if (
    sizes.some((n) => !Number.isInteger(n) || n < 20) ||
    shapes.some((s) => s !== "simple" && s !== "real") ||
    !(runs >= 1) ||
    !Number.isInteger(processes) ||
    processes < 1 ||
    !(samples >= 1) ||
    !(freshRuns >= 1)
  ) {
    throw new Error(
      "usage: run.ts [--sizes 1000,10000 (each ≥ 20)] [--shapes simple,real] [--runs N ≥ 1] [--processes N ≥ 1] [--samples N ≥ 1] [--fresh-runs N ≥ 1] [--no-peers] [--no-write] [--only PARTS] [--corpus DIR]",
    );
  }
  const only = values.only === "" ? null : new Set(values.only.split(",").map((s) => s.trim()));
  const unknown = only ? [...only].filter((part) => !PARTS.includes(part)) : [];
  if (unknown.length > 0) throw new Error(`--only takes ${PARTS.join(", ")}; not ${unknown.join(", ")}`);
  const corpus = values.corpus === undefined ? null : path.resolve(values.corpus);
  if (corpus !== null && !fs.statSync(corpus, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`--corpus ${values.corpus}: not a directory`);
  return { sizes, shapes, runs, processes, samples, freshRuns, peers: !values["no-peers"], write: !values["no-write"], only, corpus };
}

/**
 * Processes per loader for a tree of `count` skills. Small trees load in milliseconds, where one
 * process's JIT and memory layout move the median by tens of percent, so several are pooled (the
 * protocol PERFORMANCE.md's figures use); from 10,000 skills one process, because the slowest
 * peers take seconds per load there and one process's loads already take long enough to settle.
 */
function processesFor(count: number, processes: number): number {
  return count < 10_000 ? processes : 1;
}

/**
 * One loader's processes as one outcome: every timed load and its paired floor pooled; the
 * fresh-process figure is the median process's; memory is the largest peak and the median
 * retained heap.
 */
function pooled(parts: LoaderOutcome[]): LoaderOutcome {
  if (parts.length === 1) return parts[0]!;
  const ran = parts.filter((part) => !part.skipped && part.first);
  if (ran.length === 0) return parts[0]!;
  const firstLoads = ran.map((part) => ({ ms: part.first!.ms, floorMs: part.pairedFloorMs[0] ?? Number.NaN }));
  const byFirstRatio = [...ran].sort((a, b) => a.first!.ms / (a.pairedFloorMs[0] ?? 1) - b.first!.ms / (b.pairedFloorMs[0] ?? 1));
  const median = byFirstRatio[Math.floor((byFirstRatio.length - 1) / 2)]!;
  const retained = ran.map((part) => part.retainedHeapBytes).filter((b): b is number => b !== null).sort((a, b) => a - b);
  const peak = ran.reduce((a, b) => (b.peakRssBytes > a.peakRssBytes ? b : a));
  return {
    ...median,
    runs: ran.flatMap((part) => part.runs),
    // The floor before each process's first load pairs with that load; the rest with the timed loads.
    pairedFloorMs: [median.pairedFloorMs[0]!, ...ran.flatMap((part) => part.pairedFloorMs.slice(1))],
    firstLoads,
    processes: ran.length,
    found: Math.min(...ran.map((part) => part.found)),
    correct: median.correct,
    rssBeforeBytes: peak.rssBeforeBytes,
    peakRssBytes: peak.peakRssBytes,
    retainedHeapBytes: retained.length > 0 ? retained[Math.floor((retained.length - 1) / 2)]! : null,
  };
}

/** Installs the peers from their lockfile when any is missing; returns why they can't run, or null. */
function ensurePeers(): string | null {
  const missing = PEER_PACKAGES.filter((pkg) => !fs.existsSync(path.join(PEERS_DIR, "node_modules", pkg, "package.json")));
  if (missing.length === 0) return null;
  log(`installing the peer loaders (npm ci --prefix bench/peers): ${missing.join(", ")} missing`);
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = spawnSync(npm, ["ci", "--prefix", PEERS_DIR, "--no-audit", "--no-fund"], { stdio: ["ignore", "inherit", "inherit"] });
  if (result.status === 0) return null;
  return `\`npm ci --prefix bench/peers\` failed (${result.error?.message ?? `exit ${result.status}`})`;
}

interface ChildResult {
  ok: boolean;
  reason: string;
}

/** Runs a bench script in its own Node process; its stdout is ignored (peers may print). */
function runChild(script: string, args: string[], nodeFlags: string[] = []): Promise<ChildResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeFlags, "--import", TSX, path.join(BENCH, script), ...args], {
      cwd: REPO,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
    const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_TIME_LIMIT_MS);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve({ ok: true, reason: "" });
      const lastLine = stderr.trim().split("\n").find((line) => /Error/.test(line)) ?? stderr.trim().split("\n").at(-1) ?? "";
      resolve({ ok: false, reason: signal ? `killed by ${signal} (over ${CHILD_TIME_LIMIT_MS / 1000} s?)` : `exit ${code}: ${lastLine}` });
    });
  });
}

/**
 * Further measurements run on every tree after the built-in ones (the watch set-up bench, say):
 * each gets the tree and the run's settings and returns Markdown lines for the report, or throws
 * with a reason the report shows.
 */
export interface BenchModule {
  id: string;
  title: string;
  measure(tree: BenchTree, settings: ReturnType<typeof options>): Promise<string[]>;
}

const EXTRA_MODULES: BenchModule[] = [
  {
    id: "codex",
    title: "Codex app-server `skills/list`",
    async measure(tree, settings) {
      if (!settings.peers) return ["Not run (`--no-peers`)."];
      const { measureCodexAppServer } = await import("./codex-app-server.js");
      return measureCodexAppServer(tree, settings.freshRuns);
    },
  },
];

const watchOutcomes: WatchOutcome[] = [];

/** How a run gets its tree: generated at a size and shape, or copied from a corpus of real skills. */
type TreeSpec = { count: number; shape: TreeShape } | { corpus: string };

async function measureSize(spec: TreeSpec, settings: ReturnType<typeof options>, peersProblem: string | null): Promise<SizeResult> {
  const label = "corpus" in spec ? "corpus" : `${spec.shape}-${spec.count}`;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `skillport-bench-${label}-`));
  try {
    log("corpus" in spec ? `\n== corpus ${spec.corpus}: copying it` : `\n== ${spec.count} ${spec.shape} skills: generating the tree`);
    const tree = "corpus" in spec ? createCorpusTree(root, spec.corpus) : createBenchTree(root, spec.count, spec.shape);
    if ("corpus" in spec) log(`   ${tree.count} SKILL.md files in ${tree.groups.length} source(s)`);
    const { count, shape } = tree;
    const manifest = writeTreeManifest(tree);
    const result: SizeResult = {
      count,
      shape,
      shapeShares: tree.shapeShares,
      fresh: { error: "not run" },
      extra: [],
      groups: tree.groups.length,
      skillFileBytes: tree.skillFileBytes,
      loaders: [],
      failures: [],
      ops: {},
      mcp: { error: "not run" },
    };
    // Peers on the simple tree and on a corpus only: they read the generated shapes alike, and they are most of the run's time.
    const loaderIds = !runs("loaders", settings) ? [] : [...OWN_LOADER_IDS, ...(settings.peers && !peersProblem && shape !== "real" ? PEER_LOADER_IDS : [])];
    const processes = processesFor(count, settings.processes);
    const outcomes = new Map<string, LoaderOutcome[]>(loaderIds.map((id) => [id, []]));
    const failed = new Map<string, string>();
    // Round by round, every loader once per round: drift on the machine then falls on all of them.
    for (let round = 1; round <= processes; round++) {
      for (const id of loaderIds) {
        if (failed.has(id)) continue;
        log(`   ${id}${processes > 1 ? ` (process ${round} of ${processes})` : ""}`);
        const out = path.join(root, `loader-${id}-${round}.json`);
        const child = await runChild("loader-child.ts", [id, manifest, String(settings.runs), out], ["--expose-gc"]);
        if (child.ok) outcomes.get(id)!.push(JSON.parse(fs.readFileSync(out, "utf8")) as LoaderOutcome);
        else failed.set(id, child.reason);
      }
    }
    for (const id of loaderIds) {
      const reason = failed.get(id);
      if (reason !== undefined) result.failures.push({ id, reason });
      else result.loaders.push(pooled(outcomes.get(id)!));
    }

    if (runs("ops", settings)) {
      log("   skillport operations");
      const opsOut = path.join(root, "ops.json");
      const ops = await runChild("skillport-ops.ts", [manifest, String(settings.runs), String(settings.samples), opsOut]);
      result.ops = ops.ok ? (JSON.parse(fs.readFileSync(opsOut, "utf8")) as OperationsOutcome) : { error: ops.reason };
    }

    if (runs("watch", settings)) {
      log("   watching");
      watchOutcomes.push({ ...(await measureWatch(manifest, settings.runs, root)), tree: shape });
    }

    if (runs("mcp", settings)) {
      log("   MCP round trips");
      try {
        result.mcp = await measureMcpRoundTrips(tree, settings.samples);
      } catch (error) {
        result.mcp = { error: (error as Error).message };
      }
    }

    if (runs("fresh", settings)) {
      log("   fresh processes: list --json and MCP start against their floors");
      try {
        result.fresh = await measureFreshProcesses(tree, settings.freshRuns);
      } catch (error) {
        result.fresh = { error: (error as Error).message };
      }
    }

    for (const module of EXTRA_MODULES) {
      if (!runs(module.id, settings)) continue;
      log(`   ${module.id}`);
      try {
        result.extra!.push({ id: module.id, title: module.title, lines: await module.measure(tree, settings) });
      } catch (error) {
        result.extra!.push({ id: module.id, title: module.title, lines: [], error: (error as Error).message });
      }
    }
    return result;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** The HTTP server's cost per call and per session, once per run, on its own tree of 100 real-shaped skills. */
async function measureHttpCost(): Promise<BenchRun["httpCost"]> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "skillport-bench-http-"));
  try {
    log("\n== MCP over HTTP: cost per call and per session (100 real-shaped skills)");
    return await measureMcpHttpCost(createBenchTree(root, 100, "real"));
  } catch (error) {
    return { error: (error as Error).message };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const settings = options();
  const started = performance.now();
  const peersProblem = settings.peers ? ensurePeers() : null;
  if (peersProblem) log(`peers skipped: ${peersProblem}`);

  const results: SizeResult[] = [];
  if (settings.corpus !== null) results.push(await measureSize({ corpus: settings.corpus }, settings, peersProblem));
  else for (const shape of settings.shapes) for (const count of settings.sizes) results.push(await measureSize({ count, shape }, settings, peersProblem));
  const httpCost = runs("http", settings) ? await measureHttpCost() : { error: "not run (`--only`)" };

  // Not per tree size: what a replica pays for the session store does not depend on the skills.
  log("\n== session store");
  let store: StoreBench | { error: string } = { error: "not run (`--only`)" };
  try {
    if (runs("store", settings)) store = await measureStore();
  } catch (error) {
    store = { error: (error as Error).message };
  }

  log("\n== a library session's memory");
  let sessionMemory: SessionMemoryOutcome = { error: "not run (`--only`)" };
  if (runs("session-memory", settings)) sessionMemory = await measureSessionMemory(runChild);

  const cpus = os.cpus();
  const run: BenchRun = {
    date: new Date().toISOString().slice(0, 10),
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    cpu: cpus[0]?.model.trim() ?? "unknown CPU",
    cores: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    runs: settings.runs,
    processes: settings.processes,
    samples: settings.samples,
    freshRuns: settings.freshRuns,
    durationSeconds: (performance.now() - started) / 1000,
    peersProblem: settings.peers ? peersProblem : "not run (`--no-peers`)",
    results,
    httpCost,
  };
  const markdown = `${renderReport(run)}\n${renderWatchSection(watchOutcomes)}\n${renderStoreSection(store)}\n${renderSessionMemorySection(sessionMemory).join("\n")}`;
  process.stdout.write(`${markdown}\n`);
  fs.mkdirSync(path.join(BENCH, "results"), { recursive: true });
  fs.writeFileSync(path.join(BENCH, "results", "latest.json"), JSON.stringify(run, null, 2));
  if (settings.write) {
    fs.writeFileSync(path.join(REPO, "docs", "BENCHMARKS.md"), markdown);
    log("\nwrote docs/BENCHMARKS.md");
  }
}

await main();
