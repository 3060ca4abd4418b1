import type { SkillToolInputSchema } from "./types.js";

export const SKILL_TOOL_DESCRIPTION =
  "Use skills: folders of instructions, scripts and reference files for specialised tasks. " +
  "Call with no arguments to list the skills available here. " +
  "Call with `name` to load a skill's instructions before working on a task it covers. " +
  "Call with `name` and `file_path` to read one file of that skill (`SKILL.md`, or any file of its " +
  "folder by its relative path) when its instructions point you to it.";

/**
 * Flat on purpose, with no `required` and no `additionalProperties`: every provider accepts this
 * shape, and the handler itself rejects unknown or inconsistent arguments with a message the
 * model can act on (a schema rejection would be reported by the host, not by us).
 */
export function skillToolInputSchema(): SkillToolInputSchema {
  return {
    type: "object",
    properties: {
      name: {
        type: "string",
        description: "Name of the skill to load. Omit it (or leave it blank) to list the available skills.",
      },
      file_path: {
        type: "string",
        description:
          "Instead of loading the skill, read this one of its files: `SKILL.md`, or any file of the skill " +
          "by its path relative to the skill directory (`references/guide.md`, `themes/dark.md`). Requires `name`.",
      },
    },
  };
}
