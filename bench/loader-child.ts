/**
 * One loader, one process: a warm-up load, `runs` timed loads, then one more load held while
 * the retained heap is measured after GC. Its own process keeps one loader's globals, JIT state
 * and garbage from skewing another's, and gives each its own peak RSS.
 *
 *   node --expose-gc --import tsx bench/loader-child.ts LOADER_ID MANIFEST RUNS OUT_JSON
 */
import * as fs from "node:fs";
import { performance } from "node:perf_hooks";
import { readTreeManifest, type BenchTree } from "./bench-tree.js";
import { runChildMain } from "./child-main.js";
import type { LoadedCatalog, LoaderDefinition, LoadTree } from "./loaders.js";
import { collectGarbage, peakRssBytes, timed, type TimedRun } from "./measure.js";

export interface LoaderOutcome {
  id: string;
  label: string;
  what: string;
  kind: LoaderDefinition["kind"];
  /** Set when the loader could not run; the reason is shown in the report. */
  skipped?: string;
  /** The first load of the process (the warm-up): module code cold, worker threads not started. */
  first: TimedRun | null;
  runs: TimedRun[];
  /**
   * The floor (readFileSync of every SKILL.md) timed in this same process just before the
   * warm-up and before each timed load: machine drift between processes then bends neither side
   * of the ratio.
   */
  pairedFloorMs: number[];
  found: number;
  /** Skills whose description matches a full YAML parse; null when the loader keeps none. */
  correct: number | null;
  rssBeforeBytes: number;
  peakRssBytes: number;
  retainedHeapBytes: number | null;
  /**
   * Set when several processes ran the loader and their outcomes were pooled (`run.ts`): each
   * process's first load with the floor read just before it. `first` is then the median one.
   */
  firstLoads?: Array<{ ms: number; floorMs: number }>;
  /** How many processes were pooled into this outcome; 1 when absent. */
  processes?: number;
}

async function loaderById(id: string): Promise<LoaderDefinition | undefined> {
  const { OWN_LOADERS } = await import("./loaders.js");
  const own = OWN_LOADERS.find((loader) => loader.id === id);
  if (own) return own;
  const { PEER_LOADERS } = await import("./peers/peer-loaders.js");
  return PEER_LOADERS.find((loader) => loader.id === id);
}

/** About how long one loader's timed loads may take in all. */
const LOADER_TIME_BUDGET_MS = 6000;

/** The floor, timed here: read every SKILL.md of the tree and nothing else. */
function floorMs(tree: BenchTree): number {
  const start = performance.now();
  for (const file of tree.skillFiles) fs.readFileSync(file);
  return performance.now() - start;
}

/** A warm-up load, then `runs` timed loads, each released before the next and each after a floor read. */
async function timeLoads(
  load: LoadTree,
  tree: BenchTree,
  runs: number,
): Promise<{ first: TimedRun; runs: TimedRun[]; found: number; pairedFloorMs: number[] }> {
  const pairedFloorMs = [floorMs(tree)];
  let warm: LoadedCatalog | undefined;
  const first = await timed(async () => void (warm = await load(tree)));
  await warm!.release?.();
  const result: TimedRun[] = [];
  let found = 0;
  // A slow loader gets fewer timed loads (never under three), so one run of the bench stays minutes long.
  const count = Math.min(runs, Math.max(3, Math.ceil(LOADER_TIME_BUDGET_MS / Math.max(1, first.ms))));
  for (let i = 0; i < count; i++) {
    let loaded: LoadedCatalog | undefined;
    pairedFloorMs.push(floorMs(tree));
    result.push(await timed(async () => void (loaded = await load(tree))));
    found = loaded!.count;
    await loaded!.release?.();
  }
  return { first, runs: result, found, pairedFloorMs };
}

/**
 * Heap held by one loaded catalog after GC, and how many of its descriptions are right. Runs in
 * its own frame, after the timed runs' frame is gone, so none of their catalogs is still
 * reachable when the baseline is read; the catalog is parked on a global meanwhile because a
 * local that is only read later may be judged dead and collected early.
 */
async function measureRetained(load: LoadTree, tree: BenchTree): Promise<{ bytes: number | null; correct: number | null }> {
  const park = globalThis as { benchParked?: unknown };
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  const held = await load(tree);
  park.benchParked = held;
  collectGarbage();
  const bytes = held.held === null ? null : process.memoryUsage().heapUsed - before;
  let correct: number | null = null;
  const pairs = held.descriptions();
  if (pairs) {
    const reference = JSON.parse(fs.readFileSync(tree.referenceFile, "utf8")) as Record<string, string>;
    correct = pairs.filter(([name, description]) => reference[name]?.trim() === String(description).trim()).length;
  }
  await held.release?.();
  park.benchParked = undefined;
  return { bytes, correct };
}

async function main(): Promise<void> {
  const [id, manifest, runsArg, out] = process.argv.slice(2);
  if (!id || !manifest || !runsArg || !out) throw new Error("usage: loader-child.ts LOADER_ID MANIFEST RUNS OUT_JSON");
  const tree = readTreeManifest(manifest);
  const runs = Number(runsArg);
  const definition = await loaderById(id);
  if (!definition) throw new Error(`no loader ${id}`);
  const outcome: LoaderOutcome = {
    id,
    label: definition.label,
    what: definition.what,
    kind: definition.kind,
    first: null,
    runs: [],
    pairedFloorMs: [],
    found: 0,
    correct: null,
    rssBeforeBytes: 0,
    peakRssBytes: 0,
    retainedHeapBytes: null,
  };
  const write = () => fs.writeFileSync(out, JSON.stringify(outcome));

  let load: LoadTree;
  try {
    load = await definition.prepare();
  } catch (error) {
    outcome.skipped = (error as Error).message;
    write();
    return;
  }

  collectGarbage();
  outcome.rssBeforeBytes = process.memoryUsage().rss;
  const timedRuns = await timeLoads(load, tree, runs);
  outcome.first = timedRuns.first;
  outcome.runs = timedRuns.runs;
  outcome.pairedFloorMs = timedRuns.pairedFloorMs;
  outcome.found = timedRuns.found;
  const retained = await measureRetained(load, tree);
  outcome.retainedHeapBytes = retained.bytes;
  outcome.correct = retained.correct;
  outcome.peakRssBytes = peakRssBytes();
  write();
}

await runChildMain(main);
