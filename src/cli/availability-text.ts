import type { Availability, Scope } from "../access/types.js";

/** One short phrase for a person: why an allowed skill cannot be used here, or null when it can. */
export function availabilityProblem(availability: Availability | undefined): string | null {
  if (!availability || availability.status === "available") return null;
  if (availability.status === "unavailable") return `unavailable: missing ${availability.missing.join(", ")}`;
  return `invalid requirements: ${availability.message}`;
}

/** Why a scope's model gets no skills at all: the tool policy withholds the `skill` tool (SPEC §3.1). */
export function toolUnavailableText(scope: Scope): string {
  const who = [scope.agentId ? `agent '${scope.agentId}'` : null, scope.projectId ? `project '${scope.projectId}'` : null].filter((w) => w !== null);
  return `the \`skill\` tool is not available ${who.length > 0 ? `for ${who.join(" in ")}` : "in this scope"} (tool policy)`;
}
