/**
 * Usage statistics per skill (SPEC §5.8), derived from log records only, so that a live
 * session, a restored one and `skillport stats` over a directory of logs all count alike.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { diagnostic, type Diagnostic } from "../package/diagnostic.js";
import { activationFromEnvelope } from "./activation.js";
import { readSessionLog } from "./log.js";
import type { SessionRecord } from "./records.js";

export interface SkillStats {
  name: string;
  /** Fresh `loaded` results. */
  activations: number;
  /** Activations refused as `already_active`. */
  refusedReactivations: number;
  /** Successful `file_loaded` reads. */
  fileReads: number;
  /** ISO time of the latest of the above; null when never used. */
  lastUse: string | null;
}

export interface StatsDirResult {
  skills: SkillStats[];
  /** Log files read. */
  sessions: number;
  diagnostics: Diagnostic[];
}

function later(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return Date.parse(b) > Date.parse(a) ? b : a;
}

function byName(table: Map<string, SkillStats>): SkillStats[] {
  return [...table.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function entry(table: Map<string, SkillStats>, name: string): SkillStats {
  let stats = table.get(name);
  if (!stats) {
    stats = { name, activations: 0, refusedReactivations: 0, fileReads: 0, lastUse: null };
    table.set(name, stats);
  }
  return stats;
}

/**
 * Statistics kept as records arrive, so a live session counts every call without keeping the
 * records themselves.
 */
export class StatsCounter {
  private readonly table = new Map<string, SkillStats>();

  add(record: SessionRecord): void {
    if (record.type !== "call" || !record.envelope.ok) return;
    const data = record.envelope.data as { name?: unknown; status?: unknown };
    if (typeof data.name !== "string") return;
    let counted = true;
    if (activationFromEnvelope(record.envelope)) entry(this.table, data.name).activations += 1;
    else if (data.status === "already_active") entry(this.table, data.name).refusedReactivations += 1;
    else if (data.status === "file_loaded") entry(this.table, data.name).fileReads += 1;
    else counted = false;
    if (counted) {
      const stats = entry(this.table, data.name);
      stats.lastUse = later(stats.lastUse, record.time);
    }
  }

  /** Per-skill statistics so far, sorted by name; copies. */
  snapshot(): SkillStats[] {
    return byName(this.table).map((stats) => ({ ...stats }));
  }
}

/** Per-skill statistics of one session's records, sorted by name. */
export function statsFromRecords(records: readonly SessionRecord[]): SkillStats[] {
  const counter = new StatsCounter();
  for (const record of records) counter.add(record);
  return counter.snapshot();
}

/** Sums statistics of several sessions. */
export function mergeStats(lists: readonly (readonly SkillStats[])[]): SkillStats[] {
  const table = new Map<string, SkillStats>();
  for (const list of lists) {
    for (const stats of list) {
      const total = entry(table, stats.name);
      total.activations += stats.activations;
      total.refusedReactivations += stats.refusedReactivations;
      total.fileReads += stats.fileReads;
      total.lastUse = later(total.lastUse, stats.lastUse);
    }
  }
  return byName(table);
}

/**
 * Statistics over every `*.jsonl` session log directly inside `dir`. A missing directory means
 * no sessions yet; unreadable logs and torn lines come back as diagnostics.
 */
export function readStatsDir(dir: string): StatsDirResult {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((name) => name.endsWith(".jsonl")).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { skills: [], sessions: 0, diagnostics: [] };
    const message = error instanceof Error ? error.message : String(error);
    return {
      skills: [],
      sessions: 0,
      diagnostics: [diagnostic(dir, "error", "session_dir_unreadable", `Could not read the sessions directory: ${message}`)],
    };
  }
  const lists: SkillStats[][] = [];
  const diagnostics: Diagnostic[] = [];
  for (const name of names) {
    const result = readSessionLog(path.join(dir, name));
    diagnostics.push(...result.diagnostics);
    lists.push(statsFromRecords(result.records));
  }
  return { skills: mergeStats(lists), sessions: names.length, diagnostics };
}
