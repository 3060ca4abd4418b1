/**
 * The reference `skills-ref to-prompt` output, byte for byte: a multi-line `<available_skills>`
 * block with each tag and value on its own line, values escaped like Python's `html.escape`,
 * the location unescaped, lines joined with "\n" and no trailing newline.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { readFrontmatter } from "../package/frontmatter.js";
import { isFile } from "../package/path-kind.js";
import { locateSkillFile, readSkillFileSync } from "../package/skill-file.js";
import { escapeXml } from "./xml-escape.js";

/** A skill the reference would also refuse to put in a prompt. */
export class SkillsRefPromptError extends Error {
  constructor(
    readonly dir: string,
    detail: string,
  ) {
    super(`${dir}: ${detail}`);
    this.name = "SkillsRefPromptError";
  }
}

/** Python's `str.strip()` whitespace, which differs from `String.prototype.trim` at the edges. */
const PYTHON_WHITESPACE = "\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const PYTHON_STRIP = new RegExp(`^[${PYTHON_WHITESPACE}]+|[${PYTHON_WHITESPACE}]+$`, "g");

function pythonStrip(text: string): string {
  return text.replace(PYTHON_STRIP, "");
}

/** Like the reference CLI, a path to the skill file itself stands for its directory. */
function skillDirOf(input: string): string {
  return path.basename(input).toLowerCase() === "skill.md" && isFile(input) ? path.dirname(input) : input;
}

/**
 * Name and description as the reference reads them: straight from the frontmatter, stripped,
 * with no other normalisation (the loader's NFKC form of a name is for identity, not display).
 */
function propertiesOf(realDir: string, dir: string): { name: string; description: string; location: string } {
  const located = locateSkillFile(realDir);
  if (!located) throw new SkillsRefPromptError(dir, `SKILL.md not found in ${dir}`);
  const read = readSkillFileSync(located.file);
  if (!read.ok) throw new SkillsRefPromptError(dir, read.message);
  const frontmatter = readFrontmatter(read.text, { allowRetry: false });
  if (!frontmatter.ok) throw new SkillsRefPromptError(dir, frontmatter.message);
  const fields: Record<string, string> = {};
  for (const key of ["name", "description"]) {
    if (!(key in frontmatter.data)) throw new SkillsRefPromptError(dir, `Missing required field in frontmatter: ${key}`);
    const value = frontmatter.data[key];
    if (typeof value !== "string" || pythonStrip(value) === "") {
      throw new SkillsRefPromptError(dir, `Field '${key}' must be a non-empty string`);
    }
    fields[key] = pythonStrip(value);
  }
  // The reference resolves the directory (symlinks included), then names the file inside it.
  return { name: fields.name ?? "", description: fields.description ?? "", location: located.file };
}

/**
 * Throws `SkillsRefPromptError` for a directory whose skill cannot be read, as the reference
 * stops with an error rather than print a partial block.
 */
export function skillsRefPrompt(dirs: readonly string[]): string {
  if (dirs.length === 0) return "<available_skills>\n</available_skills>";
  const lines = ["<available_skills>"];
  for (const input of dirs) {
    const dir = skillDirOf(input);
    let realDir: string;
    try {
      realDir = fs.realpathSync(dir);
    } catch {
      throw new SkillsRefPromptError(dir, "no such skill directory");
    }
    const skill = propertiesOf(realDir, dir);
    lines.push(
      "<skill>",
      "<name>",
      escapeXml(skill.name),
      "</name>",
      "<description>",
      escapeXml(skill.description),
      "</description>",
      "<location>",
      skill.location,
      "</location>",
      "</skill>",
    );
  }
  lines.push("</available_skills>");
  return lines.join("\n");
}
