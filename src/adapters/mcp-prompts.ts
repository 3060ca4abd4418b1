/**
 * Skills as MCP prompts (SPEC §7): every skill a user of this connection may start is a prompt,
 * which clients show as a slash command, `disable-model-invocation: true` skills included (they
 * stay out of the model's catalog; a person may still start them). Getting a prompt activates
 * the skill in the connection's session, so dedup and grants are the tool's: a second get in the
 * same conversation answers `already_active`, as the tool would.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ErrorCode, GetPromptRequestSchema, ListPromptsRequestSchema, type Prompt } from "@modelcontextprotocol/sdk/types.js";
import { showInvisible } from "../audit/invisible.js";
import { ProtocolError } from "./protocol-error.js";
import type { RegisteredSkill } from "../registry/types.js";
import type { Session } from "../session/session.js";

export interface SkillPromptsSource {
  /** The skills a user of this connection may start, in listing order. */
  skills(): readonly RegisteredSkill[];
}

export interface SkillPrompts {
  /** Sends `notifications/prompts/list_changed`. */
  notifyChanged(): Promise<void>;
}

export const SKILL_PROMPTS_CAPABILITIES = { prompts: { listChanged: true } } as const;

export function attachSkillPrompts(server: Server, session: Session, source: SkillPromptsSource): SkillPrompts {
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: source.skills().map((skill): Prompt => ({ name: skill.name, title: skill.name, description: showInvisible(skill.description) })),
  }));

  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    const name = request.params.name;
    if (!source.skills().some((skill) => skill.name === name)) throw new ProtocolError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    const { envelope, text } = await session.invoke({ name }, { toolCallId: `prompt-${String(extra.requestId)}`, userInvoked: true });
    if (!envelope.ok) throw new ProtocolError(ErrorCode.InvalidParams, text);
    const skill = source.skills().find((candidate) => candidate.name === name);
    return {
      ...(skill ? { description: showInvisible(skill.description) } : {}),
      messages: [{ role: "user", content: { type: "text", text } }],
    };
  });

  return {
    async notifyChanged() {
      await server.sendPromptListChanged();
    },
  };
}
