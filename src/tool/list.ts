import type { ScopedRegistry } from "../access/types.js";
import { compareNames, ORIGIN_RANK } from "../registry/order.js";
import type { ListData } from "./envelope.js";

type Group = ListData["skill_groups"][number];

/**
 * The catalog a scope sees, grouped by origin and label. Reads the registry as it is: a list
 * never triggers a rescan (only a named miss does).
 */
export function listData(registry: ScopedRegistry): ListData {
  const groups = new Map<string, Group & { rank: number; sourceIndex: number }>();
  const skills = registry.list();
  for (const skill of skills) {
    const key = `${skill.origin}\0${skill.label}`;
    const sourceIndex = registry.get(skill.name)?.sourceIndex ?? Number.MAX_SAFE_INTEGER;
    let group = groups.get(key);
    if (!group) {
      group = { origin: skill.origin, label: skill.label, skills: [], rank: ORIGIN_RANK[skill.origin], sourceIndex };
      groups.set(key, group);
    }
    group.sourceIndex = Math.min(group.sourceIndex, sourceIndex);
    group.skills.push({ name: skill.name, description: skill.description });
  }
  const ordered = [...groups.values()].sort((a, b) => a.rank - b.rank || a.sourceIndex - b.sourceIndex);
  return {
    count: skills.length,
    skill_groups: ordered.map(({ origin, label, skills: members }) => ({
      origin,
      label,
      skills: members.sort((a, b) => compareNames(a.name, b.name)),
    })),
  };
}

