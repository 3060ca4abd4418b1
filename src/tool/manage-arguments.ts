import { normalizeName } from "../package/naming.js";
import { MAX_FILE_PATH_ARGUMENT, MAX_NAME_ARGUMENT } from "./arguments.js";
import type { ToolError } from "./envelope.js";

/** What a `skill_manage` call asks for, once its arguments are known to be well formed (SPEC §11). */
export type SkillManageRequest =
  | { action: "create"; name: string; content: string }
  | { action: "edit"; name: string; content: string }
  | { action: "patch"; name: string; oldString: string; newString: string; filePath: string | null; replaceAll: boolean }
  | { action: "write_file"; name: string; filePath: string; content: string }
  | { action: "remove_file"; name: string; filePath: string }
  | { action: "delete"; name: string };

type Action = SkillManageRequest["action"];

/** The arguments each action takes besides `action` and `name`: required, then optional. */
const ACTION_ARGUMENTS: Record<Action, { required: string[]; optional: string[] }> = {
  create: { required: ["content"], optional: [] },
  edit: { required: ["content"], optional: [] },
  patch: { required: ["old_string", "new_string"], optional: ["file_path", "replace_all"] },
  write_file: { required: ["file_path", "content"], optional: [] },
  remove_file: { required: ["file_path"], optional: [] },
  delete: { required: [], optional: [] },
};

const ACTIONS = Object.keys(ACTION_ARGUMENTS) as Action[];

/**
 * Checks the raw arguments of a `skill_manage` call: one flat object, like the `skill` tool's, so
 * every rule about which action takes which argument lives here. Unknown actions and arguments,
 * and arguments the action does not take, answer `invalid_arguments` naming them.
 */
export function parseSkillManageArguments(args: unknown): SkillManageRequest | ToolError {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return invalid(`The arguments must be an object with an \`action\` (${ACTIONS.join(", ")}) and a \`name\`.`);
  }
  const record = args as Record<string, unknown>;
  const action = record.action;
  if (typeof action !== "string" || !(ACTIONS as string[]).includes(action)) {
    return invalid(`\`action\` must be one of ${ACTIONS.join(", ")}${action === undefined ? "" : `; got ${JSON.stringify(action)}`}.`);
  }
  const { required, optional } = ACTION_ARGUMENTS[action as Action];
  const taken = new Set(["action", "name", ...required, ...optional]);
  const unknown = Object.keys(record).filter((key) => !taken.has(key));
  if (unknown.length > 0) {
    return {
      ...invalid(
        `Unknown argument${unknown.length > 1 ? "s" : ""} ${unknown.map((key) => JSON.stringify(key)).join(", ")} for action ${JSON.stringify(action)}: ` +
          `it takes \`name\`${[...required, ...optional].map((key) => `, \`${key}\``).join("")}.`,
      ),
      unknown,
    };
  }
  for (const key of ["name", ...required]) if (record[key] === undefined) return invalid(`Action ${JSON.stringify(action)} needs \`${key}\`.`);
  for (const key of ["name", "content", "old_string", "new_string", "file_path"]) {
    if (record[key] !== undefined && typeof record[key] !== "string") return invalid(`\`${key}\` must be a string.`);
  }
  if (record.replace_all !== undefined && typeof record.replace_all !== "boolean") return invalid("`replace_all` must be true or false.");
  const rawName = record.name as string;
  if (rawName.length > MAX_NAME_ARGUMENT) return invalid(`\`name\` is ${rawName.length} characters long; no skill name is longer than ${MAX_NAME_ARGUMENT}.`);
  const filePath = record.file_path as string | undefined;
  if (filePath !== undefined && filePath.length > MAX_FILE_PATH_ARGUMENT) {
    return invalid(`\`file_path\` is ${filePath.length} characters long; the limit is ${MAX_FILE_PATH_ARGUMENT}.`);
  }
  // Named the way the registry names skills, so any spelling of a name finds the skill.
  const name = normalizeName(rawName);
  if (name === "") return invalid("`name` must not be blank.");
  const content = record.content as string;
  switch (action as Action) {
    case "create":
      return { action: "create", name, content };
    case "edit":
      return { action: "edit", name, content };
    case "patch":
      if (record.old_string === "") return invalid("`old_string` must not be empty: say which text to replace.");
      return {
        action: "patch",
        name,
        oldString: record.old_string as string,
        newString: record.new_string as string,
        filePath: filePath ?? null,
        replaceAll: record.replace_all === true,
      };
    case "write_file":
      return { action: "write_file", name, filePath: filePath!, content };
    case "remove_file":
      return { action: "remove_file", name, filePath: filePath! };
    case "delete":
      return { action: "delete", name };
  }
}

function invalid(message: string): ToolError {
  return { code: "invalid_arguments", message };
}
