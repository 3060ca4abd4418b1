import type { ScopedRegistry, SkillInfo } from "../access/types.js";
import { showInvisible } from "../audit/invisible.js";
import { compareNames, ORIGIN_RANK } from "../registry/order.js";
import { success, type ListData } from "./envelope.js";
import { renderEnvelopeText } from "./render.js";

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
    // The data is what MCP hands a model as `structuredContent`: invisible characters shown there too.
    group.skills.push({ name: skill.name, description: showInvisible(skill.description) });
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


/** A `{}` answer: its data and the text a model is shown for it. */
export interface ListAnswer {
  readonly data: ListData;
  readonly text: string;
}

/**
 * One answer per offered list, shared by every call and session that sees the same list. The
 * list is the key by identity: scoped registries hand out one frozen list per snapshot and
 * requirement answers (`ScopedRegistry.offered`), replaced whenever what it holds may change, so
 * an answer kept for a list is never stale. Building and rendering the listing again for every
 * `{}` call cost more than serving it.
 */
const answers = new WeakMap<readonly SkillInfo[], ListAnswer>();

/** The `{}` answer for a registry; shared and deep-frozen when the registry offers a shared list. */
export function listAnswer(registry: ScopedRegistry): ListAnswer {
  const offered = registry.offered?.();
  const kept = offered ? answers.get(offered) : undefined;
  if (kept) return kept;
  const data = listData(registry);
  const answer: ListAnswer = { data, text: renderEnvelopeText(success(data)) };
  if (offered) answers.set(offered, deepFrozen(answer));
  return answer;
}

function deepFrozen<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFrozen(child);
    Object.freeze(value);
  }
  return value;
}
