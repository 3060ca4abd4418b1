import type { SkillToolDefinition, SkillToolInputSchema } from "../tool/types.js";

export interface AnthropicToolDefinition {
  name: string;
  description: string;
  input_schema: SkillToolInputSchema;
}

/**
 * A Messages API `tools[]` entry. Hand the model `renderEnvelopeText(…)` (or `invoke(…).text`)
 * as the `tool_result` content.
 */
export function anthropicToolDefinition(tool: SkillToolDefinition): AnthropicToolDefinition {
  return { name: tool.name, description: tool.description, input_schema: structuredClone(tool.inputSchema) };
}
