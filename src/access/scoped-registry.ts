/**
 * Scoped registries (SPEC §3.2): the view one `(projectId?, agentId?)` pair has of a snapshot.
 * Resolved on demand and cached per pair until the snapshot changes, so a tool call costs a map
 * lookup. A skill the scope may not use is simply absent: indistinguishable from a missing one.
 */
import type { Diagnostic } from "../package/diagnostic.js";
import { diagnosticsForGroups } from "../registry/registry.js";
import { groupsOfScope, ORIGIN_RANK } from "../registry/sources.js";
import type { RegisteredSkill, RegistrySnapshot } from "../registry/types.js";
import { findBinary } from "./binary-lookup.js";
import { RequirementEvaluator } from "./requirements.js";
import { allowedSkills, policiesOfScope, type SkillPolicies } from "./skill-policy.js";
import { isToolEffective, SKILL_TOOL } from "./tool-policy.js";
import type { Scope, ScopedRegistry, SkillInfo } from "./types.js";

/** A scoped registry plus the diagnostics that concern its scope (for people, never the model). */
export interface ScopedRegistryView extends ScopedRegistry {
  diagnostics(): Diagnostic[];
}

export type ScopeResolver = (scope?: Scope) => ScopedRegistryView;

export function createScopeResolver(currentSnapshot: () => RegistrySnapshot, policies: SkillPolicies): ScopeResolver {
  let cachedFor: RegistrySnapshot | null = null;
  let cache = new Map<string, ScopedRegistryView>();
  let binaries = new Map<string, boolean>();
  return (scope = {}) => {
    const snapshot = currentSnapshot();
    if (snapshot !== cachedFor) {
      // Binaries are looked up again after a refresh: that is when a newly installed tool shows.
      cachedFor = snapshot;
      cache = new Map();
      binaries = new Map();
    }
    const key = JSON.stringify([scope.projectId ?? null, scope.agentId ?? null]);
    let view = cache.get(key);
    if (!view) {
      const lookups = binaries;
      const hasBinary = (name: string) => {
        let found = lookups.get(name);
        if (found === undefined) {
          found = findBinary(name, snapshot.env.PATH) !== null;
          lookups.set(name, found);
        }
        return found;
      };
      view = buildScopedRegistry(snapshot, normaliseScope(scope), policies, hasBinary);
      cache.set(key, view);
    }
    return view;
  };
}

export function buildScopedRegistry(
  snapshot: RegistrySnapshot,
  scope: Scope,
  policies: SkillPolicies,
  hasBinary: (name: string) => boolean = (name) => findBinary(name, snapshot.env.PATH) !== null,
): ScopedRegistryView {
  const scopePolicies = policiesOfScope(scope, policies);
  const allowed = allowedSkills(snapshot, scope, scopePolicies);
  const byName = new Map(allowed.map((skill) => [skill.name, skill]));
  const ordered = [...allowed].sort(
    (a, b) => ORIGIN_RANK[a.origin] - ORIGIN_RANK[b.origin] || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  const invocable = ordered.filter((skill) => !skill.manifest.disableModelInvocation);
  const evaluator = new RequirementEvaluator({ lookup: (name) => byName.get(name), env: snapshot.env, hasBinary });
  let infos: SkillInfo[] | null = null;
  return Object.freeze({
    toolAvailable: isToolEffective(SKILL_TOOL, scopePolicies),
    version: snapshot.version,
    list: () => (infos ??= invocable.map(toInfo)).map((info) => ({ ...info })),
    get: (name: string) => {
      const skill = byName.get(name);
      return skill && !skill.manifest.disableModelInvocation ? skill : undefined;
    },
    all: () => [...ordered],
    availability: (name: string) => {
      const skill = byName.get(name);
      return skill ? evaluator.availability(skill) : undefined;
    },
    diagnostics: () => diagnosticsForGroups(snapshot, groupsOfScope(scope)),
  });
}

function toInfo(skill: RegisteredSkill): SkillInfo {
  return { name: skill.name, description: skill.description, origin: skill.origin, label: skill.label, dir: skill.dir };
}

/** Only the two scope keys matter; anything else a caller passes (say, a whole session's options) is ignored. */
function normaliseScope(scope: Scope): Scope {
  const clean: Scope = {};
  if (scope.projectId !== undefined) clean.projectId = scope.projectId;
  if (scope.agentId !== undefined) clean.agentId = scope.agentId;
  return clean;
}
