/**
 * What a committed compaction does to the conversation (SPEC §5.2), as a pure function of the
 * state: which bodies are carried verbatim, which skills are only named, and the digests that
 * replace loading results in the host's transcript.
 */
import { setOwnProperty } from "../package/own-property.js";
import { escapeXml } from "../prompt/xml-escape.js";
import type { Envelope } from "../tool/envelope.js";
import type { CommitResult, CompactionMode, DigestData } from "./records.js";
import { activeNewestFirst, type ActiveSkill, type ConversationState } from "./state.js";

export const DEFAULT_CARRY_BUDGET_BYTES = 24_000;

export interface CompactionPlan {
  result: CommitResult;
  /** Skills that stay active in the new epoch, newest first. */
  kept: string[];
}

/** The success shape of SPEC §4 around data the tool itself never produces. */
function digestOf(name: string): Envelope<DigestData> {
  return { ok: true, error: null, data: { name, status: "loaded", compacted: true } };
}

/**
 * The carried block. Bodies go in unchanged — a paraphrased procedure is a different
 * procedure — each with the environment guidance the model was given at activation, since
 * carried skills keep their grants.
 */
export function renderCarriedBlock(skills: readonly ActiveSkill[]): string {
  const lines = [
    "<carried_skills>",
    "These skills were loaded earlier in this conversation and are still in effect. Their instructions follow verbatim; follow them as written.",
  ];
  for (const skill of skills) {
    lines.push(`<skill_content name="${escapeXml(skill.name)}">`);
    if (skill.envGuidance !== null) lines.push(`<environment_access>${escapeXml(skill.envGuidance)}</environment_access>`);
    lines.push(skill.content, "</skill_content>");
  }
  lines.push("</carried_skills>");
  return lines.join("\n");
}

/** The names-only reminder for skills whose instructions are no longer in the context. */
export function renderReminder(names: readonly string[]): string {
  const plural = names.length > 1;
  return (
    `Skill${plural ? "s" : ""} loaded earlier in this conversation: ${names.join(", ")}. ` +
    `${plural ? "Their" : "Its"} instructions and environment access are inactive until reloaded: ` +
    "call the skill tool with the skill's name to load it again before following it."
  );
}

/**
 * Plans a commit. In carry mode the active skills are taken newest first while their bodies
 * (UTF-8 bytes) fit the budget; a body that does not fit is skipped whole and an older, smaller
 * one may still fit after it. Everything loaded in the conversation that is not carried is named
 * in the reminder, including skills already named by an earlier one, because the new reminder
 * replaces the old.
 */
export function planCompaction(state: ConversationState, mode: CompactionMode, budgetBytes: number): CompactionPlan {
  const digests: Record<string, Envelope<DigestData>> = {};
  for (const { toolCallId, name } of state.retained) setOwnProperty(digests, toolCallId, digestOf(name));

  const carried: ActiveSkill[] = [];
  if (mode === "carry") {
    let used = 0;
    for (const skill of activeNewestFirst(state)) {
      const bytes = Buffer.byteLength(skill.content, "utf8");
      if (used + bytes > budgetBytes) continue;
      used += bytes;
      carried.push(skill);
    }
  }
  const kept = carried.map((skill) => skill.name);
  const keptSet = new Set(kept);
  const reminded = [...state.loaded.keys()].filter((name) => !keptSet.has(name));
  return {
    result: {
      digests,
      carried: carried.length > 0 ? renderCarriedBlock(carried) : null,
      reminder: reminded.length > 0 ? renderReminder(reminded) : null,
    },
    kept,
  };
}
