/**
 * The reference `skills-ref to-prompt` output, byte for byte: a multi-line `<available_skills>`
 * block with each tag and value on its own line, values escaped like Python's `html.escape`,
 * the location unescaped, lines joined with "\n" and no trailing newline. Skills come in the
 * order given, each read as the reference reads it (its strict YAML, its checks), whatever
 * skillport's own loader thinks of it: `disable-model-invocation` and the rest are not its
 * business.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pythonStrip, readReferenceFrontmatter, referenceSkillFile } from "../package/validate.js";
import { SkillsRefPromptError } from "./skills-ref-error.js";
import { escapeXml } from "./xml-escape.js";

export { SkillsRefPromptError };

/** Like the reference CLI, a path to the skill file itself stands for its directory. */
function skillDirOf(input: string): string {
  return path.basename(input).toLowerCase() === "skill.md" && isPlainFile(input) ? path.dirname(input) : input;
}

function isPlainFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The reference's `read_properties`: name and description, stripped, with its messages. */
function propertiesOf(realDir: string): { name: string; description: string; location: string } {
  const file = referenceSkillFile(realDir);
  if (file === null) throw new SkillsRefPromptError(realDir, `SKILL.md not found in ${realDir}`);
  const frontmatter = readReferenceFrontmatter(file);
  if (!frontmatter.ok) throw new SkillsRefPromptError(realDir, frontmatter.message);
  for (const key of ["name", "description"]) {
    if (!frontmatter.data.has(key)) throw new SkillsRefPromptError(realDir, `Missing required field in frontmatter: ${key}`);
  }
  const fields: Record<string, string> = {};
  for (const key of ["name", "description"]) {
    const value = frontmatter.data.get(key);
    if (typeof value !== "string" || pythonStrip(value) === "") {
      throw new SkillsRefPromptError(realDir, `Field '${key}' must be a non-empty string`);
    }
    fields[key] = pythonStrip(value);
  }
  return { name: fields.name ?? "", description: fields.description ?? "", location: file };
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
      // The reference resolves the directory (symlinks included), then names the file inside it.
      realDir = fs.realpathSync(dir);
    } catch {
      throw new SkillsRefPromptError(path.resolve(dir), `SKILL.md not found in ${path.resolve(dir)}`);
    }
    const skill = propertiesOf(realDir);
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
