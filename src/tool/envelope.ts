/**
 * The `skill` tool's envelopes (SPEC §4). This is the durable, persisted contract: sessions are
 * stored as these objects and parsed back from them, so no field name here may ever change.
 * Every layer builds envelopes through this module and nowhere else.
 */

export type ErrorCode =
  | "invalid_arguments"
  | "tool_unavailable"
  | "skill_not_found"
  | "skill_unavailable"
  | "skill_read_error"
  // skill_manage (SPEC §11):
  /** The skill lives in a source that is not writable. */
  | "read_only_skill"
  /** SKILL.md changed since this session last read or wrote it (or it never did). */
  | "stale_skill"
  /** The resulting SKILL.md fails `validate`; `messages` holds the validator's messages. */
  | "invalid_skill"
  /** `create` of a name the agent can already see, or that is already on disk where it would go. */
  | "skill_exists"
  /** `patch`: `old_string` occurs not exactly once (`matches` says how often). */
  | "patch_failed"
  /** A path or content a write refuses, with a `reason`. */
  | "skill_write_error";

import type { ReadErrorReason } from "../package/confined-read.js";
import type { WriteErrorReason } from "../package/confined-write.js";

export type { ReadErrorReason, WriteErrorReason };

export interface ToolError {
  code: ErrorCode;
  message: string;
  /** Only on `skill_read_error` and `skill_write_error` (which adds `too_large`). */
  reason?: WriteErrorReason;
  /** `invalid_skill`: the validator's messages, in its order. */
  messages?: string[];
  /** `patch_failed`: how many times `old_string` occurs. */
  matches?: number;
  /** `invalid_arguments`: the unknown argument names. */
  unknown?: string[];
  /** `skill_not_found`: a few allowed names close to the one asked for. */
  suggestions?: string[];
  /** `skill_unavailable`: the missing requirement items. */
  missing?: string[];
}

export interface ListData {
  /**
   * Never set: a listing has no status. Declared so that `data.status === "loaded"` narrows a
   * call's data to the activation it is, without first ruling out a listing.
   */
  status?: never;
  count: number;
  skill_groups: Array<{ origin: string; label: string; skills: Array<{ name: string; description: string }> }>;
}

export interface ResourceFiles {
  guidance: string;
  files: string[];
}

export interface EnvironmentAccess {
  names: string[];
  guidance: string;
}

export interface LoadedData {
  name: string;
  status: "loaded";
  content: string;
  resource_files?: ResourceFiles;
  environment_access?: EnvironmentAccess;
}

export interface AlreadyActiveData {
  name: string;
  status: "already_active";
  message: string;
}

export interface FileLoadedData {
  name: string;
  status: "file_loaded";
  file_path: string;
  content: string;
}

/** What `skill_manage` did (SPEC §11); `file_path` for the file actions and a patch of another file. */
export interface ManagedData {
  name: string;
  status: "created" | "edited" | "patched" | "file_written" | "file_removed" | "deleted";
  file_path?: string;
}

export type SkillToolData = ListData | LoadedData | AlreadyActiveData | FileLoadedData | ManagedData;

export type Envelope<D = SkillToolData> =
  | { ok: true; error: null; data: D }
  | { ok: false; error: ToolError; data: null };

export function success<D extends SkillToolData>(data: D): Envelope<D> {
  return { ok: true, error: null, data };
}

export function failure(error: ToolError): Envelope<never> {
  return { ok: false, error, data: null };
}

export function isListData(data: SkillToolData): data is ListData {
  return "skill_groups" in data;
}
