/**
 * Skill folders' listings as discovery read them, kept for a resource listing of the same package
 * moments later in the same run. Discovery lists every skill folder to find nested skills (SPEC
 * §2); a command that then reports on every package (`list` and `doctor` say what a Skills
 * Extension client will get) would list each folder a second time, which in a fresh `list` of
 * 3,000 skills cost more than the whole walk that found them.
 *
 * Off unless a caller turns it on: only a run that reports on packages right after discovering
 * them may use a listing it did not read itself. A long-running server lists a package when it
 * is activated, perhaps hours after its scan, and must see the folder as it is then. Each kept
 * listing is taken once and dropped, so it can never stand in for a later read.
 */
import type { Dirent } from "node:fs";

/**
 * Listings kept, at most: a run reporting on more packages than this lists the rest itself
 * (SPEC §2 bounds a source at 2,000 directories, so this covers a typical user's sources).
 */
const MAX_KEPT = 20_000;

const kept = new Map<string, Dirent[]>();
let keeping = false;

/** Starts (or stops, dropping what is kept) keeping the listings discovery reads of skill folders. */
export function keepDiscoveredListings(on: boolean): void {
  keeping = on;
  if (!on) kept.clear();
}

/** Discovery's listing of the skill folder `realDir`, all of its entries; kept only while keeping is on. */
export function noteDiscoveredListing(realDir: string, entries: Dirent[]): void {
  if (!keeping || kept.size >= MAX_KEPT) return;
  kept.set(realDir, entries);
}

/** The listing discovery read of `dir`, left kept for the one who takes it. */
export function peekDiscoveredListing(dir: string): readonly Dirent[] | undefined {
  return kept.size === 0 ? undefined : kept.get(dir);
}

/** The listing discovery read of `realDir`, once: it is dropped as it is taken. */
export function takeDiscoveredListing(dir: string): Dirent[] | undefined {
  if (kept.size === 0) return undefined;
  const entries = kept.get(dir);
  if (entries !== undefined) kept.delete(dir);
  return entries;
}
