/**
 * The frontmatter keys Claude Code reads about how a skill is started (SPEC §1 table):
 * `argument-hint`, `arguments`, `user-invocable` and `when_to_use`, read leniently like every
 * other field (a value of the wrong type is warned about and ignored, never a refusal). Whether
 * the body uses `$ARGUMENTS` is the caller's to say: the loader decodes only the frontmatter.
 */
import type { SkillInvocation } from "./types.js";

/** The keys this module reads; the manifest keeps them out of `extra`. */
export const INVOCATION_KEYS = ["argument-hint", "arguments", "user-invocable", "when_to_use"] as const;

/**
 * What a skill that declares none of these has: one shared frozen object, so the thousands of
 * skills of a large registry that write none of them hold no object of their own.
 */
export const DEFAULT_INVOCATION: SkillInvocation = Object.freeze({
  argumentHint: null,
  argumentNames: Object.freeze([]) as unknown as string[],
  takesArguments: false,
  userInvocable: true,
  whenToUse: null,
});

/** The placeholder a body takes the text typed after the skill's name through (Claude Code's). */
export const ARGUMENTS_PLACEHOLDER = "$ARGUMENTS";

/** Where warnings go: the manifest's findings themselves (no closure per skill on a cold load). */
export interface InvocationWarnings {
  warn(code: string, message: string): void;
}

export function readInvocationFields(raw: Record<string, unknown>, bodyUsesArguments: boolean, findings: InvocationWarnings): SkillInvocation {
  if (!bodyUsesArguments && !("argument-hint" in raw) && !("arguments" in raw) && !("user-invocable" in raw) && !("when_to_use" in raw)) {
    return DEFAULT_INVOCATION;
  }
  const warn = (code: string, message: string): void => findings.warn(code, message);
  const argumentHint = textField(raw, "argument-hint", warn);
  const argumentNames = namesOf(raw, warn);
  let userInvocable = true;
  if ("user-invocable" in raw) {
    const v = raw["user-invocable"];
    if (typeof v === "boolean") userInvocable = v;
    else warn("field_type", `user-invocable must be true or false, got ${JSON.stringify(v)}; ignored`);
  }
  const whenToUse = textField(raw, "when_to_use", warn);
  return {
    argumentHint,
    argumentNames,
    // Declaring either key says the skill takes text after its name even when the body never
    // names a placeholder: that text is then appended (`ARGUMENTS: …`), as Claude Code does.
    takesArguments: bodyUsesArguments || argumentHint !== null || "arguments" in raw,
    userInvocable,
    whenToUse: whenToUse !== null && whenToUse.trim() !== "" ? whenToUse.trim() : null,
  };
}

function textField(raw: Record<string, unknown>, key: string, warn: (code: string, message: string) => void): string | null {
  if (!(key in raw) || raw[key] === null) return null;
  const v = raw[key];
  if (typeof v === "string") return v;
  // An unquoted hint such as `argument-hint: [issue]` is a YAML list: its items are what was meant.
  if (Array.isArray(v) && v.every((item) => typeof item === "string" || typeof item === "number")) {
    const text = `[${v.join(", ")}]`;
    warn("field_type", `Field '${key}' was read as a list; quote it to keep it as written. Read as ${JSON.stringify(text)}`);
    return text;
  }
  if (typeof v === "number" || typeof v === "boolean") {
    warn("field_type", `Field '${key}' should be a string; read ${JSON.stringify(v)} as text`);
    return String(v);
  }
  warn("field_type", `Field '${key}' must be a string; ignored`);
  return null;
}

/**
 * `arguments`: a YAML list or a blank-separated string of names, as Claude Code takes it. A name
 * of digits only is left out (it would stand for `$0`, `$1`…), and so is one that could not be
 * written after a `$` (a blank, a bracket or another `$` inside).
 */
function namesOf(raw: Record<string, unknown>, warn: (code: string, message: string) => void): string[] {
  if (!("arguments" in raw) || raw.arguments === null) return DEFAULT_INVOCATION.argumentNames as string[];
  const v = raw.arguments;
  const items: unknown[] = typeof v === "string" ? v.split(/\s+/).filter((s) => s !== "") : Array.isArray(v) ? v : [v];
  const names: string[] = [];
  for (const item of items) {
    if (typeof item === "string" && USABLE_NAME.test(item) && !/^\d+$/.test(item)) {
      if (!names.includes(item)) names.push(item);
    } else {
      warn("field_type", `Field 'arguments' names ${JSON.stringify(item)}, which cannot be a placeholder ($name); it is ignored`);
    }
  }
  return names;
}

/** What `$name` can spell: letters, digits, `_` and `-` (Claude Code's names are such words). */
const USABLE_NAME = /^[\p{L}\p{N}_-]+$/u;

/** Whether a body names the placeholder (`$ARGUMENTS`, `$ARGUMENTS[0]`). */
export function bodyUsesArguments(body: string): boolean {
  return body.includes(ARGUMENTS_PLACEHOLDER);
}

/**
 * The description as the model's catalog shows it (tool description, `{}` listing, `prompt`):
 * `when_to_use` after it, joined as Claude Code joins them (`description - when_to_use`), so a
 * catalog budget shortens the two as one text.
 */
export function catalogDescription(description: string, invocation: SkillInvocation): string {
  return invocation.whenToUse === null ? description : `${description} - ${invocation.whenToUse}`;
}
