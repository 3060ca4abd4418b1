import { isListData, type Envelope } from "./envelope.js";
import type { SkillToolDisplay } from "./types.js";

/**
 * Presentation facts about a call (SPEC §4 Display): never part of the envelope. Worked out from
 * the raw arguments, so even a refused call shows what it named.
 */
export function displayOf(args: unknown, envelope: Envelope): SkillToolDisplay {
  const record = typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  const name = typeof record.name === "string" && record.name.trim() !== "" ? record.name.trim() : null;
  const filePath = typeof record.file_path === "string" ? record.file_path : null;
  const primary = name !== null && filePath !== null ? filePath : name;
  if (envelope.ok && isListData(envelope.data)) return { primary, results: envelope.data.count };
  return { primary };
}
