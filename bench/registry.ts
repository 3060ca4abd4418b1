/**
 * Registry benchmark: a cold full load, a rescan of the unchanged tree, and the raw floor (read
 * every SKILL.md and nothing else), side by side in one run, plus the largest event-loop delay
 * seen while loading. Prints a Markdown table.
 *
 *   npx tsx bench/registry.ts [count] [runs]
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { registryModule } from "./skillport-build.js";
import type { SkillSource } from "../src/registry/types.js";
import { generateTree } from "./generate-tree.js";

const count = Number(process.argv[2] ?? 10_000);
const runs = Number(process.argv[3] ?? 7);
// Sources are bounded to 2000 directories each, so the tree is split into groups of 1000 skills.
const PER_SOURCE = 1000;

interface Sample {
  ms: number[];
  /** Largest event-loop delay per run, in milliseconds. */
  delayMs: number[];
}

async function measure(runOnce: () => Promise<void> | void, times = runs): Promise<Sample> {
  const sample: Sample = { ms: [], delayMs: [] };
  for (let i = 0; i < times; i++) {
    const histogram = monitorEventLoopDelay({ resolution: 1 });
    histogram.enable();
    const start = performance.now();
    await runOnce();
    sample.ms.push(performance.now() - start);
    histogram.disable();
    sample.delayMs.push(histogram.max / 1e6);
  }
  return sample;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const fmt = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));
const spread = (s: Sample) => `${fmt(median(s.ms))} (${fmt(Math.min(...s.ms))}–${fmt(Math.max(...s.ms))})`;

async function main(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "skillport-bench-registry-"));
  try {
    process.stderr.write(`generating ${count} skills in ${root}\n`);
    const tree = generateTree(root, { count, perGroup: PER_SOURCE });
    const sources: SkillSource[] = tree.groups.map((group) => ({ path: group, origin: "global" }));
    const files = tree.skillDirs.map((dir) => path.join(dir, "SKILL.md"));

    const coldLoad = async () => {
      const registry = registryModule.createRegistry(sources);
      const outcome = await registry.refresh();
      if (!outcome.ok || outcome.snapshot.skills.length !== count) {
        throw new Error(`cold load returned ${outcome.snapshot.skills.length} skills: ${outcome.ok ? "" : outcome.error}`);
      }
      await registry.close();
    };
    const floorRead = () => {
      for (const file of files) fs.readFileSync(file);
    };

    // The process's first load also starts the parse workers; later loads find them warm.
    const first = await measure(coldLoad, 1);
    process.stderr.write("warming up\n");
    floorRead();
    await coldLoad();

    process.stderr.write(`measuring (${runs} runs each)\n`);
    const floor = await measure(floorRead);
    const cold = await measure(coldLoad);
    const warm = registryModule.createRegistry(sources);
    await warm.refresh();
    const readsBefore = warm.stats().reads;
    const rescan = await measure(async () => {
      await warm.refresh();
    });
    const rereads = warm.stats().reads - readsBefore;
    const workerShare = warm.stats().readsInWorkers / Math.max(1, readsBefore);
    await warm.close();

    const f = median(floor.ms);
    const c = median(cold.ms);
    const r = median(rescan.ms);
    const coldDelay = Math.max(...cold.delayMs);
    const out = [
      `## Registry: ${count} skills in ${sources.length} sources (${(tree.skillFileBytes / 1e6).toFixed(1)} MB of SKILL.md), ${runs} runs, Node ${process.version}, ${os.availableParallelism()} CPUs`,
      "",
      "| measurement | median ms (min–max) | ratio | target | largest event-loop delay ms |",
      "|---|---|---|---|---|",
      `| floor: readFileSync every SKILL.md | ${spread(floor)} | 1.00× floor | — | n/a (synchronous by design) |`,
      `| cold full load | ${spread(cold)} | ${(c / f).toFixed(2)}× floor | ≤ 2× floor | ${fmt(coldDelay)} (target < 20) |`,
      `| first cold load of the process (starts the workers) | ${fmt(first.ms[0]!)} | ${(first.ms[0]! / f).toFixed(2)}× floor | — | ${fmt(first.delayMs[0]!)} |`,
      `| unchanged rescan | ${spread(rescan)} | ${((r / c) * 100).toFixed(1)}% of cold | < 10% of cold | ${fmt(Math.max(...rescan.delayMs))} |`,
      "",
      `Unchanged rescans re-read ${rereads} SKILL.md files; ${(workerShare * 100).toFixed(0)}% of the cold load was parsed in worker threads.`,
      "",
    ];
    process.stdout.write(out.join("\n"));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

await main();
