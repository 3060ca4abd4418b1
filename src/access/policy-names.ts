/**
 * `unknown_skill_name`: a policy naming a skill that no source holds. Names in policies are
 * exact (SPEC §3.2), so a misspelt `allowedSkills` entry silently allows nothing and a misspelt
 * `excludedSkills` entry silently excludes nothing; a warning is the only way anyone learns.
 * Computed from the snapshot it is asked about, so it follows every refresh.
 */
import { diagnostic, type Diagnostic } from "../package/diagnostic.js";
import { groupsOfScope, visibilityGroup } from "../registry/sources.js";
import type { RegistrySnapshot } from "../registry/types.js";
import type { SkillPolicies } from "./skill-policy.js";
import type { AgentPolicy, ProjectPolicy, Scope } from "./types.js";

const AGENT_FIELDS = ["allowedSkills", "excludedSkills"] as const satisfies readonly (keyof AgentPolicy)[];
const PROJECT_FIELDS = ["disabledSkills", "sharedSkills"] as const satisfies readonly (keyof ProjectPolicy)[];

/**
 * Every policy entry naming no loaded skill. Given a scope, only that scope's own agent and
 * project policies are looked at, and only skills the scope could ever see count as existing:
 * another agent's private skill is as unknown to it as a missing one (SPEC §3.2), so the answer
 * says nothing about other scopes.
 */
export function unknownSkillNameWarnings(snapshot: RegistrySnapshot, policies: SkillPolicies, scope?: Scope): Diagnostic[] {
  const agents = policiesIn(policies.agents, scope ? scope.agentId : null);
  const projects = policiesIn(policies.projects, scope ? scope.projectId : null);
  // No policy to check (the usual case without a config file): no set of every loaded name.
  if (agents.length === 0 && projects.length === 0) return [];
  const visible = scope ? groupsOfScope(scope) : null;
  const known = new Set<string>();
  for (const skill of snapshot.skills) if (!visible || visible.has(visibilityGroup(skill))) known.add(skill.name);
  const warnings: Diagnostic[] = [];
  const check = (where: string, names: unknown): void => {
    if (!Array.isArray(names)) return;
    for (const name of names) {
      if (typeof name !== "string" || name === "*" || known.has(name)) continue;
      warnings.push(diagnostic(where, "warning", "unknown_skill_name", `${where} names ${JSON.stringify(name)}, but no loaded skill has that name; check the spelling`));
    }
  };
  for (const [id, policy] of agents) {
    for (const field of AGENT_FIELDS) check(`agents.${id}.${field}`, policy[field]);
  }
  for (const [id, policy] of projects) {
    for (const field of PROJECT_FIELDS) check(`projects.${id}.${field}`, policy[field]);
  }
  return warnings;
}

/** All own entries (`only` null), the one named (`only` a string), or none (a scope without one). */
function policiesIn<P>(policies: Readonly<Record<string, P>> | undefined, only: string | undefined | null): Array<[string, P]> {
  if (policies === undefined || only === undefined) return [];
  if (only === null) return Object.entries(policies);
  return Object.hasOwn(policies, only) ? [[only, policies[only]!]] : [];
}
