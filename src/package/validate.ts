/**
 * Strict validation, check for check with the reference validator `skills-ref`: same checks,
 * same order, same messages, so a skill that passes here passes there and people can compare
 * the two outputs line by line. Deliberate differences, each because the reference would
 * crash or mislead:
 * - the frontmatter is split on whole `---` lines (the reference splits on the bare string, so
 *   a `---` inside a value ends its frontmatter early);
 * - invalid UTF-8 and files over 1 MiB get a message instead of an exception;
 * - the directory name is taken from the resolved path, so `validate .` compares the real name.
 * Scalars are compared as text, as the reference's string-only YAML reads them: `name: 123`
 * is the name "123".
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { readFrontmatter } from "./frontmatter.js";
import { MAX_COMPATIBILITY_LENGTH, MAX_DESCRIPTION_LENGTH } from "./limits.js";
import { codePointLength, exceedsCodePoints, nameProblems, normalizeName } from "./naming.js";
import { isFile } from "./path-kind.js";
import { locateSkillFile, readSkillFileSync } from "./skill-file.js";

export const STANDARD_FIELDS = ["allowed-tools", "compatibility", "description", "license", "metadata", "name"] as const;

/** The reference's list of messages; empty means valid. */
export async function validateSkill(target: string): Promise<string[]> {
  return validateSkillSync(target);
}

export function validateSkillSync(target: string): string[] {
  let dir = target;
  // A SKILL.md path means its directory: people tab-complete to the file.
  if (/^skill\.md$/i.test(path.basename(target)) && isFile(target)) dir = path.dirname(target);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    return [`Path does not exist: ${dir}`];
  }
  if (!stat.isDirectory()) return [`Not a directory: ${dir}`];
  const located = locateSkillFile(dir);
  if (!located) return ["Missing required file: SKILL.md"];
  const read = readSkillFileSync(located.file);
  if (!read.ok) return [read.message];
  const fm = readFrontmatter(read.text, { allowRetry: false });
  if (!fm.ok) return [fm.message];
  return validateFrontmatter(fm.data, path.basename(path.resolve(dir)));
}

export function validateFrontmatter(data: Record<string, unknown>, dirName: string | null): string[] {
  const errors: string[] = [];
  const extra = Object.keys(data).filter((k) => !(STANDARD_FIELDS as readonly string[]).includes(k));
  if (extra.length > 0) {
    errors.push(
      `Unexpected fields in frontmatter: ${extra.sort().join(", ")}. Only [${STANDARD_FIELDS.map((f) => `'${f}'`).join(", ")}] are allowed.`,
    );
  }

  if (!("name" in data)) errors.push("Missing required field in frontmatter: name");
  else {
    const name = asText(data.name);
    if (name === null || name.trim() === "") errors.push("Field 'name' must be a non-empty string");
    else errors.push(...nameProblems(normalizeName(name), dirName).map((p) => p.message));
  }

  if (!("description" in data)) errors.push("Missing required field in frontmatter: description");
  else {
    const description = asText(data.description);
    if (description === null || description.trim() === "") errors.push("Field 'description' must be a non-empty string");
    else if (exceedsCodePoints(description, MAX_DESCRIPTION_LENGTH)) {
      errors.push(`Description exceeds ${MAX_DESCRIPTION_LENGTH} character limit (${codePointLength(description)} chars)`);
    }
  }

  if ("compatibility" in data) {
    const compatibility = asText(data.compatibility);
    if (compatibility === null) errors.push("Field 'compatibility' must be a string");
    else if (exceedsCodePoints(compatibility, MAX_COMPATIBILITY_LENGTH)) {
      errors.push(`Compatibility exceeds ${MAX_COMPATIBILITY_LENGTH} character limit (${codePointLength(compatibility)} chars)`);
    }
  }

  if ("allowed-tools" in data) {
    const tools = data["allowed-tools"];
    if (Array.isArray(tools)) {
      if (!tools.every((t) => asText(t) !== null)) errors.push("Field 'allowed-tools' list items must all be strings");
    } else if (asText(tools) === null) {
      errors.push("Field 'allowed-tools' must be either a string or a list of strings");
    }
  }
  return errors;
}

/** Scalars as text, the way a string-only YAML reader sees them; null for lists and mappings. */
function asText(v: unknown): string | null {
  if (typeof v === "string") return v;
  if (v === null) return "";
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return null;
}
