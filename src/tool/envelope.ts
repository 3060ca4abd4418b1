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
  | "skill_read_error";

import type { ReadErrorReason } from "../package/confined-read.js";

export type { ReadErrorReason };

export interface ToolError {
  code: ErrorCode;
  message: string;
  /** Only on `skill_read_error`. */
  reason?: ReadErrorReason;
  /** `invalid_arguments`: the unknown argument names. */
  unknown?: string[];
  /** `skill_not_found`: a few allowed names close to the one asked for. */
  suggestions?: string[];
  /** `skill_unavailable`: the missing requirement items. */
  missing?: string[];
}

export interface ListData {
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

export type SkillToolData = ListData | LoadedData | AlreadyActiveData | FileLoadedData;

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
