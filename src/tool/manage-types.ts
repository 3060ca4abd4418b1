import type { WritableSource } from "../access/writable-sources.js";
import type { Scope, ScopedRegistry } from "../access/types.js";
import type { Envelope, ManagedData } from "./envelope.js";
import type { SkillFileVersion } from "./types.js";

export interface SkillManageInputSchema {
  type: "object";
  properties: {
    action: { type: "string"; enum: string[]; description: string };
    name: { type: "string"; description: string };
    content: { type: "string"; description: string };
    old_string: { type: "string"; description: string };
    new_string: { type: "string"; description: string };
    replace_all: { type: "boolean"; description: string };
    file_path: { type: "string"; description: string };
  };
}

/** What a host needs to offer `skill_manage` to a model. */
export interface SkillManageToolDefinition {
  name: string;
  description: string;
  inputSchema: SkillManageInputSchema;
}

export interface SkillManageDeps {
  /** The live scoped registry of a scope: what the agent can see (and so may change or not shadow). */
  resolveRegistry(scope: Scope): ScopedRegistry | Promise<ScopedRegistry>;
  /** The writable sources open to a scope, in placement order. */
  writableSources(scope: Scope): readonly WritableSource[];
  /** Rescans every source, so a skill dropped on disk since the last scan is seen before a create. */
  refreshSkills(): Promise<unknown>;
  /** Rescans one source after a write; resolves once the new snapshot serves. */
  refreshSource(index: number): Promise<unknown>;
}

export interface SkillManageContext extends Scope {
  /** The sha256 of SKILL.md this session last read or wrote, by skill name; undefined when it never did. */
  knownSkillFile?(name: string): string | null | undefined;
}

export interface SkillManageInvocation {
  envelope: Envelope<ManagedData>;
  text: string;
  /** The SKILL.md version the call wrote (or `sha256: null`: deleted), for the session to keep. */
  skillFile?: SkillFileVersion;
}

export interface SkillManageTool extends SkillManageToolDefinition {
  name: "skill_manage";
  call(args: unknown, ctx?: SkillManageContext): Promise<Envelope<ManagedData>>;
  invoke(args: unknown, ctx?: SkillManageContext): Promise<SkillManageInvocation>;
}
