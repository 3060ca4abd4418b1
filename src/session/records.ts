/**
 * The records of a session log (one JSON object per line). The log is the session's durable
 * memory: a restored session is rebuilt from these records alone, never from the registry, so
 * every fact a replay needs is written into the record that caused it.
 */
import type { Envelope } from "../tool/envelope.js";

export type CompactionMode = "carry" | "reload";

/** How a session answers a repeated activation (SPEC §5.1): `epoch` dedups per compaction epoch, `none` never. */
export type DedupMode = "epoch" | "none";

/** Opens a conversation in the log; on replay it also resets conversation state like `clear`. */
export interface SessionHeaderRecord {
  type: "session";
  v: 1;
  time: string;
  id: string;
  projectId?: string;
  agentId?: string;
  compaction: CompactionMode;
  carryBudgetBytes: number;
  /** Absent: `epoch`. */
  dedup?: DedupMode;
  /** Digest of the skill tree the serving process started the conversation on, when it knows one. */
  registryDigest?: string;
  /**
   * What the host's client declared when the conversation started (MCP `initialize`), kept so
   * any process continuing the conversation answers the client the same way.
   */
  client?: { protocolVersion?: string; capabilities?: Record<string, unknown> };
}

/**
 * What the session learned about a skill when it activated it. Kept in the log because the
 * skill on disk may change or vanish before a restore.
 */
export interface ActivationFacts {
  /** Declared `tools` (narrowing); null when the skill does not declare any. */
  tools: string[] | null;
  /** Declared `allowed-tools` (pre-approval); null when absent. */
  allowedTools: string[] | null;
  /** Environment variable names the activation grants. */
  env: string[];
}

export interface CallRecord {
  type: "call";
  time: string;
  /** Position of the call in this session's log, from 0. */
  seq: number;
  toolCallId: string | null;
  args: unknown;
  envelope: Envelope;
  /** Present when the call activated a skill afresh. */
  activation?: ActivationFacts;
  /** `skill_manage` for a call of that tool (SPEC §11); absent for the `skill` tool. */
  tool?: "skill_manage";
  /**
   * The SKILL.md version the call read or wrote (`sha256: null`: it deleted the skill): replayed,
   * it tells a restored session which version a later edit must start from.
   */
  skillFile?: { name: string; sha256: string | null };
}

/** What `commit()` hands the host to rebuild its transcript (SPEC §5.2). */
export interface CommitResult {
  digests: Record<string, Envelope<DigestData>>;
  carried: string | null;
  reminder: string | null;
}

/** A loading result with its instructions removed, kept at the same tool-result id. */
export interface DigestData {
  name: string;
  status: "loaded";
  compacted: true;
}

export type CheckpointRecord =
  | { type: "checkpoint"; time: string; checkpoint: number; phase: "begin" }
  | { type: "checkpoint"; time: string; checkpoint: number; phase: "abort" }
  | {
      type: "checkpoint";
      time: string;
      checkpoint: number;
      phase: "commit";
      result: CommitResult;
      /** Skills that stay active in the new epoch (the carried ones), newest first. */
      kept: string[];
    };

export interface ClearRecord {
  type: "clear";
  time: string;
}

/** The prompt catalog text the session pinned, so a restore shows the model the same prefix. */
export interface CatalogRecord {
  type: "catalog";
  time: string;
  text: string;
}

/**
 * Ends the conversation for good (an HTTP `DELETE`, an idle timeout): every process sharing the
 * store refuses it afterwards. Written by the store-backed server only.
 */
export interface EndRecord {
  type: "end";
  time: string;
  reason: "deleted" | "idle";
}

export type SessionRecord = SessionHeaderRecord | CallRecord | CheckpointRecord | ClearRecord | CatalogRecord | EndRecord;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function isEnvelope(value: unknown): value is Envelope {
  if (!isObject(value)) return false;
  if (value.ok === true) return value.error === null && isObject(value.data);
  if (value.ok === false) return isObject(value.error) && value.data === null;
  return false;
}

function isActivationFacts(value: unknown): value is ActivationFacts {
  return (
    isObject(value) &&
    (value.tools === null || isStringList(value.tools)) &&
    (value.allowedTools === null || isStringList(value.allowedTools)) &&
    isStringList(value.env)
  );
}

function isCommitResult(value: unknown): value is CommitResult {
  return (
    isObject(value) &&
    isObject(value.digests) &&
    Object.values(value.digests).every(isEnvelope) &&
    (value.carried === null || typeof value.carried === "string") &&
    (value.reminder === null || typeof value.reminder === "string")
  );
}

/**
 * Checks the shape of a parsed log line. A line that parses as JSON but is not a record we
 * can replay is treated like a torn line: skipped with a diagnostic, never half-applied.
 */
export function isSessionRecord(value: unknown): value is SessionRecord {
  if (!isObject(value) || typeof value.time !== "string") return false;
  switch (value.type) {
    case "session":
      return (
        value.v === 1 &&
        typeof value.id === "string" &&
        (value.compaction === "carry" || value.compaction === "reload") &&
        // A header a restore would refuse as an option is a foreign line, skipped and reported.
        typeof value.carryBudgetBytes === "number" &&
        Number.isFinite(value.carryBudgetBytes) &&
        value.carryBudgetBytes >= 0 &&
        (value.projectId === undefined || typeof value.projectId === "string") &&
        (value.agentId === undefined || typeof value.agentId === "string") &&
        (value.dedup === undefined || value.dedup === "epoch" || value.dedup === "none") &&
        (value.registryDigest === undefined || typeof value.registryDigest === "string") &&
        (value.client === undefined || isObject(value.client))
      );
    case "call":
      return (
        typeof value.seq === "number" &&
        (value.toolCallId === null || typeof value.toolCallId === "string") &&
        "args" in value &&
        isEnvelope(value.envelope) &&
        (value.activation === undefined || isActivationFacts(value.activation)) &&
        (value.tool === undefined || value.tool === "skill_manage") &&
        (value.skillFile === undefined ||
          (isObject(value.skillFile) && typeof value.skillFile.name === "string" && (value.skillFile.sha256 === null || typeof value.skillFile.sha256 === "string")))
      );
    case "checkpoint":
      if (typeof value.checkpoint !== "number") return false;
      if (value.phase === "begin" || value.phase === "abort") return true;
      return value.phase === "commit" && isCommitResult(value.result) && isStringList(value.kept);
    case "clear":
      return true;
    case "catalog":
      return typeof value.text === "string";
    case "end":
      return value.reason === "deleted" || value.reason === "idle";
    default:
      return false;
  }
}
