import type { Origin, RegisteredSkill } from "../registry/types.js";

const ORIGIN_RANK: Record<Origin, number> = { agent: 0, project: 1, global: 2, bundled: 3 };

/** People read listings in the same order the model's catalog uses: origin precedence, then name. */
export function byPrecedenceThenName(a: RegisteredSkill, b: RegisteredSkill): number {
  return ORIGIN_RANK[a.origin] - ORIGIN_RANK[b.origin] || a.sourceIndex - b.sourceIndex || compareNames(a.name, b.name);
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
