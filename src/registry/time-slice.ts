/**
 * Cooperative yielding for work done on the event loop: a loop checks `due()` after each item
 * and awaits `yield()` only once its slice of time is used up, so thousands of small synchronous
 * steps never stall the loop for longer than one slice, and a short loop never yields at all.
 * Callers check `due()` themselves rather than awaiting on every item: an `await` per item costs
 * a microtask turn each, which over a 10,000-skill scan was a measurable share of the scan.
 *
 * One slicer is shared by everything a scan does on the event loop (its own walks, the filing of
 * each worker's records, the ranking), and it resumes one waiting task per turn of the loop. Separate
 * slicers each resumed their task in the same turn, so their slices ran back to back: one stall
 * as long as all of them together. The slice belongs to the turn, not to the task: work that
 * resumes on anything else (a worker's message, its exit) awaits `yield()` before it starts, or
 * it would run on in the slice the last resumed task began.
 */
import { performance } from "node:perf_hooks";

/**
 * Short enough that a slice plus a young-generation collection stays under the 10 ms the SPEC
 * allows a stall; long enough that the yields cost little (measured: 3 ms slices gave lower
 * event-loop delays than 6 ms at the same load time).
 */
export const SLICE_MS = 3;

/**
 * Items between two readings of the clock. Reading it per item cost a cold load a call per
 * skill, twice; one item (a skill read and parsed) takes microseconds, so a slice overruns by
 * a few of them at most.
 */
const ITEMS_PER_CLOCK_READ = 4;

export class TimeSlicer {
  private sliceStart = performance.now();
  private items = 0;
  /** Tasks waiting for a turn, first come first served. */
  private readonly waiting: Array<() => void> = [];
  private turnScheduled = false;

  constructor(private readonly sliceMs: number = SLICE_MS) {}

  /** True when the current slice is used up; the caller then awaits `yield()`. */
  due(): boolean {
    if (++this.items < ITEMS_PER_CLOCK_READ) return false;
    this.items = 0;
    return performance.now() - this.sliceStart >= this.sliceMs;
  }

  /** Resolves in a later turn of the event loop, when this task's turn comes; its new slice starts then. */
  yield(): Promise<void> {
    return new Promise<void>((resume) => {
      this.waiting.push(resume);
      if (!this.turnScheduled) this.scheduleTurn();
    });
  }

  private scheduleTurn(): void {
    this.turnScheduled = true;
    setImmediate(this.nextTurn);
  }

  private readonly nextTurn = (): void => {
    this.turnScheduled = false;
    const resume = this.waiting.shift()!;
    // Scheduled from inside this turn's immediates, so it runs in the next turn: timers, I/O and
    // the next task all wait for this one's slice to end, never for two slices in a row.
    if (this.waiting.length > 0) this.scheduleTurn();
    this.sliceStart = performance.now();
    this.items = 0;
    resume();
  };
}
