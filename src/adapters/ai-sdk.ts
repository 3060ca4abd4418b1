/**
 * `skillport/ai-sdk`: the `skill` tool for the Vercel AI SDK (ai 5, 6 or 7). This is the only
 * module that loads `ai`, an optional peer: hosts that never import it never need `ai`
 * installed, and one that imports it without `ai` gets an error saying what to install rather
 * than Node's bare "Cannot find package".
 */
import type { Tool } from "ai";
import type { Envelope } from "../tool/envelope.js";
import type { SkillTool, SkillToolContext } from "../tool/types.js";
import type { ManagedData } from "../tool/envelope.js";
import {
  buildAiSdkManageTool,
  buildAiSdkSkillTool,
  type AiSdkFunctions,
  type SkillManageSessionLike,
  type SkillToolArguments,
  type SkillToolSessionLike,
} from "./ai-sdk-tool.js";

export type { SkillManageSessionLike, SkillToolArguments, SkillToolSessionLike } from "./ai-sdk-tool.js";

const ai: AiSdkFunctions = await import("ai").catch((error: unknown) => {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== "ERR_MODULE_NOT_FOUND" || !String((error as Error).message).includes("'ai'")) throw error;
  throw new Error(
    "skillport/ai-sdk needs the Vercel AI SDK, which is not installed: run `npm install ai` (versions 5, 6 and 7 are supported).",
    { cause: error },
  );
});

/** The `skill` tool as an AI SDK tool: the result is the envelope, the model sees the rendered text. */
export function aiSdkSkillTool(source: SkillTool | SkillToolSessionLike, ctx?: SkillToolContext): Tool<SkillToolArguments, Envelope> {
  return buildAiSdkSkillTool(ai, source, ctx);
}

/**
 * `skill_manage` as an AI SDK tool, for a session with a writable source open (SPEC §11); null
 * otherwise: `{ skill: aiSdkSkillTool(s), ...(m ? { skill_manage: m } : {}) }`.
 */
export function aiSdkManageTool(session: SkillManageSessionLike): Tool<Record<string, unknown>, Envelope<ManagedData>> | null {
  return buildAiSdkManageTool(ai, session);
}
