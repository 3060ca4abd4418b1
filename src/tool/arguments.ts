import { MAX_USABLE_NAME_LENGTH } from "../package/limits.js";
import { normalizeName } from "../package/naming.js";
import type { ToolError } from "./envelope.js";

/** What a call asks for, once its arguments are known to be well formed. */
export type SkillToolRequest =
  | { mode: "list" }
  | { mode: "activate"; name: string }
  | { mode: "read"; name: string; filePath: string };

const KNOWN_ARGUMENTS = new Set(["name", "file_path"]);

/**
 * Bounds on what a model may send. No loadable skill has a longer name, and no real path is
 * longer than a few hundred characters; anything past that is a mistake or an attack, and
 * answering it early keeps a megabyte "name" from costing seconds of close-name search and
 * from being echoed into envelopes and the session log.
 */
export const MAX_NAME_ARGUMENT = MAX_USABLE_NAME_LENGTH;
export const MAX_FILE_PATH_ARGUMENT = 4096;

/**
 * Checks the raw arguments a model sent. The schema deliberately leaves all of this to the
 * handler (SPEC §4), so every rule about argument shape lives here.
 */
export function parseSkillToolArguments(args: unknown): SkillToolRequest | ToolError {
  if (args === undefined || args === null) return { mode: "list" };
  if (typeof args !== "object" || Array.isArray(args)) {
    return invalid("The arguments must be an object with optional `name` and `file_path` strings.");
  }
  const record = args as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => !KNOWN_ARGUMENTS.has(key));
  if (unknown.length > 0) {
    return {
      ...invalid(
        `Unknown argument${unknown.length > 1 ? "s" : ""} ${unknown.map((key) => JSON.stringify(key)).join(", ")}: ` +
          "the skill tool takes only `name` and `file_path`.",
      ),
      unknown,
    };
  }
  const { name, file_path: filePath } = record;
  if (name !== undefined && typeof name !== "string") return invalid("`name` must be a string.");
  if (filePath !== undefined && typeof filePath !== "string") return invalid("`file_path` must be a string.");
  if (name !== undefined && name.length > MAX_NAME_ARGUMENT) {
    return invalid(`\`name\` is ${name.length} characters long; no skill name is longer than ${MAX_NAME_ARGUMENT}. List the skills to see their names.`);
  }
  if (filePath !== undefined && filePath.length > MAX_FILE_PATH_ARGUMENT) {
    return invalid(`\`file_path\` is ${filePath.length} characters long; the limit is ${MAX_FILE_PATH_ARGUMENT}.`);
  }
  // Skill names are NFKC-normalised when loaded; the requested one goes through the same rule, so
  // `café` typed with a combining accent names the skill stored as composed `café`.
  const requested = name === undefined ? "" : normalizeName(name);
  if (filePath !== undefined) {
    if (requested === "") return invalid("`file_path` needs `name`: say which skill the file belongs to.");
    return { mode: "read", name: requested, filePath };
  }
  return requested === "" ? { mode: "list" } : { mode: "activate", name: requested };
}

export function isToolError(value: SkillToolRequest | ToolError): value is ToolError {
  return "code" in value;
}

function invalid(message: string): ToolError {
  return { code: "invalid_arguments", message };
}
