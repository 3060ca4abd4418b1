/**
 * What a snapshot holds besides its skills, and whether a scan's result is the snapshot already
 * serving: a refresh that changes nothing keeps the snapshot and its version, so caches keyed
 * on it stay valid.
 */
import type { Diagnostic } from "../package/diagnostic.js";
import type { RegisteredSkill, RegistrySnapshot } from "./types.js";

/** What a registry serves before its first scan completes. */
export const EMPTY_SNAPSHOT: RegistrySnapshot = Object.freeze({
  version: 0,
  skills: Object.freeze([]),
  diagnostics: Object.freeze([]),
  env: Object.freeze({}),
  sourceRoots: Object.freeze([]),
});

/** Whether two lists hold the same strings in the same order. */
export function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

/** The environment a snapshot records: its string values, frozen. */
export function copyEnv(env: Record<string, string | undefined>): Readonly<Record<string, string>> {
  const copy: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (typeof value === "string") copy[key] = value;
  return Object.freeze(copy);
}

/**
 * Whether a scan's skills, diagnostics and environment are what `previous` holds. Never so for
 * the empty snapshot: the first scan always swaps one in.
 */
export function sameContent(
  previous: RegistrySnapshot,
  skills: readonly RegisteredSkill[],
  diagnostics: readonly Diagnostic[],
  env: Readonly<Record<string, string>>,
  /** Whether the skills are known to be the same; undefined when they must be compared. */
  sameSkills: boolean | undefined,
): boolean {
  if (previous === EMPTY_SNAPSHOT || sameSkills === false) return false;
  if (sameSkills === undefined) {
    if (previous.skills.length !== skills.length) return false;
    for (let i = 0; i < skills.length; i++) if (previous.skills[i] !== skills[i]) return false;
  }
  if (!sameDiagnostics(previous.diagnostics, diagnostics)) return false;
  const keys = Object.keys(env);
  return keys.length === Object.keys(previous.env).length && keys.every((k) => previous.env[k] === env[k]);
}

/**
 * Equal as JSON, compared one diagnostic at a time: most are the very objects the last scan
 * reported (from the cache and the walks' reports), so the text of only the others is made,
 * not the whole list's at every rescan.
 */
function sameDiagnostics(a: readonly Diagnostic[], b: readonly Diagnostic[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && JSON.stringify(a[i]) !== JSON.stringify(b[i])) return false;
  return true;
}
