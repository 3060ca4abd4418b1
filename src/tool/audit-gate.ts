import { blockedMessage } from "../access/audit-verdict.js";
import type { ScopedRegistry } from "../access/types.js";
import type { RegisteredSkill } from "../registry/types.js";
import type { ToolError } from "./envelope.js";

/**
 * A skill the audit blocks answers activation and reads with `skill_unavailable` (SPEC §12: the
 * §4 codes are a persisted contract, so no new one), naming the rule and the file; `missing`
 * holds that one item, as it holds the items an unmet requirement lacks. The rest of the
 * package is judged here the first time it is asked for.
 */
export async function auditRefusal(registry: ScopedRegistry, skill: RegisteredSkill): Promise<ToolError | null> {
  const blocking = (await registry.audit?.(skill.name))?.blocking;
  if (!blocking) return null;
  return { code: "skill_unavailable", message: blockedMessage(skill.name, blocking), missing: [`audit: ${blocking.rule} (${blocking.file})`] };
}
