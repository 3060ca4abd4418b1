import type { SkillManageInputSchema } from "./manage-types.js";

export const SKILL_MANAGE_TOOL_DESCRIPTION =
  "Keep what you learn as skills: create, change or delete skills in the folders opened for writing. " +
  "`create` takes `name` and the whole SKILL.md as `content` (YAML frontmatter with `name` equal to the folder name " +
  "and a `description`, then the instructions). `edit` replaces the whole SKILL.md; `patch` replaces `old_string` " +
  "with `new_string` in SKILL.md or in the file named by `file_path` (it must occur exactly once unless `replace_all`). " +
  "Before `edit` or `patch` of SKILL.md, read it with the skill tool (`name` and `file_path: \"SKILL.md\"`): a change to " +
  "a file that changed since you read it is refused. `write_file` and `remove_file` handle the skill's other files " +
  "(`references/x.md`, `scripts/run.sh`); `delete` removes the whole skill. Every change is checked first and is live at once.";

/**
 * Flat, like the `skill` tool's: one object with an `action` string and the arguments of every
 * action, none required by the schema. The handler checks which ones each action takes and answers
 * anything else with `invalid_arguments`, a message the model can act on.
 */
export function skillManageInputSchema(): SkillManageInputSchema {
  const text = (description: string) => ({ type: "string" as const, description });
  return {
    type: "object",
    properties: {
      action: {
        type: "string",
        enum: ["create", "edit", "patch", "write_file", "remove_file", "delete"],
        description: "What to do.",
      },
      name: text("The skill's name (its folder name)."),
      content: text("create, edit: the whole SKILL.md. write_file: the file's whole text."),
      old_string: text("patch: the exact text to replace."),
      new_string: text("patch: the text to put in its place."),
      replace_all: { type: "boolean", description: "patch: replace every occurrence instead of exactly one." },
      file_path: text("patch (optional; default SKILL.md), write_file, remove_file: the file's path relative to the skill folder."),
    },
  };
}
