/**
 * Strict validation, check for check with the reference validator `skills-ref`: the same way of
 * reading the file (universal newlines, a BOM is not frontmatter), the same frontmatter split,
 * the same YAML dialect (strictyaml, see strict-yaml.ts), the same checks in the same order with
 * the same messages. Deliberate differences, each where the reference crashes or misleads (and
 * docs/CLI.md lists each):
 * - a `---` in the middle of a line does not end the frontmatter (the reference splits on the
 *   bare string, so it cuts a quoted description there); the frontmatter ends at the next line
 *   that starts with `---`;
 * - invalid UTF-8, a SKILL.md that is a directory or unreadable, a control character the YAML
 *   reader refuses, a file over 1 MiB: a message instead of a Python traceback;
 * - the directory name is taken from the resolved path, so `validate .` compares the real name.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { MAX_COMPATIBILITY_LENGTH, MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH } from "./limits.js";
import { codePointLength } from "./naming.js";
import { readSkillFileSync } from "./skill-file.js";
import { loadStrictYaml, type StrictMap, type StrictValue } from "./strict-yaml/index.js";

export const STANDARD_FIELDS = ["allowed-tools", "compatibility", "description", "license", "metadata", "name"] as const;

/** Python's `str.strip()` whitespace, which differs from `String.prototype.trim` at the edges. */
const PYTHON_WHITESPACE = "\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const PYTHON_STRIP = new RegExp(`^[${PYTHON_WHITESPACE}]+|[${PYTHON_WHITESPACE}]+$`, "g");

export function pythonStrip(text: string): string {
  return text.replace(PYTHON_STRIP, "");
}

/** The reference's SKILL.md lookup: SKILL.md if anything by that name exists, else skill.md. */
export function referenceSkillFile(dir: string): string | null {
  for (const name of ["SKILL.md", "skill.md"]) {
    const file = path.join(dir, name);
    if (fs.existsSync(file)) return file;
  }
  return null;
}

export type ReferenceFrontmatter = { ok: true; data: StrictMap } | { ok: false; message: string };

/**
 * SKILL.md bytes to the frontmatter mapping as the reference's `parse_frontmatter` reads them,
 * or the message it would give. Python reads text with universal newlines (`\r\n` and `\r`
 * become `\n`) and keeps a BOM, which then is not `---`.
 */
export function readReferenceFrontmatter(file: string): ReferenceFrontmatter {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (e) {
    return { ok: false, message: `Cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}` };
  }
  if (stat.isDirectory()) return { ok: false, message: `${file} is a directory, not a file` };
  const read = readSkillFileSync(file);
  if (!read.ok) return { ok: false, message: read.message };
  return parseReferenceFrontmatter(read.text);
}

export function parseReferenceFrontmatter(raw: string): ReferenceFrontmatter {
  const content = raw.replace(/\r\n?/g, "\n");
  if (!content.startsWith("---")) return { ok: false, message: "SKILL.md must start with YAML frontmatter (---)" };
  let close = content.indexOf("---", 3);
  // The reference closes at any `---`; one inside a line (a value, a comment) is not a fence.
  while (close !== -1 && content[close - 1] !== "\n") close = content.indexOf("---", close + 3);
  if (close === -1) return { ok: false, message: "SKILL.md frontmatter not properly closed with ---" };
  const loaded = loadStrictYaml(content.slice(3, close));
  if (!loaded.ok) return { ok: false, message: `Invalid YAML in frontmatter: ${loaded.message ?? loaded.crash}` };
  if (!(loaded.value instanceof Map)) return { ok: false, message: "SKILL.md frontmatter must be a YAML mapping" };
  return { ok: true, data: loaded.value };
}

/** The reference's list of messages; empty means valid. */
export async function validateSkill(target: string): Promise<string[]> {
  return validateSkillSync(target);
}

export function validateSkillSync(target: string): string[] {
  let dir = target;
  // A SKILL.md path means its directory: people tab-complete to the file.
  if (path.basename(target).toLowerCase() === "skill.md" && isPlainFile(target)) dir = path.dirname(target);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    return [`Path does not exist: ${dir}`];
  }
  if (!stat.isDirectory()) return [`Not a directory: ${dir}`];
  const file = referenceSkillFile(dir);
  if (file === null) return ["Missing required file: SKILL.md"];
  const frontmatter = readReferenceFrontmatter(file);
  if (!frontmatter.ok) return [frontmatter.message];
  return validateFrontmatter(frontmatter.data, path.basename(path.resolve(dir)));
}

function isPlainFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The reference's `validate_metadata`: fields, name, description, compatibility, in that order. */
export function validateFrontmatter(data: StrictMap, dirName: string | null): string[] {
  const errors: string[] = [];
  const extra = [...data.keys()].filter((k) => !(STANDARD_FIELDS as readonly string[]).includes(k));
  if (extra.length > 0) {
    errors.push(
      `Unexpected fields in frontmatter: ${extra.sort(byCodePoint).join(", ")}. Only [${STANDARD_FIELDS.map((f) => `'${f}'`).join(", ")}] are allowed.`,
    );
  }
  if (!data.has("name")) errors.push("Missing required field in frontmatter: name");
  else errors.push(...nameErrors(data.get("name"), dirName));
  if (!data.has("description")) errors.push("Missing required field in frontmatter: description");
  else {
    const description = data.get("description");
    if (typeof description !== "string" || pythonStrip(description) === "") errors.push("Field 'description' must be a non-empty string");
    else if (codePointLength(description) > MAX_DESCRIPTION_LENGTH) {
      errors.push(`Description exceeds ${MAX_DESCRIPTION_LENGTH} character limit (${codePointLength(description)} chars)`);
    }
  }
  if (data.has("compatibility")) {
    const compatibility = data.get("compatibility");
    if (typeof compatibility !== "string") errors.push("Field 'compatibility' must be a string");
    else if (codePointLength(compatibility) > MAX_COMPATIBILITY_LENGTH) {
      errors.push(`Compatibility exceeds ${MAX_COMPATIBILITY_LENGTH} character limit (${codePointLength(compatibility)} chars)`);
    }
  }
  return errors;
}

/** The reference's `_validate_name`, on the name as written (stripped, then NFKC). */
function nameErrors(value: StrictValue | undefined, dirName: string | null): string[] {
  if (typeof value !== "string" || pythonStrip(value) === "") return ["Field 'name' must be a non-empty string"];
  const name = pythonStrip(value).normalize("NFKC");
  const errors: string[] = [];
  const length = codePointLength(name);
  if (length > MAX_NAME_LENGTH) errors.push(`Skill name '${name}' exceeds ${MAX_NAME_LENGTH} character limit (${length} chars)`);
  if (name !== name.toLowerCase()) errors.push(`Skill name '${name}' must be lowercase`);
  if (name.startsWith("-") || name.endsWith("-")) errors.push("Skill name cannot start or end with a hyphen");
  if (name.includes("--")) errors.push("Skill name cannot contain consecutive hyphens");
  // Any Unicode letter or digit, as the reference's `str.isalnum()` allows.
  if (!/^[\p{L}\p{N}-]*$/u.test(name)) {
    errors.push(`Skill name '${name}' contains invalid characters. Only letters, digits, and hyphens are allowed.`);
  }
  if (dirName !== null && dirName.normalize("NFKC") !== name) errors.push(`Directory name '${dirName}' must match skill name '${name}'`);
  return errors;
}

/** Python's `sorted()` on strings: by code point, where JS's default sort compares UTF-16 units. */
function byCodePoint(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i]?.codePointAt(0) ?? 0) - (y[i]?.codePointAt(0) ?? 0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}
