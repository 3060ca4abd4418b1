/**
 * The skills block `skillport sync` keeps in an AGENTS.md, for agents that have no tool calling
 * and read their instructions from that file. The block has the shape openskills writes
 * (`<skills_system>` around `<!-- SKILLS_TABLE_START -->` … `<!-- SKILLS_TABLE_END -->`, an
 * `<available_skills>` list of `<skill><name>…`), so a file synced by either tool is updated in
 * place by the other, and whatever reads one reads the other.
 */

const SYSTEM_OPEN = /<skills_system\b[^>]*>/;
const SYSTEM_CLOSE = "</skills_system>";
const TABLE_START = "<!-- SKILLS_TABLE_START -->";
const TABLE_END = "<!-- SKILLS_TABLE_END -->";

/**
 * The whole block. `readCommand` is the shell command that loads a skill, with the options the
 * catalog was built with, so the agent reads skills from the same folders the list came from.
 */
export function agentsMdBlock(catalog: string, readCommand: string): string {
  return [
    '<skills_system priority="1">',
    "",
    "## Available Skills",
    "",
    TABLE_START,
    "<usage>",
    "When a task matches a skill listed below, load the skill first and follow its instructions.",
    "",
    "How to use skills:",
    `- Load one: run \`${readCommand.replace("{name}", "<skill-name>")}\` in your shell. It prints the skill's instructions, its base directory and the files it ships.`,
    `- Read one of its files: \`${readCommand.replace("{name}", "<skill-name> <path>")}\`, the path relative to the skill's base directory.`,
    "",
    "Usage notes:",
    "- Only use skills listed in <available_skills> below",
    "- Do not load a skill that is already loaded in your context",
    "</usage>",
    "",
    catalog === "" ? "<available_skills>\n</available_skills>" : catalog,
    TABLE_END,
    "",
    SYSTEM_CLOSE,
  ].join("\n");
}

/**
 * `content` with its skills block replaced by `block`, and nothing else changed: the first
 * `<skills_system>` element if there is one, else the text between the table markers, else the
 * block appended after a blank line.
 */
export function withSkillsBlock(content: string, block: string): string {
  const open = SYSTEM_OPEN.exec(content);
  if (open) {
    const close = content.indexOf(SYSTEM_CLOSE, open.index);
    if (close !== -1) return content.slice(0, open.index) + block + content.slice(close + SYSTEM_CLOSE.length);
  }
  const start = content.indexOf(TABLE_START);
  const end = start === -1 ? -1 : content.indexOf(TABLE_END, start);
  if (start !== -1 && end !== -1) {
    // Only the part between the markers is ours here: the file's author wrapped it themselves.
    const inner = block.slice(block.indexOf(TABLE_START), block.indexOf(TABLE_END) + TABLE_END.length);
    return content.slice(0, start) + inner + content.slice(end + TABLE_END.length);
  }
  const head = content.trimEnd();
  return `${head === "" ? "" : `${head}\n\n`}${block}\n`;
}
