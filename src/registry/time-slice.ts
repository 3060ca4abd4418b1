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
 *
 * The slice's budget is per turn of the loop, not per task: whatever the loop ran between the
 * end of one slice and the start of the next (a young-generation collection V8 runs as a task,
 * another part of the program's callbacks) comes out of the next slice. Timers wait for both in
 * the same turn, so a full slice after a 7 ms collection was a 10 ms stall.
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

/**
 * What a slice keeps however long the loop was busy elsewhere before it: a scan on a loop that
 * other work keeps busy still makes headway, and a stall after a collection grows by this at most.
 */
export const MIN_SLICE_MS = 1;

export class TimeSlicer {
  private sliceStart = performance.now();
  private items = 0;
  /** Tasks waiting for a turn, first come first served. */
  private readonly waiting: Array<() => void> = [];
  private turnScheduled = false;
  /** When the last slice ended (a task yielded); null before any did. */
  private lastSliceEnd: number | null = null;

  constructor(
    private readonly sliceMs: number = SLICE_MS,
    private readonly minSliceMs: number = Math.min(MIN_SLICE_MS, sliceMs),
  ) {}

  /** True when the current slice is used up; the caller then awaits `yield()`. */
  due(): boolean {
    if (++this.items < ITEMS_PER_CLOCK_READ) return false;
    this.items = 0;
    return performance.now() - this.sliceStart >= this.sliceMs;
  }

  /** Resolves in a later turn of the event loop, when this task's turn comes; its new slice starts then, less what the loop ran meanwhile. */
  yield(): Promise<void> {
    this.lastSliceEnd = performance.now();
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
    const now = performance.now();
    const elsewhere = this.lastSliceEnd === null ? 0 : now - this.lastSliceEnd;
    // Started earlier by the time the loop spent elsewhere, down to the minimum slice.
    this.sliceStart = now - Math.min(elsewhere, this.sliceMs - this.minSliceMs);
    this.items = 0;
    resume();
  };
}
