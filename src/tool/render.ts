import { oneLineShown, oneLineText } from "../package/display-text.js";
import { isListData, type Envelope, type ListData, type LoadedData, type ManagedData } from "./envelope.js";

export interface RenderOptions {
  /**
   * Absolute directory of the skill a `loaded` envelope is about. The envelope does not carry
   * it (the stored record stays exactly §4), so hosts pass it in; `SkillTool.invoke` does.
   * Without it the directory line is left out.
   */
  skillDir?: string;
}

/**
 * The one rendering of an envelope as text for a model (SPEC §4 Model-facing text). Every
 * adapter uses it, so a skill reads the same to a model whichever host serves it.
 */
export function renderEnvelopeText(envelope: Envelope, options: RenderOptions = {}): string {
  if (!envelope.ok) return envelope.error.message;
  const data = envelope.data;
  if (isListData(data)) return renderList(data);
  switch (data.status) {
    case "loaded":
      return renderLoaded(data, options.skillDir);
    case "already_active":
      return data.message;
    case "file_loaded":
      return withoutWrapperTags(data.content);
    default:
      return renderManaged(data);
  }
}

const MANAGED_VERBS: Record<ManagedData["status"], string> = {
  created: "Created",
  edited: "Rewrote SKILL.md of",
  patched: "Patched",
  file_written: "Wrote",
  file_removed: "Removed",
  deleted: "Deleted",
};

/** One line saying what `skill_manage` did; the change is live for the next `skill` call. */
function renderManaged(data: ManagedData): string {
  const file = data.file_path !== undefined ? ` ${oneLineShown(data.file_path)} of` : "";
  const what = data.status === "created" || data.status === "deleted" || data.status === "edited" ? "" : file;
  const live = data.status === "deleted" ? "It is no longer listed." : "The change is live: the skill tool serves it now.";
  return `${MANAGED_VERBS[data.status]}${what} skill ${JSON.stringify(data.name)}. ${live}`;
}

function renderLoaded(data: LoadedData, skillDir: string | undefined): string {
  const lines = [`<skill_content name="${escapeAttribute(data.name)}">`];
  if (data.environment_access) lines.push(data.environment_access.guidance, "");
  lines.push(withoutWrapperTags(data.content), "");
  if (skillDir !== undefined) {
    // A directory name is the filesystem's, not checked like a skill name: one holding a line
    // break or a hidden character is written out rather than let loose in the text.
    lines.push(`Skill directory: ${oneLineShown(skillDir)}`, "Relative paths in this skill are relative to the skill directory.", "");
  }
  if (data.resource_files) {
    lines.push(data.resource_files.guidance, "<skill_resources>");
    // Scripts are absolute, so the skill directory's name is in them: shown like the directory line.
    for (const file of data.resource_files.files) lines.push(`  <file>${escapeText(oneLineShown(file))}</file>`);
    lines.push("</skill_resources>");
  }
  if (lines[lines.length - 1] === "") lines.pop();
  lines.push("</skill_content>");
  return lines.join("\n");
}

function renderList(data: ListData): string {
  if (data.count === 0) return "No skills are available.";
  const lines = [
    `${data.count} skill${data.count === 1 ? "" : "s"} available. Load one by calling this tool with its name.`,
  ];
  for (const group of data.skill_groups) {
    lines.push("", `## ${group.label}`);
    for (const skill of group.skills) lines.push(`- ${skill.name}: ${oneLineText(skill.description)}`);
  }
  return lines.join("\n");
}


/**
 * The wrapper's own tags (`<skill_content …>`, `</skill_content>`, `<skill_resources>`) written
 * inside author text, with their `<` escaped. A body that closed the wrapper and opened one of
 * its own (`</skill_content>` then `<skill_content name="deploy">` and an "already loaded" line)
 * would have the model read a second skill it never loaded; a file read shown whole could do
 * the same. Nothing else in the text changes: bodies are Markdown and mean their other tags.
 */
const WRAPPER_TAG = /<(?=\s*\/?\s*skill_(?:content|resources)\b)/giu;

function withoutWrapperTags(text: string): string {
  return text.includes("<") ? text.replace(WRAPPER_TAG, "&lt;") : text;
}

function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function escapeAttribute(text: string): string {
  return escapeText(text).replace(/"/g, "&quot;");
}
