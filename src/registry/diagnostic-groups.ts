/**
 * Which of a snapshot's diagnostics a scope may be shown: each diagnostic is filed with the
 * visibility groups it concerns (the source's group; for a private refusal, its owner's too),
 * and a scope sees those whose groups it all sees.
 */
import type { Diagnostic } from "../package/diagnostic.js";
import type { VisibilityGroup } from "./sources.js";
import type { RegistrySnapshot } from "./types.js";

/**
 * Per snapshot: the visibility groups each diagnostic concerns (see `diagnosticsForGroups`), by
 * its index in the snapshot's list. A list beside the list rather than a map keyed on each
 * diagnostic: every scan, partial ones too, files every diagnostic again, and hashing thousands
 * of them into a new map was most of what a refresh after one edit cost at 10,000 skills.
 */
const diagnosticGroupsOf = new WeakMap<RegistrySnapshot, ReadonlyArray<readonly VisibilityGroup[]>>();
const NO_GROUPS: readonly VisibilityGroup[] = Object.freeze([]);

/** Files the groups of each of `snapshot`'s diagnostics, by its index in the snapshot's list. */
export function fileDiagnosticGroups(snapshot: RegistrySnapshot, groups: ReadonlyArray<readonly VisibilityGroup[]>): void {
  diagnosticGroupsOf.set(snapshot, groups);
}

/** The snapshot's diagnostics a scope seeing `groups` should be shown. */
export function diagnosticsForGroups(snapshot: RegistrySnapshot, groups: ReadonlySet<VisibilityGroup>): Diagnostic[] {
  const tags = diagnosticGroupsOf.get(snapshot);
  return snapshot.diagnostics.filter((_, i) => (tags?.[i] ?? NO_GROUPS).every((group) => groups.has(group)));
}
