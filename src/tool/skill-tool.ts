import type { Scope } from "../access/types.js";
import { activateSkill } from "./activate.js";
import { auditRefusal } from "./audit-gate.js";
import { isToolError, parseSkillToolArguments } from "./arguments.js";
import { failure, success, type Envelope } from "./envelope.js";
import { listAnswer } from "./list.js";
import { lookupSkill, toolUnavailable } from "./lookup.js";
import { readSkillFile } from "./read-file.js";
import { renderEnvelopeText } from "./render.js";
import { SKILL_TOOL_DESCRIPTION, skillToolInputSchema } from "./schema.js";
import type { SkillFileVersion, SkillTool, SkillToolContext, SkillToolDeps, SkillToolInvocation } from "./types.js";

/**
 * The `skill` tool (SPEC §4): `{}` lists, `{name}` activates, `{name, file_path}` reads. Each
 * call resolves the live scoped registry, so policy and skill changes apply on the next call.
 */
export function createSkillTool(deps: SkillToolDeps): SkillTool {
  const invoke = async (args: unknown, ctx: SkillToolContext = {}): Promise<SkillToolInvocation> => {
    const { envelope, skillDir, text, skillFile } = await handle(deps, args, ctx);
    return { envelope, text: text ?? renderEnvelopeText(envelope, { skillDir }), ...(skillFile ? { skillFile } : {}) };
  };
  return {
    name: "skill",
    description: SKILL_TOOL_DESCRIPTION,
    inputSchema: skillToolInputSchema(),
    readOnly: true,
    invoke,
    call: async (args, ctx) => (await invoke(args, ctx)).envelope,
  };
}

async function handle(
  deps: SkillToolDeps,
  args: unknown,
  ctx: SkillToolContext,
): Promise<{ envelope: Envelope; skillDir?: string; text?: string; skillFile?: SkillFileVersion }> {
  const scope = scopeOf(ctx);
  const registry = await deps.resolveRegistry(scope);
  // Checked before the arguments: when the tool is off, every call says so, whatever it asked.
  if (!registry.toolAvailable) return { envelope: failure(toolUnavailable()) };
  const request = parseSkillToolArguments(args);
  if (isToolError(request)) return { envelope: failure(request) };
  if (request.mode === "list") {
    const answer = listAnswer(registry);
    return { envelope: success(answer.data), text: answer.text };
  }

  const found = await lookupSkill(deps, scope, registry, request.name, ctx.userInvoked === true && request.mode === "activate");
  if (!found.ok) return { envelope: failure(found.error) };
  if (request.mode === "read") {
    // A blocked skill's files are no more served than its body.
    const refused = await auditRefusal(found.registry, found.skill);
    if (refused) return { envelope: failure(refused) };
    const read = await readSkillFile(found.skill, request.filePath, found.registry.sourceRoots);
    return read.skillFileSha256 === undefined ? read : { envelope: read.envelope, skillFile: { name: found.skill.name, sha256: read.skillFileSha256 } };
  }
  return activateSkill(deps, scope, found, ctx);
}

/** Only the scope reaches the registry resolver, never the session hook. */
function scopeOf(ctx: SkillToolContext): Scope {
  const scope: Scope = {};
  if (ctx.projectId !== undefined) scope.projectId = ctx.projectId;
  if (ctx.agentId !== undefined) scope.agentId = ctx.agentId;
  return scope;
}
