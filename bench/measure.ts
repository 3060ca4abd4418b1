/**
 * Timing and memory helpers shared by every benchmark process: a sample is a list of
 * milliseconds, summarised as median with min and max, because these machines are shared and a
 * single run says little.
 */
import { monitorEventLoopDelay, performance } from "node:perf_hooks";

export interface Summary {
  median: number;
  min: number;
  max: number;
  n: number;
}

export function summarise(values: readonly number[]): Summary {
  if (values.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, n: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted.at(-1)!, n: sorted.length };
}

/** One timed run and the largest event-loop delay seen while it ran. */
export interface TimedRun {
  ms: number;
  delayMs: number;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 3));

/**
 * Times `run` and records the largest event-loop delay meanwhile. The histogram gets a tick
 * before `run` starts (its first sample is only a baseline) and one after `run` settles (a
 * loader that blocks synchronously only shows its stall when the loop runs again).
 */
export async function timed(run: () => unknown): Promise<TimedRun> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  await tick();
  const start = performance.now();
  await run();
  const ms = performance.now() - start;
  await tick();
  histogram.disable();
  return { ms, delayMs: histogram.max / 1e6 };
}

/** Milliseconds of each call, after `warmup` untimed calls. */
export async function timeCalls(count: number, warmup: number, call: (index: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await call(i);
  const ms: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await call(warmup + i);
    ms.push(performance.now() - start);
  }
  return ms;
}

/** Runs a full collection twice (the second pass collects what the first one's finalisers freed). */
export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run this process with --expose-gc");
  gc();
  gc();
}

/** Peak resident set size of this process so far, in bytes. */
export function peakRssBytes(): number {
  return process.resourceUsage().maxRSS * 1024;
}
