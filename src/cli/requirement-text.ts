import type { Requirement, Requirements } from "../package/types.js";

/** A requirement tree as one readable expression, e.g. `all(env API_KEY, any(binary rg, binary grep))`. */
export function requirementText(requirement: Requirement): string {
  switch (requirement.kind) {
    case "env":
    case "binary":
    case "skill":
      return `${requirement.kind} ${requirement.name}`;
    case "all":
    case "any":
      return `${requirement.kind}(${requirement.items.map(requirementText).join(", ")})`;
  }
}

export function requirementsText(requirements: Requirements): string {
  const parts: string[] = [];
  if (requirements.root) parts.push(requirementText(requirements.root));
  if (requirements.optional.length > 0) parts.push(`optional: ${requirements.optional.map(requirementText).join(", ")}`);
  return parts.join("; ");
}
