/** Messages between the main thread and a parse worker. */
import type { Diagnostic } from "../package/diagnostic.js";
import type { PrivateRefusal, WalkOptions } from "./discover.js";
import type { PlacedSkillWire } from "./skill-wire.js";

/**
 * Records per message: each message is deserialised in one event-loop turn, so a batch must stay
 * well under a millisecond of main-thread work (a compact record costs a few microseconds).
 */
export const RESULT_BATCH = 100;

/**
 * The SKILL.md files a registry already holds for one source, by skill directory, with the
 * stamps they were read at: a walk re-reads only those whose stamp changed. Stamps are
 * `STAMP_NUMBERS` numbers per directory (size, mtimeMs, ctimeMs, ino), packed so they cross as
 * one buffer.
 */
export const STAMP_NUMBERS = 4;

export interface KnownSkills {
  dirs: string[];
  stamps: Float64Array;
  /**
   * The SKILL.md path of each, when the walk runs on the registry's own thread and the strings
   * are at hand; a worker is not sent them (they would double what crosses) and builds its own.
   */
  files?: string[];
}

/** Walk one source, reading every SKILL.md that is not known with the same stamp. */
export type WorkerJob = { kind: "walk"; source: string; known: KnownSkills; options: WalkOptions };

export type ParseJobMessage = WorkerJob & { id: number };

/**
 * One skill directory a walk found: the index (into `KnownSkills.dirs`) of a known one whose
 * SKILL.md is unchanged, or a new or changed one with what loading it gave.
 */
export type FoundWire = number | PlacedSkillWire;

export type ParseWorkerMessage =
  /** Sent once, when the worker has loaded its modules and can take a job. */
  | { kind: "ready" }
  /** The next skill directories found, in walk order. */
  | { id: number; kind: "found"; found: FoundWire[] }
  /** Last before `done`: the walk's own diagnostics (see `SourceDiscovery`). */
  | { id: number; kind: "walked"; diagnostics: Diagnostic[]; privateRefusals: PrivateRefusal[]; failed: boolean }
  | { id: number; kind: "done" };
