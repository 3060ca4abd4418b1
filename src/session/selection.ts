/**
 * Explicit narrowing of a run to named skills (the `skills` session option): on top of policy,
 * a skill outside the selection is indistinguishable from a missing one, in the listing, the
 * catalog, activation and reads alike.
 */
import type { ScopedRegistry } from "../access/types.js";

export function selectSkills(registry: ScopedRegistry, names: ReadonlySet<string> | null): ScopedRegistry {
  if (names === null) return registry;
  return {
    toolAvailable: registry.toolAvailable,
    version: registry.version,
    list: () => registry.list().filter((skill) => names.has(skill.name)),
    get: (name) => (names.has(name) ? registry.get(name) : undefined),
    all: () => registry.all().filter((skill) => names.has(skill.name)),
    availability: (name) => (names.has(name) ? registry.availability(name) : undefined),
  };
}
