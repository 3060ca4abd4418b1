import type { Diagnostic } from "../package/diagnostic.js";
import type { SkillPackage } from "../package/types.js";

export type Origin = "bundled" | "global" | "project" | "agent";

/**
 * What the audit's findings do to a source's skills (SPEC §12): `block` (the default) leaves a
 * skill that blocks out of everything a model is offered; `warn` serves it, its findings shown
 * to people as warnings; `off` judges nothing.
 */
export type AuditMode = "block" | "warn" | "off";

/** Where skills come from (SPEC §2). `path` is a directory of skills or one skill directory. */
export interface SkillSource {
  path: string;
  origin: Origin;
  /** origin `project`: the owning project. */
  projectId?: string;
  /** Display label of the source's group; defaults per origin. */
  label?: string;
  /** origin `agent`: the owning agent; the skill is private to it. */
  agentId?: string;
  /** Directories the walk may visit below the path before it stops with a warning; default 50,000. */
  maxDirectories?: number;
  /**
   * Follow symlinks wherever they lead. Off, a link (to a directory or to a SKILL.md) whose real
   * target lies outside `linkRoot` is not followed, with a warning. Default: on for `global` and
   * `bundled` sources (the user's own folders, which often link to checkouts elsewhere), off for
   * `project` sources (a cloned repository chooses their links) and `agent` sources (a private
   * skill is always allowed to its agent, so a link there would widen its policy).
   */
  followExternalLinks?: boolean;
  /** Where links may lead when `followExternalLinks` is off; default the source's own directory. */
  linkRoot?: string;
  /**
   * Agents may write skills here through `skill_manage` (SPEC §11). Only `agent` and `project`
   * sources: a shared-pool source is seen by every agent, and a skill written there would reach
   * agents its writer does not speak for. Skills here pre-approve no tools and grant no
   * environment variables unless the source is also `trusted`.
   */
  writable?: boolean;
  /** With `writable`: honour `allowed-tools` and env requirements of the skills written here. */
  trusted?: boolean;
  /**
   * A folder that may well not exist (the default folders): missing, it contributes nothing
   * without a word. Any other source that does not exist gets a `source_missing` warning, since
   * a path someone named and mistyped would otherwise just serve no skills.
   */
  optional?: boolean;
  /** What the audit's findings do to this source's skills; default `block` (`AuditMode`). */
  audit?: AuditMode;
}

/** A loaded skill together with where it came from. */
export interface RegisteredSkill extends SkillPackage {
  origin: Origin;
  /** Group label shown in listings and catalogs. */
  label: string;
  projectId?: string;
  agentId?: string;
  /** Index of the source in the configured order (lower wins within one origin). */
  sourceIndex: number;
  /** Present (true) when the skill's source is writable (SPEC §11). */
  writable?: true;
  /**
   * Present (true) when the trust rule withholds the skill's grants (`authored-trust.ts`): a
   * surface that publishes the file itself (the Skills Extension) strips them there too.
   */
  grantsWithheld?: true;
  /** The source's audit setting, present when it is not the default `block`. */
  audit?: "warn" | "off";
}

/**
 * An immutable registry snapshot. A refresh builds a new one and swaps it in one step, so a
 * reader holding a snapshot never sees a half-built registry.
 */
export interface RegistrySnapshot {
  /** Increases by one on every swap; scoped-registry caches key on it. */
  readonly version: number;
  /** Every loaded skill, in precedence order (agent > project > global > bundled, then source order). */
  readonly skills: readonly RegisteredSkill[];
  /** Every diagnostic of the scan: invalid skills, warnings, shadowed losers, loops, bounds. */
  readonly diagnostics: readonly Diagnostic[];
  /** Environment snapshot taken at load, for requirement checks. */
  readonly env: Readonly<Record<string, string>>;
  /**
   * The root directory of every source (as configured and as its real path when it exists): a
   * root inside a skill's folder is another package, whose files that skill neither lists nor
   * reads (SECURITY.md). Sorted.
   */
  readonly sourceRoots: readonly string[];
}
