import type { Scope, ScopedRegistry } from "../access/types.js";
import type { RegisteredSkill } from "../registry/types.js";
import type { ToolError } from "./envelope.js";
import { closeNames } from "./suggest.js";
import type { SkillToolDeps } from "./types.js";

export type FoundSkill = {
  ok: true;
  registry: ScopedRegistry;
  skill: RegisteredSkill;
  /** Whether this call already rescanned: a call rescans at most once. */
  refreshed: boolean;
};

export type Lookup = FoundSkill | { ok: false; error: ToolError };

/**
 * Finds the skill a named call is about. On a miss the skills are rescanned exactly once and the
 * scope re-resolved, so a skill dropped on disk after the registry was cached works on the first
 * call. A skill outside the scope is reported exactly like one that does not exist.
 */
export async function lookupSkill(
  deps: SkillToolDeps,
  scope: Scope,
  registry: ScopedRegistry,
  name: string,
  userInvoked = false,
): Promise<Lookup> {
  const first = find(registry, name, userInvoked);
  if (first) return { ok: true, registry, skill: first, refreshed: false };
  return lookupAfterRefresh(deps, scope, name, userInvoked);
}

/** Rescans the skills, re-resolves the scope and looks the name up in the fresh snapshot. */
export async function lookupAfterRefresh(deps: SkillToolDeps, scope: Scope, name: string, userInvoked = false): Promise<Lookup> {
  try {
    await deps.refreshSkills();
  } catch {
    // A failed rescan leaves the last good snapshot serving; the lookup below answers from it.
  }
  const fresh = await deps.resolveRegistry(scope);
  if (!fresh.toolAvailable) return { ok: false, error: toolUnavailable() };
  const second = find(fresh, name, userInvoked);
  if (second) return { ok: true, registry: fresh, skill: second, refreshed: true };
  return { ok: false, error: notFound(name, fresh) };
}

/**
 * A user may start a skill the model may not (`disable-model-invocation: true`, SPEC §7 MCP
 * prompts); the model's lookup never sees one.
 */
function find(registry: ScopedRegistry, name: string, userInvoked: boolean): RegisteredSkill | undefined {
  const skill = registry.get(name);
  if (skill || !userInvoked) return skill;
  const normalised = name.trim().normalize("NFKC");
  return registry.all().find((candidate) => candidate.name === normalised);
}

export function toolUnavailable(): ToolError {
  return { code: "tool_unavailable", message: "The skill tool is not available here: listing, loading and reading skills are all turned off." };
}

function notFound(name: string, registry: ScopedRegistry): ToolError {
  const suggestions = closeNames(name, registry.list().map((skill) => skill.name));
  const hint =
    suggestions.length > 0
      ? ` Did you mean ${suggestions.map((s) => JSON.stringify(s)).join(", ")}?`
      : " Call the skill tool with no arguments to list the available skills.";
  return { code: "skill_not_found", message: `No skill named ${JSON.stringify(name)} is available.${hint}`, suggestions };
}
