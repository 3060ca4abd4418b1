/**
 * Cooperative yielding for work done on the event loop: a loop calls `pause()` after each item
 * and only really yields once its slice of time is used up, so thousands of small synchronous
 * steps never stall the loop for longer than one slice, and a short loop never yields at all.
 */
import { performance } from "node:perf_hooks";

/** Long enough that yielding costs little; short enough to keep timers and I/O responsive. */
export const SLICE_MS = 6;

export class TimeSlicer {
  private sliceStart = performance.now();

  constructor(private readonly sliceMs: number = SLICE_MS) {}

  /** True when the current slice is used up; the caller then awaits `yield()`. */
  due(): boolean {
    return performance.now() - this.sliceStart >= this.sliceMs;
  }

  async yield(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.sliceStart = performance.now();
  }

  async pause(): Promise<void> {
    if (this.due()) await this.yield();
  }
}
