/**
 * Loading many skill directories without stalling the event loop (SPEC §2, worker boundary).
 * Directories are handed over as discovery finds them; once enough have gathered they go to the
 * worker pool in jobs, so parsing overlaps the rest of the walk, and each batch of compact
 * records is turned into registry records as it arrives, so that work overlaps the parsing. A
 * scan that finds only a few loads them on the main thread in time slices, where a worker would
 * cost more than it saves. Either way the records hold copies of the strings, never slices of
 * the file text: the worker's are structured clones, and the inline path clones too.
 */
import { diagnostic, type Diagnostic } from "../package/diagnostic.js";
import { loadSkillSync } from "../package/load.js";
import type { FoundSkill } from "./discover.js";
import { runInWorker } from "./parse-pool.js";
import { fromWire, toWire, type LoadedSkill } from "./skill-wire.js";
import type { TimeSlicer } from "./time-slice.js";

/**
 * Fewer files than this load inline, in time slices. Measured on 2 cores: a warm worker parses
 * no faster than the main thread, a process's first worker job pays 300+ ms of start-up, and
 * handing records back costs the main thread about as much as parsing small trees itself. At
 * 1,000 skills inline loading took 35 ms (first load in a process 67 ms, event-loop delay
 * 7 ms) against 41 ms (first load 400 ms) through workers; past this size the parallel
 * parse of two workers wins.
 */
export const INLINE_PARSE_LIMIT = 1500;
/** Files per worker job: large enough to amortise messaging, small enough to balance two workers. */
const JOB_SIZE = 500;

/** The one warning a scan gives when worker threads failed it and the main thread did their work. */
export function workerFailed(path: string, error: unknown): Diagnostic {
  return diagnostic(path, "warning", "worker_failed", `Loading skills in a worker failed (${String(error)}); loaded them on the main thread`);
}

export interface ParseOutcome {
  /** One record per added skill, in the order added. */
  results: LoadedSkill[];
  /** How many of them were loaded off the main thread. */
  inWorkers: number;
  diagnostics: Diagnostic[];
}

export class SkillDirLoader {
  private readonly found: FoundSkill[] = [];
  private dispatched = 0;
  private readonly jobs: Promise<void>[] = [];
  private readonly results: LoadedSkill[] = [];
  private inWorkers = 0;
  private readonly diagnostics: Diagnostic[] = [];

  constructor(private readonly slicer: TimeSlicer) {}

  add(found: FoundSkill): void {
    this.found.push(found);
    if (this.found.length >= INLINE_PARSE_LIMIT && this.found.length - this.dispatched >= JOB_SIZE) this.dispatch();
  }

  async finish(): Promise<ParseOutcome> {
    if (this.jobs.length > 0 || this.found.length >= INLINE_PARSE_LIMIT) this.dispatch();
    else await this.loadInline(0, this.found);
    await Promise.all(this.jobs);
    return { results: this.results, inWorkers: this.inWorkers, diagnostics: this.diagnostics };
  }

  private dispatch(): void {
    const start = this.dispatched;
    const found = this.found.slice(start);
    if (found.length === 0) return;
    this.dispatched = this.found.length;
    this.jobs.push(
      runInWorker({ kind: "load", dirs: found.map((skill) => skill.dir) }, (message) => {
        if (message.kind !== "results") return;
        for (let i = 0; i < message.results.length; i++) {
          const skill = found[message.start + i]!;
          this.results[start + message.start + i] = fromWire(message.results[i]!, skill.dir, skill.skillFile);
        }
      }).then(
        () => {
          this.inWorkers += found.length;
        },
        async (error: unknown) => {
          // A worker that cannot start (or dies) must not cost the skills: load them here instead.
          if (!this.diagnostics.some((d) => d.code === "worker_failed")) this.diagnostics.push(workerFailed(found[0]!.dir, error));
          await this.loadInline(start, found);
        },
      ),
    );
  }

  private async loadInline(start: number, found: readonly FoundSkill[]): Promise<void> {
    for (let i = 0; i < found.length; i++) {
      const skill = found[i]!;
      // The loader parses a copy of the frontmatter, so no record keeps the whole file text alive.
      this.results[start + i] = fromWire(toWire(loadSkillSync(skill.dir)), skill.dir, skill.skillFile);
      if (this.slicer.due()) await this.slicer.yield();
    }
  }
}
