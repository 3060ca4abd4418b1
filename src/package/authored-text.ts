/**
 * What an agent may write into a skill (SPEC §11): UTF-8 text within the §1 limits, and a
 * SKILL.md that `validate` accepts and the loader loads. Checked on the text before anything is
 * written, so a refused write leaves the disk as it was.
 */
import * as path from "node:path";
import { loadSkillFile } from "./load.js";
import { MAX_AUTHORED_FILE_BYTES } from "./limits.js";
import { parseReferenceFrontmatter, validateFrontmatter } from "./validate.js";

export type AuthoredTextProblem =
  | { reason: "not_utf8"; message: string }
  | { reason: "too_large"; message: string; size: number };

/** A lone surrogate: a JavaScript string that has no UTF-8 encoding (it would be written as U+FFFD). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Null when `text` may be written as a file of a skill; else why not. */
export function authoredTextProblem(text: string, shownPath: string): AuthoredTextProblem | null {
  if (LONE_SURROGATE.test(text)) {
    return { reason: "not_utf8", message: `Cannot write ${JSON.stringify(shownPath)}: the content is not valid Unicode text (it holds a lone surrogate), so it has no UTF-8 form.` };
  }
  return authoredSizeProblem(Buffer.byteLength(text, "utf8"), shownPath);
}

/**
 * Null when a file of `size` UTF-8 bytes may be written; else why not. Asked on its own before a
 * text is built whose size is known in advance (a `replace_all` patch can multiply a 1 MiB file
 * past what a string can hold, and building it first would throw or exhaust memory).
 */
export function authoredSizeProblem(size: number, shownPath: string): AuthoredTextProblem | null {
  if (size > MAX_AUTHORED_FILE_BYTES) {
    return {
      reason: "too_large",
      size,
      message: `Cannot write ${JSON.stringify(shownPath)}: it would be ${size} bytes; a file of a skill is at most ${MAX_AUTHORED_FILE_BYTES} bytes (1 MiB).`,
    };
  }
  return null;
}

/**
 * The messages that refuse `text` as the SKILL.md of a folder named `dirName`: the reference
 * validator's, in its order and wording, then anything the lenient loader would still refuse
 * (a frontmatter over 64 KiB, a name that cannot be shown). Empty when it may be written.
 */
export function authoredSkillFileProblems(text: string, dirName: string): string[] {
  const frontmatter = parseReferenceFrontmatter(text);
  if (!frontmatter.ok) return [frontmatter.message];
  const messages = validateFrontmatter(frontmatter.data, dirName);
  if (messages.length > 0) return messages;
  const loaded = loadSkillFile(path.join(dirName, "SKILL.md"), dirName, text, { size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0 });
  if (loaded.skill === null) return loaded.diagnostics.filter((d) => d.severity === "error").map((d) => d.message);
  return [];
}
