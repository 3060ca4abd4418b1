/**
 * Skill policy (SPEC §3.2): which registered skills one `(projectId?, agentId?)` scope may use.
 * - Shared pool (bundled + global): the agent's `allowedSkills` (absent or `["*"]` all, `[]`
 *   none) minus `excludedSkills`, unless the scope's project opted the skill in (a grant).
 * - Agent-private skills: only their owner, always.
 * - Project skills: the scope's own project minus the project's disables, always. Project
 *   sources without an id belong to the unnamed (working-directory) project, seen by scopes
 *   that name no project.
 * Of several allowed skills with one name, the first in precedence order is the one used.
 */
import type { AuditPolicy } from "./audit-verdict.js";
import type { RegisteredSkill, RegistrySnapshot } from "../registry/types.js";
import type { AgentPolicy, ProjectPolicy, Scope } from "./types.js";

export interface SkillPolicies {
  agents?: Readonly<Record<string, AgentPolicy>>;
  projects?: Readonly<Record<string, ProjectPolicy>>;
  /** The `{skill, rule}` pairs a person accepted (SPEC §12). */
  audit?: AuditPolicy;
}

export interface ScopePolicies {
  agent: AgentPolicy | undefined;
  /** Present exactly when the scope names a project. */
  project: ProjectPolicy | undefined;
}

export function policiesOfScope(scope: Scope, policies: SkillPolicies): ScopePolicies {
  return {
    agent: scope.agentId !== undefined ? ownPolicy(policies.agents, scope.agentId) : undefined,
    project: scope.projectId !== undefined ? (ownPolicy(policies.projects, scope.projectId) ?? {}) : undefined,
  };
}

/** Own entries only: an agent named `constructor` or `toString` must not get Object.prototype's member as its policy. */
function ownPolicy<P>(policies: Readonly<Record<string, P>> | undefined, id: string): P | undefined {
  return policies !== undefined && Object.hasOwn(policies, id) ? policies[id] : undefined;
}

/** The skills a scope may use, one per name, in the snapshot's precedence order. */
export function allowedSkills(snapshot: RegistrySnapshot, scope: Scope, policies: ScopePolicies): RegisteredSkill[] {
  const seen = new Set<string>();
  const allowed: RegisteredSkill[] = [];
  for (const skill of snapshot.skills) {
    if (seen.has(skill.name) || !isAllowed(skill, scope, policies)) continue;
    seen.add(skill.name);
    allowed.push(skill);
  }
  return allowed;
}

function isAllowed(skill: RegisteredSkill, scope: Scope, { agent, project }: ScopePolicies): boolean {
  switch (skill.origin) {
    case "agent":
      return scope.agentId !== undefined && skill.agentId === scope.agentId;
    case "project":
      return skill.projectId === scope.projectId && !project?.disabledSkills?.includes(skill.name);
    default:
      if (project?.sharedSkills?.includes(skill.name)) return true;
      return sharedPoolAllows(agent, skill.name);
  }
}

function sharedPoolAllows(agent: AgentPolicy | undefined, name: string): boolean {
  const allowed = agent?.allowedSkills;
  if (allowed && !allowed.includes("*") && !allowed.includes(name)) return false;
  return !agent?.excludedSkills?.includes(name);
}
