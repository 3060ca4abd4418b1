import type { ScopedRegistry, Scope } from "../access/types.js";
import type { RegisteredSkill } from "../registry/types.js";
import type { Envelope } from "./envelope.js";

/**
 * The dedup-only session hook: `true` fresh, `false` already active, `undefined` no hook
 * (treated as fresh). Nothing is persisted through it: the tool result is the durable carrier.
 * `skill` is the registry record `content` was read against — the same version of SKILL.md —
 * so a hook that keeps the skill's declarations (`tools`, `allowed-tools`, requirements) takes
 * them from it rather than from a registry that may have moved on since.
 */
export type ActivateSkillHook = (name: string, content: string, skill?: RegisteredSkill) => boolean | undefined;

export interface SkillToolContext extends Scope {
  activateSkill?: ActivateSkillHook;
  /** The host's id for this call. The tool itself ignores it; a session keys its records on it. */
  toolCallId?: string;
  /**
   * A person, not the model, asked for this activation (an MCP prompt, a slash command): a
   * skill hidden from the model (`disable-model-invocation: true`) may then be activated too.
   */
  userInvoked?: boolean;
}

export interface SkillToolDeps {
  /** Maps a scope to the live scoped registry a call uses. */
  resolveRegistry(scope: Scope): ScopedRegistry | Promise<ScopedRegistry>;
  /** Rescans skills from disk; called once on a named miss. */
  refreshSkills(): Promise<unknown>;
}

export interface SkillToolInputSchema {
  type: "object";
  properties: {
    name: { type: "string"; description: string };
    file_path: { type: "string"; description: string };
  };
}

/** What a host needs to offer the tool to a model (a session's `tool` has this shape too). */
export interface SkillToolDefinition {
  name: string;
  description: string;
  inputSchema: SkillToolInputSchema;
}

export interface SkillTool {
  name: "skill";
  description: string;
  inputSchema: SkillToolInputSchema;
  readOnly: true;
  call(args: unknown, ctx?: SkillToolContext): Promise<Envelope>;
  /** Same as `call`, plus the model-facing text, rendered with facts the envelope does not carry. */
  invoke(args: unknown, ctx?: SkillToolContext): Promise<SkillToolInvocation>;
}

/** One call's stored record and the text a model is shown for it. */
export interface SkillToolInvocation {
  envelope: Envelope;
  text: string;
  /**
   * The version of SKILL.md the call read or wrote (its sha256), or that it deleted (`null`):
   * what a session keeps so a later `skill_manage` edit can tell the file changed (SPEC §11).
   */
  skillFile?: SkillFileVersion;
}

export interface SkillFileVersion {
  name: string;
  /** Hex sha256 of the file's bytes; null when the skill was deleted. */
  sha256: string | null;
}

/** Presentation-only facts about a call (SPEC §4 Display). */
export interface SkillToolDisplay {
  primary: string | null;
  results?: number;
}
