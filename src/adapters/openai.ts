import type { SkillManageInputSchema, SkillManageToolDefinition } from "../tool/manage-types.js";
import type { SkillToolDefinition, SkillToolInputSchema } from "../tool/types.js";

export interface OpenAIToolDefinition {
  type: "function";
  function: { name: string; description: string; parameters: SkillToolInputSchema | SkillManageInputSchema };
}

/**
 * A Chat Completions `tools[]` entry. Not `strict`: strict mode demands every property be
 * required, while the skill tool's arguments are all optional by design. Hand the model
 * `renderEnvelopeText(…)` (or `invoke(…).text`) as the tool message content. `skill_manage` (`session.manageTool`, when not null) gets its entry the
 * same way, beside `skill`.
 */
export function openAIToolDefinition(tool: SkillToolDefinition | SkillManageToolDefinition): OpenAIToolDefinition {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: structuredClone(tool.inputSchema) },
  };
}
