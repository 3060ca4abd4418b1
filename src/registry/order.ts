/**
 * The one ordering of skills every surface shows: origin precedence (agent > project >
 * global > bundled, the same rank that decides name collisions), then source order, then
 * name by code unit. Listings, catalogs and the CLI all sort through here so the model's
 * catalog, the tool's list and a person's `skillport list` never disagree, and the prompt
 * prefix stays byte-stable.
 */
import { ORIGIN_RANK } from "./sources.js";
import type { Origin } from "./types.js";

export { ORIGIN_RANK };

/** Code-unit order: locale-independent, so the same skills sort the same on every machine. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareOrigins(a: Origin, b: Origin): number {
  return ORIGIN_RANK[a] - ORIGIN_RANK[b];
}

export function compareSkills(
  a: { origin: Origin; name: string; sourceIndex?: number },
  b: { origin: Origin; name: string; sourceIndex?: number },
): number {
  return compareOrigins(a.origin, b.origin) || (a.sourceIndex ?? 0) - (b.sourceIndex ?? 0) || compareNames(a.name, b.name);
}
