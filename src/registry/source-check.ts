/**
 * Whether a source can be walked at all. A source that cannot is reported (`source_invalid`)
 * and left out of every scan; the other sources still serve.
 */
import type { SkillSource } from "./types.js";

/** What is wrong with `source`, or null when it can be walked. */
export function sourceProblem(source: SkillSource): string | null {
  if (typeof source.path !== "string" || source.path === "") return "A source needs a non-empty path";
  if (!["bundled", "global", "project", "agent"].includes(source.origin)) {
    return `Source ${source.path} has unknown origin '${String(source.origin)}' (use bundled, global, project or agent)`;
  }
  if (source.origin === "agent" && !source.agentId) return `Source ${source.path} has origin 'agent' but no agentId; its skills would belong to nobody`;
  const max = source.maxDirectories;
  if (max !== undefined && (typeof max !== "number" || !Number.isSafeInteger(max) || max < 1)) {
    return `Source ${source.path} has maxDirectories ${String(max)}; it must be a whole number of at least 1`;
  }
  if (source.followExternalLinks !== undefined && typeof source.followExternalLinks !== "boolean") {
    return `Source ${source.path} has followExternalLinks ${String(source.followExternalLinks)}; it must be true or false`;
  }
  if (source.writable === true && source.origin !== "agent" && source.origin !== "project") {
    return `Source ${source.path} is writable but of origin '${source.origin}'; only agent and project sources may be writable`;
  }
  if (source.linkRoot !== undefined && (typeof source.linkRoot !== "string" || source.linkRoot === "")) {
    return `Source ${source.path} has an empty or non-string linkRoot`;
  }
  return null;
}
