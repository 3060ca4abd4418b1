/**
 * The arguments an MCP prompt declares for a skill, and the text `prompts/get` answers with
 * (SPEC §7 MCP prompts). A skill that takes text after its name has one optional argument,
 * `arguments` (the text as typed; its description the skill's `argument-hint`), and one per name
 * its `arguments` field lists. The skill is activated as the tool activates it (the session
 * records the body as written); only the prompt's text has the arguments put in.
 */
import { ErrorCode, type PromptArgument } from "@modelcontextprotocol/sdk/types.js";
import { substituteArguments, type PromptArgumentValues } from "../package/prompt-arguments.js";
import type { SkillInvocation } from "../package/types.js";
import type { RegisteredSkill } from "../registry/types.js";
import type { Envelope } from "../tool/envelope.js";
import { renderEnvelopeText } from "../tool/render.js";
import { ProtocolError } from "./protocol-error.js";

/** The argument carrying the text typed after the skill's name. */
export const TEXT_ARGUMENT = "arguments";

const TEXT_DESCRIPTION = "What to type after the skill's name, as you would type it (quote words that hold blanks)";

/** The names a client may fill, beside `arguments`: a listed name spelled `arguments` is that same text's word, not a second field. */
function namedArguments(invocation: SkillInvocation): readonly string[] {
  return invocation.argumentNames.filter((name) => name !== TEXT_ARGUMENT);
}

export function promptArgumentsOf(invocation: SkillInvocation): PromptArgument[] {
  if (!invocation.takesArguments) return [];
  const hint = invocation.argumentHint?.trim();
  return [
    { name: TEXT_ARGUMENT, description: hint ? `${hint} (${TEXT_DESCRIPTION.toLowerCase()})` : TEXT_DESCRIPTION, required: false },
    ...namedArguments(invocation).map((name) => ({
      name,
      description: `The word $${name} stands for: the ${ordinal(invocation.argumentNames.indexOf(name) + 1)} word of the text, when not given here`,
      required: false,
    })),
  ];
}

function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? "th" : ["th", "st", "nd", "rd"][n % 10] ?? "th";
  return `${n}${suffix}`;
}

/** The values a `prompts/get` gave, checked against what the prompt declares: an unknown name is refused, naming what it takes. */
export function promptValues(skill: RegisteredSkill, given: Readonly<Record<string, string>> | undefined): PromptArgumentValues {
  const declared = promptArgumentsOf(skill.manifest.invocation).map((argument) => argument.name);
  const unknown = Object.keys(given ?? {}).filter((name) => !declared.includes(name));
  if (unknown.length > 0) {
    const takes = declared.length > 0 ? `it takes ${declared.join(", ")}` : "it takes none";
    throw new ProtocolError(ErrorCode.InvalidParams, `Prompt ${skill.name} has no argument ${unknown.join(", ")}: ${takes}`);
  }
  const values: PromptArgumentValues = {};
  const text = given?.[TEXT_ARGUMENT];
  if (text !== undefined) values.text = text;
  const named: Record<string, string> = {};
  for (const name of namedArguments(skill.manifest.invocation)) {
    const value = given?.[name];
    if (value !== undefined) named[name] = value;
  }
  if (Object.keys(named).length > 0) values.named = named;
  return values;
}

/** The prompt's text: a loaded skill rendered with its arguments put in; any other answer as the session rendered it. */
export function promptText(envelope: Envelope, text: string, skill: RegisteredSkill, values: PromptArgumentValues): string {
  if (!envelope.ok || !("status" in envelope.data) || envelope.data.status !== "loaded") return text;
  const content = substituteArguments(envelope.data.content, skill.manifest.invocation.argumentNames, values);
  if (content === envelope.data.content) return text;
  return renderEnvelopeText({ ...envelope, data: { ...envelope.data, content } }, { skillDir: skill.dir });
}
