/**
 * What each SKILL.md loaded to at one stamp (size, mtime, inode), kept from scan to scan: an
 * unchanged file is never read again, and a file that loaded once and now does not keeps its
 * last good version serving until it loads again or is removed.
 */
import { forgetSkillBody } from "../package/body.js";
import { diagnostic, type Diagnostic } from "../package/diagnostic.js";
import type { FileStamp, SkillPackage } from "../package/types.js";
import type { FoundSkill } from "./discover.js";
import type { LoadedSkill } from "./skill-wire.js";
import { registerSkill } from "./skill-record.js";
import type { RegisteredSkill, SkillSource } from "./types.js";

export interface CacheEntry {
  stamp: FileStamp;
  /** The loaded skill, or null when the file cannot be used (its diagnostics say why). */
  skill: SkillPackage | null;
  diagnostics: readonly Diagnostic[];
  /**
   * The registered record built from `skill`, per source index. A file nearly always sits in one
   * source, so the first record is kept on its own and a map is made only for a second source.
   */
  record: RegisteredSkill | null;
  moreRecords: Map<number, RegisteredSkill> | null;
  /** The scan that read the file. */
  readIn: number;
  /**
   * The file no longer loads and `skill` is its last good version, still serving. Its stamp is
   * then never offered as "unchanged", so every scan reads the file again until it loads: a fix
   * written within the same mtime tick as the broken read, at the same size, is still seen.
   */
  lastGood: boolean;
  /**
   * The scan that last reached the file and reported its diagnostics: a file in several sources
   * reports once, and a file no scan reaches any more leaves the cache.
   */
  reportedIn: number;
  /**
   * Replaced in the cache or dropped from it since: an entry remembered beside a source's last
   * discovery (`lastEntries`) is then looked up again by its file.
   */
  superseded: boolean;
}

/** The entries by SKILL.md path. */
export type SkillFileCache = Map<string, CacheEntry>;

/** The stamp a walk may take as "unchanged, not read again" for `skillFile`, if any. */
export function unchangedStamp(cache: SkillFileCache, skillFile: string): FileStamp | undefined {
  const entry = cache.get(skillFile);
  return entry && !entry.lastGood ? entry.stamp : undefined;
}

/**
 * Takes what a scan read from one file into the cache. The cache is updated in place as records
 * arrive (a new map per scan would be rebuilt for every unchanged skill): each entry states what
 * one file parses to at one stamp, which stays true even if this scan fails later. Entries no
 * source reached any more go once it is done (`dropUnreached`, `dropGone`).
 */
export function adopt(cache: SkillFileCache, found: FoundSkill, loaded: LoadedSkill, scanNumber: number): CacheEntry {
  const existing = cache.get(found.skillFile);
  // The same file reached through two sources is read by both walks: the first copy serves.
  if (existing?.readIn === scanNumber) return existing;
  // A file that loaded once and now does not (an editor caught mid-save) keeps serving.
  if (!loaded.skill && existing?.skill && !isGone(loaded)) {
    const entry = lastGoodEntry(existing, found, loaded, scanNumber);
    existing.superseded = true;
    cache.set(found.skillFile, entry);
    return entry;
  }
  // Loading again after a failure, the file may carry the very stamp of the body cached
  // before it broke: only the re-read shows it changed.
  if (existing?.lastGood) forgetSkillBody(found.skillFile);
  const entry = freshEntry(found.stamp, loaded, scanNumber);
  if (existing) existing.superseded = true;
  cache.set(found.skillFile, entry);
  return entry;
}

/** After a whole scan: every file the scan did not reach leaves the cache. */
export function dropUnreached(cache: SkillFileCache, scanNumber: number): void {
  cache.forEach((entry, skillFile) => {
    if (entry.reportedIn !== scanNumber) {
      entry.superseded = true;
      cache.delete(skillFile);
    }
  });
}

/**
 * After a partial scan. A partial scan looked at none of the untouched sources' files, so it
 * cannot sweep by "reached this scan"; it drops just the files it saw go (a whole scan sweeps
 * the rest).
 */
export function dropGone(cache: SkillFileCache, gone: readonly string[], scanNumber: number): void {
  for (const skillFile of gone) {
    const entry = cache.get(skillFile);
    if (entry === undefined || entry.reportedIn === scanNumber) continue;
    entry.superseded = true;
    cache.delete(skillFile);
  }
}

function freshEntry(stamp: FileStamp, { skill, diagnostics }: LoadedSkill, readIn: number): CacheEntry {
  return { stamp, skill, diagnostics, record: null, moreRecords: null, readIn, reportedIn: 0, lastGood: false, superseded: false };
}

/**
 * A SKILL.md removed between the listing and the read, or replaced by something that is not a
 * file (a FIFO, a directory): not a version of the skill caught mid-save, so nothing keeps serving.
 */
const GONE_CODES: ReadonlySet<string> = new Set(["skill_file_missing", "skill_file_not_regular"]);

function isGone({ diagnostics }: LoadedSkill): boolean {
  return diagnostics.some((d) => GONE_CODES.has(d.code));
}

/**
 * The last good version of a file that no longer loads: the same records (so an unchanged
 * snapshot stays unchanged while the file stays broken), the failure's own diagnostics, and one
 * error saying what still serves.
 */
function lastGoodEntry(previous: CacheEntry, found: FoundSkill, { diagnostics }: LoadedSkill, readIn: number): CacheEntry {
  const reason = diagnostics.find((d) => d.severity === "error")?.message ?? "it no longer loads";
  const serving = Object.freeze(
    diagnostic(
      found.skillFile,
      "error",
      "last_good_version",
      `${found.skillFile} no longer loads (${reason}); its last good version, '${previous.skill!.name}', keeps serving until the file loads again or is removed`,
    ),
  );
  return {
    stamp: found.stamp,
    skill: previous.skill,
    diagnostics: Object.freeze([...diagnostics, serving]),
    record: previous.record,
    moreRecords: previous.moreRecords,
    readIn,
    reportedIn: 0,
    lastGood: true,
    superseded: false,
  };
}

/** The entry's record for source `index`, registered on first need. */
export function recordOf(entry: CacheEntry, source: SkillSource, index: number): RegisteredSkill {
  if (!entry.record) {
    entry.record = registerSkill(entry.skill!, source, index);
    // The record holds every part of the package, so the package object need not be kept too:
    // one object fewer per skill for the registry to hold and the collector to copy. Not when
    // the record's manifest lost its grants: another source of the same file must see them.
    if (entry.record.manifest === entry.skill!.manifest) entry.skill = entry.record;
    return entry.record;
  }
  if (entry.record.sourceIndex === index) return entry.record;
  entry.moreRecords ??= new Map();
  let record = entry.moreRecords.get(index);
  if (!record) entry.moreRecords.set(index, (record = registerSkill(entry.skill!, source, index)));
  return record;
}
