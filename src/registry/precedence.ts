/**
 * Name collisions (SPEC §2): agent > project > global > bundled, then source order. A loser is
 * never silent: it becomes a `shadowed` diagnostic naming the winner.
 *
 * Inside one visibility group a loser can never be seen, so it is dropped. Across groups the
 * loser stays in the registry, because scopes that do not see the winner still see it (the
 * global `deploy` is what every agent without its own private `deploy` gets); it is reported
 * as shadowed wherever both are visible.
 */
import { diagnostic, type Diagnostic } from "../package/diagnostic.js";
import { groupsMeet, ORIGIN_RANK, visibilityGroup, type VisibilityGroup } from "./sources.js";
import type { TimeSlicer } from "./time-slice.js";
import type { RegisteredSkill } from "./types.js";

export interface RankedSkills {
  skills: RegisteredSkill[];
  diagnostics: Diagnostic[];
  /** The groups a scope must see for each diagnostic to concern it. */
  diagnosticGroups: Map<Diagnostic, VisibilityGroup[]>;
}

/**
 * `candidates` in source order (ascending `sourceIndex`), each source's skills in walk order.
 * Yields in `slicer`'s turns: over 10,000 skills the ranking alone took 5–8 ms of one turn.
 */
export async function rankSkills(candidates: readonly RegisteredSkill[], slicer: TimeSlicer): Promise<RankedSkills> {
  const ordered = inPrecedenceOrder(candidates);
  const skills: RegisteredSkill[] = [];
  const diagnostics: Diagnostic[] = [];
  const diagnosticGroups = new Map<Diagnostic, VisibilityGroup[]>();
  // A name's kept skill, or its kept skills once a second one is kept: nearly every name is
  // unique, and an array per name was an allocation per skill.
  const keptByName = new Map<string, RegisteredSkill | RegisteredSkill[]>();
  // Index loops: this runs over every skill of a large tree in one go, and an iterator's
  // per-step objects are garbage the event loop pays to collect.
  for (let i = 0; i < ordered.length; i++) {
    if (slicer.due()) await slicer.yield();
    const skill = ordered[i]!;
    const kept = keptByName.get(skill.name);
    if (kept === undefined) {
      keptByName.set(skill.name, skill);
      skills.push(skill);
      continue;
    }
    let rivals: RegisteredSkill[];
    if (Array.isArray(kept)) rivals = kept;
    else keptByName.set(skill.name, (rivals = [kept]));
    const group = visibilityGroup(skill);
    const sameGroupWinner = rivals.find((rival) => visibilityGroup(rival) === group);
    if (sameGroupWinner) {
      // The same real directory reached through two sources is one skill, not a collision.
      if (sameGroupWinner.dir !== skill.dir) {
        const d = shadowed(skill, sameGroupWinner, false);
        diagnostics.push(d);
        diagnosticGroups.set(d, [group]);
      }
      continue;
    }
    for (const rival of rivals) {
      const rivalGroup = visibilityGroup(rival);
      if (rival.dir === skill.dir || !groupsMeet(rivalGroup, group)) continue;
      const d = shadowed(skill, rival, true);
      diagnostics.push(d);
      diagnosticGroups.set(d, [rivalGroup, group]);
    }
    rivals.push(skill);
    skills.push(skill);
  }
  return { skills, diagnostics, diagnosticGroups };
}

/** Candidates arrive in source order, so bucketing by origin keeps source order within each origin. */
function inPrecedenceOrder(candidates: readonly RegisteredSkill[]): readonly RegisteredSkill[] {
  // Most setups load one origin (often one source): then source order is already the order.
  let oneOrigin = true;
  for (let i = 1; i < candidates.length && oneOrigin; i++) oneOrigin = candidates[i]!.origin === candidates[0]!.origin;
  if (oneOrigin) return candidates;
  const buckets: RegisteredSkill[][] = [[], [], [], []];
  for (let i = 0; i < candidates.length; i++) buckets[ORIGIN_RANK[candidates[i]!.origin]]!.push(candidates[i]!);
  return buckets.flat();
}

function shadowed(loser: RegisteredSkill, winner: RegisteredSkill, onlyWhereBothVisible: boolean): Diagnostic {
  const where = onlyWhereBothVisible ? ` wherever both are visible` : "";
  return diagnostic(
    loser.skillFile,
    "warning",
    "shadowed",
    `Skill '${loser.name}' from ${describeSource(loser)} (${loser.dir}) is shadowed by '${winner.name}' from ${describeSource(winner)} (${winner.dir})${where}`,
  );
}

function describeSource(skill: RegisteredSkill): string {
  switch (skill.origin) {
    case "agent":
      return `agent '${skill.agentId ?? ""}' private skills`;
    case "project":
      return skill.projectId === undefined ? "the project" : `project '${skill.projectId}'`;
    default:
      return `${skill.origin} skills`;
  }
}
