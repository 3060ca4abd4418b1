/**
 * Scoped registries (SPEC §3.2): the view one `(projectId?, agentId?)` pair has of a snapshot.
 * Resolved on demand and cached per pair until the snapshot changes, so a tool call costs a map
 * lookup; requirement answers are kept only until the next refresh (see `RequirementProbe`). A skill the scope may not use is simply absent: indistinguishable from a missing one.
 */
import type { Diagnostic } from "../package/diagnostic.js";
import { catalogDescription } from "../package/invocation-fields.js";
import { diagnosticsForGroups } from "../registry/registry.js";
import { groupsOfScope, ORIGIN_RANK } from "../registry/sources.js";
import type { RegisteredSkill, RegistrySnapshot } from "../registry/types.js";
import { AuditJudge } from "./audit-verdict.js";
import { findBinary } from "./binary-lookup.js";
import { RequirementEvaluator } from "./requirements.js";
import { unknownSkillNameWarnings } from "./policy-names.js";
import { allowedSkills, policiesOfScope, type SkillPolicies } from "./skill-policy.js";
import { isToolEffective, SKILL_TOOL } from "./tool-policy.js";
import type { Scope, ScopedRegistry, SkillInfo } from "./types.js";

/** A scoped registry plus the diagnostics that concern its scope (for people, never the model). */
export interface ScopedRegistryView extends ScopedRegistry {
  diagnostics(): Diagnostic[];
}

export type ScopeResolver = (scope?: Scope) => ScopedRegistryView;

/**
 * What requirement checks consult outside the snapshot. Answers may be remembered only while
 * `generation()` stays the same: a binary installed since the last look must show after a refresh
 * even when the refresh found the skill tree unchanged and kept its snapshot.
 */
export interface RequirementProbe {
  generation(): number;
  hasBinary(name: string, pathVariable: string | undefined): boolean;
}

/**
 * `requirementsGeneration` changes on every completed refresh (the registry's counter). Without
 * it, requirement answers are kept for as long as the snapshot is.
 */
export function createScopeResolver(
  currentSnapshot: () => RegistrySnapshot,
  policies: SkillPolicies,
  requirementsGeneration: () => number = snapshotIdentity(currentSnapshot),
): ScopeResolver {
  let cachedFor: RegistrySnapshot | null = null;
  let cache = new Map<string, ScopedRegistryView>();
  const probe = rememberingProbe(requirementsGeneration);
  return (scope = {}) => {
    const snapshot = currentSnapshot();
    if (snapshot !== cachedFor) {
      cachedFor = snapshot;
      cache = new Map();
    }
    const key = JSON.stringify([scope.projectId ?? null, scope.agentId ?? null]);
    let view = cache.get(key);
    if (!view) {
      view = buildScopedRegistry(snapshot, normaliseScope(scope), policies, probe);
      cache.set(key, view);
    }
    return view;
  };
}

/** Looks every binary up afresh; for one-off views that are thrown away after use. */
const LIVE_PROBE: RequirementProbe = {
  generation: () => 0,
  hasBinary: (name, pathVariable) => findBinary(name, pathVariable) !== null,
};

export function buildScopedRegistry(
  snapshot: RegistrySnapshot,
  scope: Scope,
  policies: SkillPolicies,
  probe: RequirementProbe = LIVE_PROBE,
): ScopedRegistryView {
  const scopePolicies = policiesOfScope(scope, policies);
  const judge = judgeOf(policies);
  const allowed = allowedSkills(snapshot, scope, scopePolicies);
  const byName = new Map(allowed.map((skill) => [skill.name, skill]));
  const ordered = [...allowed].sort(
    (a, b) => ORIGIN_RANK[a.origin] - ORIGIN_RANK[b.origin] || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  const invocable = ordered.filter((skill) => !skill.manifest.disableModelInvocation);
  const hasBinary = (name: string) => probe.hasBinary(name, snapshot.env.PATH);
  // The evaluator remembers settled results, so it is replaced whenever the probe's answers may be stale.
  let evaluator: RequirementEvaluator | null = null;
  let evaluatedIn = 0;
  const evaluatorNow = (): RequirementEvaluator => {
    const generation = probe.generation();
    if (!evaluator || generation !== evaluatedIn) {
      evaluator = new RequirementEvaluator({ lookup: (name) => byName.get(name), env: snapshot.env, hasBinary });
      evaluatedIn = generation;
    }
    return evaluator;
  };
  // What the model is offered depends on requirement answers, so it is kept only as long as
  // they are. Frozen, items and all: callers share it, and the catalog cache keys on it.
  // New answers that offer the same skills keep the same list, so what was derived from it stays.
  let infos: readonly SkillInfo[] | null = null;
  let offeredSkills: RegisteredSkill[] = [];
  let infosIn = 0;
  const offered = (): readonly SkillInfo[] => {
    const generation = probe.generation();
    if (!infos || generation !== infosIn) {
      const now = evaluatorNow();
      const skills = invocable.filter((skill) => canRun(skill, now) && judge.blockingNow(skill) === null);
      if (!infos || !sameSkills(skills, offeredSkills)) {
        infos = Object.freeze(skills.map((skill) => Object.freeze(toInfo(skill))));
        offeredSkills = skills;
      }
      infosIn = generation;
    }
    return infos;
  };
  return Object.freeze({
    toolAvailable: isToolEffective(SKILL_TOOL, scopePolicies),
    toolEffective: (tool: string) => isToolEffective(tool, scopePolicies),
    version: snapshot.version,
    sourceRoots: snapshot.sourceRoots,
    list: () => offered().map((info) => ({ ...info })),
    offered,
    get: (name: string) => {
      const skill = byName.get(name);
      return skill && !skill.manifest.disableModelInvocation ? skill : undefined;
    },
    all: () => [...ordered],
    availability: (name: string) => {
      const skill = byName.get(name);
      return skill ? evaluatorNow().availability(skill) : undefined;
    },
    blocked: (name: string) => {
      const skill = byName.get(name);
      return (skill && judge.blockingNow(skill)) ?? undefined;
    },
    audit: async (name: string) => {
      const skill = byName.get(name);
      return skill ? judge.state(skill) : undefined;
    },
    auditNow: (name: string) => {
      const skill = byName.get(name);
      return skill ? judge.stateNow(skill) : undefined;
    },
    diagnostics: () => [...diagnosticsForGroups(snapshot, groupsOfScope(scope)), ...unknownSkillNameWarnings(snapshot, policies, scope)],
  });
}

/** One judge per set of policies: its accepted pairs are read once, whichever scope asks. */
const judges = new WeakMap<SkillPolicies, AuditJudge>();

function judgeOf(policies: SkillPolicies): AuditJudge {
  let judge = judges.get(policies);
  if (!judge) judges.set(policies, (judge = new AuditJudge(policies.audit)));
  return judge;
}

/** Binary lookups shared by every scope (many skills need the same tools), forgotten when the generation moves. */
function rememberingProbe(generation: () => number): RequirementProbe {
  let answeredIn: number | null = null;
  let answers = new Map<string, boolean>();
  return {
    generation,
    hasBinary(name, pathVariable) {
      const current = generation();
      if (current !== answeredIn) {
        answeredIn = current;
        answers = new Map();
      }
      // Views of an older snapshot may still be in use, and its PATH may differ from the current one.
      const key = `${pathVariable ?? ""}\0${name}`;
      let found = answers.get(key);
      if (found === undefined) {
        found = findBinary(name, pathVariable) !== null;
        answers.set(key, found);
      }
      return found;
    },
  };
}

/** A generation that moves whenever the snapshot object is replaced. */
function snapshotIdentity(currentSnapshot: () => RegistrySnapshot): () => number {
  let seen: RegistrySnapshot | null = null;
  let generation = 0;
  return () => {
    const snapshot = currentSnapshot();
    if (snapshot !== seen) {
      seen = snapshot;
      generation += 1;
    }
    return generation;
  };
}

/**
 * Whether the model should be offered the skill (SPEC §5.5): one it cannot activate here, for
 * unmet or malformed requirements, would only cost it a turn. Most skills declare nothing, and
 * they skip the evaluator.
 */
function canRun(skill: RegisteredSkill, evaluator: RequirementEvaluator): boolean {
  if (skill.manifest.requirements === null && skill.manifest.requirementsError === null) return true;
  return evaluator.availability(skill).status === "available";
}

function sameSkills(a: readonly RegisteredSkill[], b: readonly RegisteredSkill[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** What the model is offered of a skill: its description as the catalog shows it (`when_to_use` joined on). */
function toInfo(skill: RegisteredSkill): SkillInfo {
  return { name: skill.name, description: catalogDescription(skill.description, skill.manifest.invocation), origin: skill.origin, label: skill.label, dir: skill.dir };
}

/** Only the two scope keys matter; anything else a caller passes (say, a whole session's options) is ignored. */
function normaliseScope(scope: Scope): Scope {
  const clean: Scope = {};
  if (scope.projectId !== undefined) clean.projectId = scope.projectId;
  if (scope.agentId !== undefined) clean.agentId = scope.agentId;
  return clean;
}
