import type { TextFinding } from "../package/types.js";
import type { AuditState } from "./audit-verdict.js";
import type { RegisteredSkill } from "../registry/types.js";

/** Per-agent policy (SPEC §3.1, §3.2). Names are exact. */
export interface AgentPolicy {
  /** Absent or `["*"]`: the whole shared pool; `[]`: none of it. */
  allowedSkills?: string[];
  excludedSkills?: string[];
  /** Absent or `["*"]`: every tool. */
  allowedTools?: string[];
  deniedTools?: string[];
}

/** Per-project policy (SPEC §3.2 Project Context, §3.1 tool whitelist). */
export interface ProjectPolicy {
  label?: string;
  /** The project's own skills it turns off. */
  disabledSkills?: string[];
  /** Shared-pool skills the project opts in; granted, so always allowed. */
  sharedSkills?: string[];
  /** Tools the project allows; default `PROJECT_DEFAULT_ALLOWED_TOOLS`. */
  toolWhitelist?: string[];
}

export interface Scope {
  projectId?: string;
  agentId?: string;
}

export type Availability =
  | { status: "available"; optionalMissing: string[] }
  | { status: "unavailable"; missing: string[]; optionalMissing: string[] }
  | { status: "invalid"; message: string };

/** Public face of a skill in a listing (SPEC §7: at least name, description, origin, dir). */
export interface SkillInfo {
  name: string;
  /** As the model's catalog shows it: the description, then ` - ` and `when_to_use` when the skill has one. */
  description: string;
  origin: RegisteredSkill["origin"];
  label: string;
  dir: string;
}

/**
 * The registry one `(projectId?, agentId?)` pair sees. A skill it does not show is
 * indistinguishable from a missing one.
 */
export interface ScopedRegistry {
  /** Whether the `skill` tool is effective for this scope (Tool Access Policy). */
  readonly toolAvailable: boolean;
  /**
   * Whether a tool of that name is effective for this scope (Tool Access Policy, SPEC §3.1):
   * `skill_manage` asks it. Optional for registries a host builds itself; without it only
   * `skill` is known, through `toolAvailable`.
   */
  toolEffective?(tool: string): boolean;
  /**
   * Allowed skills the model may use, in precedence order of origin, then name: what the
   * catalog and the `{}` listing offer. `disable-model-invocation` skills are left out (hidden,
   * not activatable), and so are skills whose requirements are unmet or malformed here (SPEC
   * §5.5): `get` still finds those, so activating one answers `skill_unavailable`.
   */
  list(): SkillInfo[];
  /**
   * The same skills as `list()`, as one shared frozen array that is replaced whenever what it
   * holds may change (a new snapshot, new requirement answers): text derived from it, such as the
   * catalog, can be kept for as long as it is the same array. Optional, for registries a host
   * builds itself; without it nothing derived is shared.
   */
  offered?(): readonly SkillInfo[];
  /** The allowed, model-invocable skill of that name. */
  get(name: string): RegisteredSkill | undefined;
  /** Every allowed skill including model-hidden ones: for people (`show`, `doctor`), never for the tool. */
  all(): RegisteredSkill[];
  /** Requirement check of an allowed skill; `undefined` when not allowed or missing. */
  availability(name: string): Availability | undefined;
  /**
   * The audit's finding that keeps an allowed skill from being served (SPEC §12), as far as known
   * without reading: SKILL.md's findings, and the rest of the package's once judged. Such a skill
   * is left out of `list()`; `get` still finds it, so activating it answers `skill_unavailable`.
   * Optional, for registries a host builds itself; without it nothing is blocked.
   */
  blocked?(name: string): TextFinding | undefined;
  /**
   * Everything the audit says of an allowed skill, the rest of the package judged first (the
   * first time only; bounded by the package limits); `undefined` when not allowed or missing.
   */
  audit?(name: string): Promise<AuditState | undefined>;
  /** As `audit`, from what is known without reading anything (SKILL.md's findings; the package's once judged). */
  auditNow?(name: string): AuditState | undefined;
  /** Snapshot version this scope was resolved from. */
  readonly version: number;
  /**
   * The root directory of every source (`RegistrySnapshot.sourceRoots`): a root inside a skill's
   * folder is another package, which the tool neither lists nor reads through that skill.
   * Optional, for registries a host builds itself; without it only nested skills end a package.
   */
  readonly sourceRoots?: readonly string[];
}
