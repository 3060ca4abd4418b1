/**
 * Tool-surface narrowing by loaded skills (SPEC §5.3). The union is taken over declaring skills
 * only: a skill without `tools` has no opinion and must not drag the surface down to what its
 * neighbour declared. Narrowing is the fail-closed direction, so nothing but the end of the
 * conversation lifts it.
 */
import type { ConversationState } from "./state.js";

export const SKILL_TOOL_NAME = "skill";

export type GateDecision = { allowed: true } | { allowed: false; message: string };

/** The narrowed surface in first-declared order, always with `skill`; null when nothing narrows. */
export function narrowedSurface(state: ConversationState): string[] | null {
  const declared = [...state.loaded.values()].filter((entry) => entry.tools !== null);
  if (declared.length === 0) return null;
  const surface = new Set<string>();
  for (const entry of declared) for (const tool of entry.tools ?? []) surface.add(tool);
  surface.add(SKILL_TOOL_NAME);
  return [...surface];
}

export function gateTool(surface: readonly string[] | null, toolName: string): GateDecision {
  if (surface === null || surface.includes(toolName)) return { allowed: true };
  return {
    allowed: false,
    message: `Blocked by policy: \`${toolName}\` is withheld by an active restriction for this run. Available: ${surface
      .map((tool) => `\`${tool}\``)
      .join(", ")}`,
  };
}
