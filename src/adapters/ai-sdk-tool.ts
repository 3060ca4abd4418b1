/**
 * The `skill` tool for the Vercel AI SDK, built from the two `ai` functions it needs, which the
 * caller passes in. `ai-sdk.ts` passes the installed `ai`; tests pass each major they cover
 * (5 and 6), so one body of code is checked against every version the peer range names.
 */
import type { JSONSchema7, Tool, ToolCallOptions } from "ai";
import type { Envelope, ManagedData } from "../tool/envelope.js";
import type { SkillManageInvocation, SkillManageToolDefinition } from "../tool/manage-types.js";
import { renderEnvelopeText } from "../tool/render.js";
import type { SkillTool, SkillToolContext, SkillToolDefinition, SkillToolInvocation } from "../tool/types.js";

export interface SkillToolArguments {
  name?: string;
  file_path?: string;
}

/** A conversation that owns the tool (a runtime session): it carries its own scope and hook. */
export interface SkillToolSessionLike {
  tool: SkillToolDefinition;
  call(args: unknown, options?: { toolCallId?: string }): Promise<Envelope>;
  /** When present, used so loaded skills render with their directory. */
  invoke?(args: unknown, options?: { toolCallId?: string }): Promise<SkillToolInvocation>;
}

/** The part of the `ai` module the tool is built with; the same in ai 5, 6 and 7. */
export interface AiSdkFunctions {
  tool(definition: unknown): unknown;
  jsonSchema(schema: JSONSchema7): unknown;
}

/**
 * An AI SDK tool whose result is the §4 envelope (what `steps[].toolResults` hold, for hosts that
 * store it) and whose model output is the one rendered text. Arguments are not validated by the
 * SDK: the handler's own checks answer a bad call with an `invalid_arguments` envelope the model
 * can read, instead of an SDK error.
 */
export function buildAiSdkSkillTool(
  ai: AiSdkFunctions,
  source: SkillTool | SkillToolSessionLike,
  ctx?: SkillToolContext,
): Tool<SkillToolArguments, Envelope> {
  const definition = isSession(source) ? source.tool : source;
  // Text rendered at call time, keyed by the envelope object the SDK hands back to
  // `toModelOutput`. An envelope that was stored and parsed back is rendered afresh, only
  // without the skill directory line it has no way to know.
  const texts = new WeakMap<Envelope, string>();
  const run = (args: SkillToolArguments, options: ToolCallOptions): Promise<SkillToolInvocation> => {
    if (!isSession(source)) return source.invoke(args, { ...ctx, toolCallId: options.toolCallId });
    const callOptions = { toolCallId: options.toolCallId };
    if (source.invoke) return source.invoke(args, callOptions);
    return source.call(args, callOptions).then((envelope) => ({ envelope, text: renderEnvelopeText(envelope) }));
  };
  return ai.tool({
    description: definition.description,
    inputSchema: ai.jsonSchema(structuredClone(definition.inputSchema) as JSONSchema7),
    execute: async (args: SkillToolArguments, options: ToolCallOptions) => {
      const { envelope, text } = await run(args, options);
      texts.set(envelope, text);
      return envelope;
    },
    // ai 5 passes the output itself; ai 6 and 7 pass `{ toolCallId, input, output }`.
    toModelOutput: (given: Envelope | { output: Envelope }) => {
      const envelope = isEnvelope(given) ? given : given.output;
      return { type: "text", value: texts.get(envelope) ?? renderEnvelopeText(envelope) };
    },
  }) as Tool<SkillToolArguments, Envelope>;
}

function isEnvelope(value: unknown): value is Envelope {
  return typeof value === "object" && value !== null && typeof (value as { ok?: unknown }).ok === "boolean";
}

function isSession(source: SkillTool | SkillToolSessionLike): source is SkillToolSessionLike {
  return "tool" in source && typeof source.tool === "object" && source.tool !== null;
}

/** A session that may offer `skill_manage` (a runtime session). */
export interface SkillManageSessionLike {
  readonly manageTool: SkillManageToolDefinition | null;
  invokeManage(args: unknown, options?: { toolCallId?: string }): Promise<SkillManageInvocation>;
}

/**
 * `skill_manage` as an AI SDK tool beside `skill` (SPEC §11): the result is its envelope, the model
 * sees the one rendered text. Null when the session has no writable source open (or policy
 * withholds the tool), so a host can spread it into its tools only when offered.
 */
export function buildAiSdkManageTool(ai: AiSdkFunctions, session: SkillManageSessionLike): Tool<Record<string, unknown>, Envelope<ManagedData>> | null {
  const definition = session.manageTool;
  if (definition === null) return null;
  const texts = new WeakMap<object, string>();
  return ai.tool({
    description: definition.description,
    inputSchema: ai.jsonSchema(structuredClone(definition.inputSchema) as unknown as JSONSchema7),
    execute: async (args: Record<string, unknown>, options: ToolCallOptions) => {
      const { envelope, text } = await session.invokeManage(args, { toolCallId: options.toolCallId });
      texts.set(envelope, text);
      return envelope;
    },
    toModelOutput: (given: Envelope<ManagedData> | { output: Envelope<ManagedData> }) => {
      const envelope = isEnvelope(given) ? (given as Envelope<ManagedData>) : given.output;
      return { type: "text", value: texts.get(envelope) ?? renderEnvelopeText(envelope) };
    },
  }) as Tool<Record<string, unknown>, Envelope<ManagedData>>;
}
