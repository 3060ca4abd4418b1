/**
 * Tool Access Policy (SPEC §3.1): whether a tool is offered at all. An agent's effective tools
 * are the project's whitelist (when the scope is in a project) ∩ the agent's allowed tools −
 * its denied tools; `"*"` in a list stands for every tool.
 */
import type { AgentPolicy, ProjectPolicy } from "./types.js";

/** The name of the tool that lists, loads and reads skills. */
export const SKILL_TOOL = "skill";
/** The name of the tool that writes skills (SPEC §11), offered only where a writable source is open. */
export const SKILL_MANAGE_TOOL = "skill_manage";

/**
 * A project's whitelist when it sets none: skillport's tools, default-on. `skill_manage` is in it
 * because it is already off unless the host opens a writable source; a project that wants its
 * agents to read but not write skills names only `skill`. A host governing its own tools with
 * this policy passes a whitelist naming them.
 */
export const PROJECT_DEFAULT_ALLOWED_TOOLS: readonly string[] = Object.freeze([SKILL_TOOL, SKILL_MANAGE_TOOL]);

export interface ToolPolicyContext {
  agent?: AgentPolicy | undefined;
  /** Present exactly when the scope is in a project (`{}` for a project with no policy configured). */
  project?: ProjectPolicy | undefined;
}

export function isToolEffective(tool: string, { agent, project }: ToolPolicyContext): boolean {
  if (project && !names(project.toolWhitelist ?? PROJECT_DEFAULT_ALLOWED_TOOLS, tool)) return false;
  if (agent?.allowedTools && !names(agent.allowedTools, tool)) return false;
  return !(agent?.deniedTools && names(agent.deniedTools, tool));
}

/** The subset of `tools` the policy leaves effective, in the order given. */
export function effectiveTools(tools: readonly string[], context: ToolPolicyContext): string[] {
  return tools.filter((tool) => isToolEffective(tool, context));
}

function names(list: readonly string[], tool: string): boolean {
  return list.includes("*") || list.includes(tool);
}
