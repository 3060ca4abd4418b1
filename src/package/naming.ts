/**
 * Skill-name rules shared by lenient loading (warnings) and strict validation (errors), with
 * the reference validator's exact wording. Names are compared after NFKC and counted in code
 * points, so `café` typed with a combining accent names the same skill as the composed one.
 */
import { MAX_NAME_LENGTH } from "./limits.js";

export interface NameProblem {
  code: string;
  message: string;
}

// Nearly every real name is plain ASCII, where NFKC and the Unicode class checks change
// nothing; skipping them halves the cost of loading a large tree.
const PLAIN_ASCII_NAME = /^[a-z0-9-]*$/;

export function normalizeName(name: string): string {
  const trimmed = name.trim();
  return PLAIN_ASCII_NAME.test(trimmed) ? trimmed : trimmed.normalize("NFKC");
}

/** Length in code points, as the standard counts: an emoji is one character, not two. */
export function codePointLength(text: string): number {
  let surrogatePairs = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        surrogatePairs++;
        i++;
      }
    }
  }
  return text.length - surrogatePairs;
}

/** Whether `text` is longer than `limit` code points; cheap when the UTF-16 length already says no. */
export function exceedsCodePoints(text: string, limit: number): boolean {
  return text.length > limit && codePointLength(text) > limit;
}

/** Problems in reference order: length, case, edge hyphens, double hyphens, characters, directory. */
/** What `nameProblems` gives a good name: one shared empty list, not a new one per skill. */
const NO_PROBLEMS: readonly NameProblem[] = Object.freeze([]);

export function nameProblems(rawName: string, dirName: string | null): readonly NameProblem[] {
  const name = normalizeName(rawName);
  if (dirName !== null && PLAIN_ASCII_NAME.test(name) && dirName === name) {
    // The common case: a plain name equal to its directory can only break the hyphen and length rules.
    if (name.length <= MAX_NAME_LENGTH && !name.startsWith("-") && !name.endsWith("-") && !name.includes("--")) return NO_PROBLEMS;
  }
  const problems: NameProblem[] = [];
  const length = codePointLength(name);
  if (length > MAX_NAME_LENGTH) {
    problems.push({ code: "name_too_long", message: `Skill name '${name}' exceeds ${MAX_NAME_LENGTH} character limit (${length} chars)` });
  }
  if (name !== name.toLowerCase()) {
    problems.push({ code: "name_case", message: `Skill name '${name}' must be lowercase` });
  }
  if (name.startsWith("-") || name.endsWith("-")) {
    problems.push({ code: "name_hyphen_edge", message: "Skill name cannot start or end with a hyphen" });
  }
  if (name.includes("--")) {
    problems.push({ code: "name_double_hyphen", message: "Skill name cannot contain consecutive hyphens" });
  }
  // Any Unicode letter or digit, as the reference's `str.isalnum()` allows.
  if (!/^[\p{L}\p{N}-]*$/u.test(name)) {
    problems.push({
      code: "name_characters",
      message: `Skill name '${name}' contains invalid characters. Only letters, digits, and hyphens are allowed.`,
    });
  }
  if (dirName !== null && dirName.normalize("NFKC") !== name) {
    problems.push({ code: "name_mismatch", message: `Directory name '${dirName}' must match skill name '${name}'` });
  }
  return problems;
}

/**
 * Whether `name` is made only of the standard's characters (letters, digits and hyphens, not
 * starting with a hyphen), so it can stand unquoted as one word of a shell command and never reads as an
 * option. Lenient loading serves names outside them (`a; touch X #`, `--config=/tmp/x.json`)
 * with a warning; a catalog meant for a shell leaves such names out instead of handing an agent
 * a command built from them.
 */
export function isShellSafeName(name: string): boolean {
  return /^[\p{L}\p{N}][\p{L}\p{N}-]*$/u.test(name);
}
