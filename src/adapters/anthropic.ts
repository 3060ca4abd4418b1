import type { SkillManageInputSchema, SkillManageToolDefinition } from "../tool/manage-types.js";
import type { SkillToolDefinition, SkillToolInputSchema } from "../tool/types.js";

export interface AnthropicToolDefinition {
  name: string;
  description: string;
  input_schema: SkillToolInputSchema | SkillManageInputSchema;
}

/**
 * A Messages API `tools[]` entry. Hand the model `renderEnvelopeText(…)` (or `invoke(…).text`)
 * as the `tool_result` content. `skill_manage` (`session.manageTool`, when not null) gets its
 * entry the same way, beside `skill`.
 */
export function anthropicToolDefinition(tool: SkillToolDefinition | SkillManageToolDefinition): AnthropicToolDefinition {
  return { name: tool.name, description: tool.description, input_schema: structuredClone(tool.inputSchema) };
}
