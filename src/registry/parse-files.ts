/**
 * Loading many skill directories without stalling the event loop (SPEC §2, worker boundary).
 * Directories are handed over as discovery finds them; once enough have gathered they go to the
 * worker pool in jobs, so parsing overlaps the rest of the walk. A scan that finds only a few
 * loads them on the main thread in time slices, where a worker would cost more than it saves.
 * Either way the records are structured clones — copies, so the registry never holds slices of
 * file text.
 */
import { diagnostic, type Diagnostic } from "../package/diagnostic.js";
import { loadSkillSync } from "../package/load.js";
import type { LoadResult } from "../package/types.js";
import { loadInWorker } from "./parse-pool.js";
import type { TimeSlicer } from "./time-slice.js";

/**
 * Fewer files than this load inline. Measured on 2 cores: a warm worker parses no faster than the
 * main thread (~30 µs a skill), and a worker's first job pays 60–130 ms of start-up; what a worker
 * buys is a free main thread. 200 skills cost the main thread ~6 ms in total, which is not worth
 * a thread; above that, the main thread's time is worth more.
 */
export const INLINE_PARSE_LIMIT = 200;
/** Files per worker job: large enough to amortise messaging, small enough to balance two workers. */
const JOB_SIZE = 500;

export interface ParseOutcome {
  /** One result per added directory, in the order added. */
  results: LoadResult[];
  /** How many of them were loaded off the main thread. */
  inWorkers: number;
  diagnostics: Diagnostic[];
}

export class SkillDirLoader {
  private readonly dirs: string[] = [];
  private dispatched = 0;
  private readonly jobs: Promise<void>[] = [];
  private readonly results: LoadResult[] = [];
  private inWorkers = 0;
  private readonly diagnostics: Diagnostic[] = [];

  constructor(private readonly slicer: TimeSlicer) {}

  add(dir: string): void {
    this.dirs.push(dir);
    if (this.dirs.length - this.dispatched >= JOB_SIZE) this.dispatch();
  }

  async finish(): Promise<ParseOutcome> {
    if (this.jobs.length > 0 || this.dirs.length >= INLINE_PARSE_LIMIT) this.dispatch();
    else await this.loadInline(0, this.dirs);
    await Promise.all(this.jobs);
    return { results: this.results, inWorkers: this.inWorkers, diagnostics: this.diagnostics };
  }

  private dispatch(): void {
    const start = this.dispatched;
    const dirs = this.dirs.slice(start);
    if (dirs.length === 0) return;
    this.dispatched = this.dirs.length;
    this.jobs.push(
      loadInWorker(dirs).then(
        (results) => {
          for (let i = 0; i < results.length; i++) this.results[start + i] = results[i]!;
          this.inWorkers += results.length;
        },
        async (error: unknown) => {
          // A worker that cannot start (or dies) must not cost the skills: load them here instead.
          if (!this.diagnostics.some((d) => d.code === "worker_failed")) {
            this.diagnostics.push(
              diagnostic(dirs[0]!, "warning", "worker_failed", `Loading skills in a worker failed (${String(error)}); loaded them on the main thread`),
            );
          }
          await this.loadInline(start, dirs);
        },
      ),
    );
  }

  private async loadInline(start: number, dirs: readonly string[]): Promise<void> {
    for (let i = 0; i < dirs.length; i++) {
      // structuredClone copies every string, so no record keeps the whole file text alive.
      this.results[start + i] = structuredClone(loadSkillSync(dirs[i]!));
      await this.slicer.pause();
    }
  }
}
