/**
 * The registry's side of a source walk (`walk-job.ts` does the walking), on the main thread in
 * time slices or in a parse worker. Either way the registry sends what it already holds of the
 * source, and gets back the source's discovery plus a record for each file the walk read, handed
 * over as they come so the registry files them while other walks still run rather than all at
 * the end. An unchanged directory comes back as a number, so a rescan of an unchanged source
 * costs the event loop almost nothing.
 */
import { diagnostic, type Diagnostic } from "../package/diagnostic.js";
import type { FileStamp } from "../package/types.js";
import type { FoundSkill, SourceDiscovery, WalkOptions, WalkProblems } from "./discover.js";
import type { SourceParseCache } from "./parse-cache.js";
import { STAMP_NUMBERS, type FoundWire, type KnownSkills, type WorkerJob } from "./parse-protocol.js";
import { runInWorker, withdraw } from "./parse-pool.js";
import { frozenLoad, fromWire, type LoadedSkill } from "./skill-wire.js";
import type { TimeSlicer } from "./time-slice.js";
import { walkSource, type WalkSink } from "./walk-job.js";

export interface SourceWalk {
  discovery: SourceDiscovery;
  /** How many SKILL.md files the walk read (new and changed ones; not those the parse cache held). */
  reads: number;
}

/** One source to walk, with what the registry holds of it. */
export interface WalkInput {
  source: string;
  /** How far the walk may go; the same on either thread. */
  options: WalkOptions;
  /** The source's last discovery; a directory found unchanged comes back as that same `FoundSkill`. */
  previous: readonly FoundSkill[];
  /** The stamp the registry's copy of each file was read at, if it holds one. */
  stampOf: (found: FoundSkill) => FileStamp | undefined;
  /**
   * Each file read, in walk order: the directory as found, with the stamp its SKILL.md was read at,
   * and what it loaded to. `cached`: taken from the parse cache, not read.
   */
  onLoad: (found: FoundSkill, loaded: LoadedSkill, cached: boolean) => void;
  /** The source's parse cache; only a walk on this thread uses it (a worker's walk reads every file). */
  cache?: SourceParseCache;
}

/** The one warning a scan gives when worker threads failed it and the main thread did their work. */
export function workerFailed(path: string, error: unknown): Diagnostic {
  return diagnostic(path, "warning", "worker_failed", `Loading skills in a worker failed (${String(error)}); loaded them on the main thread`);
}

/** Walks a source on this thread, yielding to the event loop whenever `slicer` says so. */
export async function walkHere(input: WalkInput, slicer: TimeSlicer): Promise<SourceWalk> {
  const collector = new Collector(input, slicer);
  // Records made on this thread skip the compact form: nothing crosses a thread boundary.
  const sink: WalkSink = {
    known: (index) => collector.add(index),
    loaded: (result, found) => collector.addLoaded(found, frozenLoad(result)),
    cached: (loaded, found) => collector.addLoaded(found, loaded, true),
  };
  const known = knownSkills(input);
  known.files = input.previous.map((found) => found.skillFile);
  const problems = await walkSource(input.source, known, sink, slicer, input.options, input.cache);
  // Walked whole here: the cache now knows every skill of the source, and may be saved.
  if (input.cache) input.cache.walked = !problems.failed;
  return collector.finish(problems);
}

/** A walk handed to the worker pool: `result` settles when it is done or withdrawn. */
export interface WorkerWalk {
  /**
   * The walk, or null when nothing was left to walk or it was withdrawn before a worker took it.
   * Rejects with a `WorkerWalkFailed` when the worker could not run it.
   */
  result: Promise<SourceWalk | null>;
  /** Withdraws the walk if no worker has chosen it yet; a walk already running finishes. */
  withdraw(): void;
}

export class WorkerWalkFailed extends Error {
  /** The walk the worker had taken, which the caller must now do itself; null if it took none. */
  constructor(
    readonly input: WalkInput | null,
    override readonly cause: unknown,
  ) {
    super(String(cause));
  }
}

/**
 * Walks, in a worker, the source `pick` chooses once a worker is ready for it: the main thread
 * keeps taking sources from the same list meanwhile, so none waits behind a starting worker.
 * The records that come back are filed in the slices of `slicer`, the scan's shared one.
 */
export function walkInWorker(pick: () => WalkInput | null, slicer: TimeSlicer): WorkerWalk {
  let input: WalkInput | null = null;
  let collector: Collector | null = null;
  let walked: WalkProblems | null = null;
  const take = (): WorkerJob | null => {
    input = pick();
    if (!input) return null;
    collector = new Collector(input, slicer);
    return { kind: "walk", source: input.source, known: knownSkills(input), options: input.options };
  };
  const result = runInWorker(take, (message) => {
    if (message.kind === "walked") walked = { diagnostics: message.diagnostics, privateRefusals: message.privateRefusals, failed: message.failed };
    else collector!.enqueue(message.found);
  }).then(
    async (ran) => {
      if (!ran) return null;
      // Set by the handlers above, which the compiler does not follow.
      const done = collector as Collector | null;
      const report = walked as WalkProblems | null;
      if (!done || !report) throw new WorkerWalkFailed(input, `the walk of ${input?.source} ended without its report`);
      await done.settled();
      return done.finish(report);
    },
    (error: unknown) => {
      throw new WorkerWalkFailed(input, error);
    },
  );
  return { result, withdraw: () => withdraw(take) };
}

function knownSkills({ previous, stampOf }: WalkInput): KnownSkills {
  const known: KnownSkills = { dirs: new Array<string>(previous.length), stamps: new Float64Array(previous.length * STAMP_NUMBERS) };
  for (let i = 0; i < previous.length; i++) {
    known.dirs[i] = previous[i]!.dir;
    // A file the registry holds no copy of is never "unchanged": NaN equals nothing.
    const stamp = stampOf(previous[i]!);
    const at = i * STAMP_NUMBERS;
    known.stamps[at] = stamp ? stamp.size : NaN;
    known.stamps[at + 1] = stamp ? stamp.mtimeMs : NaN;
    known.stamps[at + 2] = stamp ? stamp.ctimeMs : NaN;
    known.stamps[at + 3] = stamp ? stamp.ino : NaN;
  }
  return known;
}

/** Turns a walk's entries back into the discovery and the loads, in walk order. */
class Collector {
  private readonly found: FoundSkill[] = [];
  private reads = 0;
  private readonly pending: FoundWire[][] = [];
  private draining: Promise<void> | null = null;

  constructor(
    private readonly input: WalkInput,
    private readonly slicer: TimeSlicer,
  ) {}

  /**
   * Takes a worker's batch now and files it later, in time slices. Node hands over every message
   * waiting on a port in one turn; filing them there too stalled the event loop by as many
   * batches as had piled up while it was busy.
   */
  enqueue(entries: FoundWire[]): void {
    this.pending.push(entries);
    this.draining ??= this.drain();
  }

  /** Resolves once every batch received is filed. */
  async settled(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    const slicer = this.slicer;
    // Start in a turn of its own, after the port has handed over what it holds.
    await slicer.yield();
    for (let batch = this.pending.shift(); batch; batch = this.pending.shift()) {
      for (let i = 0; i < batch.length; i++) {
        this.add(batch[i]!);
        if (slicer.due()) await slicer.yield();
      }
    }
    this.draining = null;
  }

  add(entry: FoundWire): void {
    if (typeof entry === "number") {
      this.found.push(this.input.previous[entry]!);
      return;
    }
    const loaded = fromWire(entry, entry.dir, entry.skillFile);
    this.addLoaded({ dir: entry.dir, skillFile: entry.skillFile, stamp: { size: entry.size, mtimeMs: entry.mtimeMs, ctimeMs: entry.ctimeMs, ino: entry.ino } }, loaded);
  }

  addLoaded(found: FoundSkill, loaded: LoadedSkill, cached = false): void {
    // A loaded skill's stamp is the one it was read at: share it rather than keep a copy.
    const stamp = loaded.skill?.stamp;
    const skill: FoundSkill = stamp && stamp !== found.stamp ? { dir: found.dir, skillFile: found.skillFile, stamp } : found;
    this.found.push(skill);
    if (!cached) this.reads += 1;
    this.input.onLoad(skill, loaded, cached);
  }

  finish(problems: WalkProblems): SourceWalk {
    return { discovery: { found: this.found, diagnostics: problems.diagnostics, privateRefusals: problems.privateRefusals, failed: problems.failed }, reads: this.reads };
  }
}
