/**
 * Skills as MCP prompts (SPEC §7): every skill a user of this connection may start is a prompt,
 * which clients show as a slash command, `disable-model-invocation: true` skills included (they
 * stay out of the model's catalog; a person may still start them) and `user-invocable: false`
 * ones left out (the model may still load those through the tool). Getting a prompt activates
 * the skill in the connection's session, so grants and narrowing are the tool's; a person asking
 * always gets the content, however often they ask. A skill that takes text after its name
 * declares prompt arguments, and its text is put in as Claude Code does (`prompt-arguments.ts`).
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ErrorCode, GetPromptRequestSchema, ListPromptsRequestSchema, type Prompt } from "@modelcontextprotocol/sdk/types.js";
import { showInvisible } from "../audit/invisible.js";
import { ProtocolError } from "./protocol-error.js";
import { promptArgumentsOf, promptText, promptValues } from "./prompt-text.js";
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
  const startable = (): RegisteredSkill[] => source.skills().filter((skill) => skill.manifest.invocation.userInvocable);
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: startable().map((skill): Prompt => {
      const args = promptArgumentsOf(skill.manifest.invocation);
      return { name: skill.name, title: skill.name, description: showInvisible(skill.description), ...(args.length > 0 ? { arguments: args } : {}) };
    }),
  }));

  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    const name = request.params.name;
    const skill = startable().find((candidate) => candidate.name === name);
    if (!skill) throw new ProtocolError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    const values = promptValues(skill, request.params.arguments);
    const { envelope, text } = await session.invoke({ name }, { toolCallId: `prompt-${String(extra.requestId)}`, userInvoked: true });
    if (!envelope.ok) throw new ProtocolError(ErrorCode.InvalidParams, text);
    return {
      description: showInvisible(skill.description),
      // The body is shown escaped already (activation); the typed text is a person's, but it reaches
      // the model all the same, so the whole message is shown the one way.
      messages: [{ role: "user", content: { type: "text", text: showInvisible(promptText(envelope, text, skill, values)) } }],
    };
  });

  return {
    async notifyChanged() {
      await server.sendPromptListChanged();
    },
  };
}
