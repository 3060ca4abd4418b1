/**
 * Explicit narrowing of a run to named skills (the `skills` session option): on top of policy,
 * a skill outside the selection is indistinguishable from a missing one, in the listing, the
 * catalog, activation and reads alike.
 */
import type { ScopedRegistry, SkillInfo } from "../access/types.js";

/**
 * The narrowed list last derived for each selection, with the list it came from: one array per
 * selection and registry list, so what is derived from it (the catalog) is shared as that is.
 */
const narrowed = new WeakMap<ReadonlySet<string>, { from: readonly SkillInfo[]; to: readonly SkillInfo[] }>();

function offeredOf(registry: ScopedRegistry, names: ReadonlySet<string>): readonly SkillInfo[] {
  const from = registry.offered!();
  const last = narrowed.get(names);
  if (last && last.from === from) return last.to;
  const to = Object.freeze(from.filter((skill) => names.has(skill.name)));
  narrowed.set(names, { from, to });
  return to;
}

export function selectSkills(registry: ScopedRegistry, names: ReadonlySet<string> | null): ScopedRegistry {
  if (names === null) return registry;
  return {
    toolAvailable: registry.toolAvailable,
    version: registry.version,
    list: () => registry.list().filter((skill) => names.has(skill.name)),
    ...(registry.offered ? { offered: () => offeredOf(registry, names) } : {}),
    get: (name) => (names.has(name) ? registry.get(name) : undefined),
    all: () => registry.all().filter((skill) => names.has(skill.name)),
    availability: (name) => (names.has(name) ? registry.availability(name) : undefined),
  };
}
