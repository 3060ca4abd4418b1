/**
 * The library's runtime: `createSkillRuntime` is `openSkillRuntime` (src/runtime-core.ts) with the
 * session layer, imported here with the module so that opening a runtime loads nothing more.
 */
import { createSession } from "./session/session.js";
import { openSkillRuntime, type SkillRuntime, type SkillRuntimeOptions } from "./runtime-core.js";

export { BundleCheckError, type DiagnosticsOptions, type SkillRuntime, type SkillRuntimeOptions } from "./runtime-core.js";

/**
 * Opens the registry and scans it once. Throws a `TypeError` naming the field when `sources`,
 * `agents`, `projects` or `env` are not of the documented shape.
 */
export function createSkillRuntime(options: SkillRuntimeOptions = {}): Promise<SkillRuntime> {
  return openSkillRuntime(options, createSession);
}
