/**
 * A session is one conversation (SPEC §5): it supplies the tool's activation hook and owns
 * everything that must end with the conversation — dedup, narrowing, grants, carried state and
 * the pinned catalog — plus the durable log those are rebuilt from.
 */
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import type { SkillInfo } from "../access/types.js";
import type { Diagnostic } from "../package/diagnostic.js";
import type { Envelope, ManagedData } from "../tool/envelope.js";
import type { SkillManageInvocation, SkillManageTool } from "../tool/manage-types.js";
import type { SkillTool, SkillToolContext, SkillToolInvocation } from "../tool/types.js";
import {
  lastHeader,
  now,
  openConversation,
  settingsOf,
  type CallOptions,
  type SessionHost,
  type Settings,
} from "./conversation.js";
import { fileLog, memoryLog, readSessionLog, resolveLogPath, type SessionLog } from "./log.js";
import type { GateDecision } from "./narrowing.js";
import type { CatalogFormat } from "../prompt/catalog.js";
import type { CommitResult, CompactionMode, DedupMode, SessionHeaderRecord, SessionRecord } from "./records.js";
import type { SkillStats } from "./stats.js";

export type { CallOptions, SessionHost } from "./conversation.js";

export interface SessionOptions {
  /** Default: a random UUID (or, when restoring, the id the log was written under). */
  id?: string;
  projectId?: string;
  agentId?: string;
  /** Default `carry`. */
  compaction?: CompactionMode;
  /** Default 24,000 UTF-8 bytes of carried bodies. */
  carryBudgetBytes?: number;
  /**
   * Where the log goes: a `.jsonl` file, or a directory for `<id>.jsonl`; `false` or nothing
   * keeps it in memory (SPEC §5.6: the library writes no file the host did not ask for).
   */
  log?: string | false;
  /**
   * With no file log: how many of the newest records `history()` keeps in memory (default
   * `MEMORY_LOG_MAX_RECORDS`, within `MEMORY_LOG_MAX_CHARS`). 0 keeps none, for a host that never
   * reads the history (the MCP server with `--no-log`): a live session then holds no record at all.
   */
  memoryHistory?: number;
  /**
   * With no file log: how many characters of JSON those records may take (default
   * `MEMORY_LOG_MAX_CHARS`, 256 KiB); the newest record is kept whatever its size.
   */
  memoryHistoryChars?: number;
  catalog?: { format?: CatalogFormat; budgetChars?: number };
  /** Explicit narrowing of this run to these skill names, on top of policy. */
  skills?: string[];
  /**
   * `epoch` (default): a repeated activation of the same content answers `already_active` until
   * a compaction commits or `clear()`. `none`: every activation answers `loaded` with its content,
   * for a host that cannot tell the session about compaction or a new conversation (SPEC §5.1).
   */
  dedup?: DedupMode;
  /** Rebuild the session from its existing log before continuing it. */
  restore?: boolean;
}

export interface Checkpoint {
  /** Ends the epoch and returns what the host needs to rebuild its transcript. */
  commit(): CommitResult;
  /** Leaves dedup, grants and everything else exactly as they were. */
  abort(): void;
}

export interface CarriedState {
  /** The carried block of the last committed compaction; null when nothing was carried. */
  carried: string | null;
  /** The names-only reminder of the last committed compaction; null when there was none. */
  reminder: string | null;
  /** Compaction epoch the conversation is in. */
  epoch: number;
}

export interface Session {
  readonly id: string;
  /** The `skill` tool bound to this session: its calls go through `call`. */
  readonly tool: SkillTool;
  /** The log file; null when the log is in memory. */
  readonly logPath: string | null;
  call(args: unknown, options?: CallOptions): Promise<Envelope>;
  /** Same as `call`, with the model-facing text as well. */
  invoke(args: unknown, options?: CallOptions): Promise<SkillToolInvocation>;
  /**
   * The `skill_manage` tool bound to this session (SPEC §11): its calls go through `manage`. Null
   * when no writable source is open to this session's scope, or its tool policy withholds the
   * tool; asked again after a policy or source change, it answers for then.
   */
  readonly manageTool: SkillManageTool | null;
  /** A `skill_manage` call: the envelope, logged as a call record of this session. */
  manage(args: unknown, options?: CallOptions): Promise<Envelope<ManagedData>>;
  /** Same as `manage`, with the model-facing text as well. */
  invokeManage(args: unknown, options?: CallOptions): Promise<SkillManageInvocation>;
  /** Skills loaded in this conversation, in first-load order. */
  loaded(): string[];
  /** Skills this run carries after policy and explicit narrowing. */
  available(): SkillInfo[];
  clear(): void;
  beginCompaction(): Checkpoint;
  narrowsSurfaceTo(): string[] | null;
  gate(toolName: string): GateDecision;
  preApprovedTools(): string[];
  envGrants(): string[];
  envFor(keys: readonly string[]): Record<string, string>;
  carriedState(): CarriedState;
  /** The catalog pinned for this prompt epoch (SPEC §5.5): built on first ask, rebuilt after a committed compaction or `clear()`. */
  catalogText(): string;
  /**
   * The catalog of the live registry now, not pinned: what a refreshed tool description shows
   * (the MCP server's `tools/list`). The same text `catalogText()` pins when asked now.
   */
  currentCatalogText(): string;
  /**
   * This conversation's records as its log holds them: read back from a file log (the whole
   * conversation, restored part included); from the in-memory log, its newest records within
   * `MEMORY_LOG_MAX_RECORDS` and `MEMORY_LOG_MAX_CHARS`.
   */
  history(): readonly SessionRecord[];
  stats(): SkillStats[];
  /** Log read and write problems; none of them cost session state. */
  diagnostics(): Diagnostic[];
  /** Flushes and closes the log. */
  close(): void;
}

function toolCallIdOf(ctx: SkillToolContext | undefined): string | undefined {
  const id = (ctx as { toolCallId?: unknown } | undefined)?.toolCallId;
  return typeof id === "string" ? id : undefined;
}

export function createSession(host: SessionHost, options: SessionOptions = {}): Session {
  const id = options.id ?? randomUUID();
  const logPath = resolveLogPath(host.cwd, id, options.log);
  if (logPath === null) return openSession(host, settingsOf({ ...options, id }, undefined), memoryLog(options.memoryHistory, options.memoryHistoryChars), [], []);
  // A log named by its own path may say whose session it is; a derived path already did.
  const namedFile = typeof options.log === "string" && logPath === path.resolve(host.cwd, options.log);
  const restoreOptions = options.id === undefined && namedFile ? options : { ...options, id };
  if (options.restore) return restoreSession(host, logPath, restoreOptions);
  // A new conversation on an existing log: its history starts after the records already there.
  const earlier = fs.existsSync(logPath) ? readSessionLog(logPath).records.length : 0;
  return openSession(host, settingsOf({ ...options, id }, undefined), fileLog(logPath), [], [], earlier);
}

/**
 * Rebuilds a session from its log and continues appending to it. Options left unset are taken
 * from the log's last session header; torn or foreign lines are skipped and reported through
 * `diagnostics()`.
 */
export function restoreSession(host: SessionHost, logPath: string, options: SessionOptions = {}): Session {
  const read = readSessionLog(logPath);
  const header = lastHeader(read.records);
  if (header) refuseForeignRestore(header, options, logPath);
  const settings = settingsOf(options, header);
  return openSession(host, settings, fileLog(logPath), read.records, read.diagnostics);
}

/**
 * A conversation's state (active skills, env grants, the pinned catalog) was decided under its
 * own scope, so it is restored only as the session it is: under another agent or project it
 * would hand that scope skills and secrets it may not see, and under another id it would be
 * someone else's conversation (a hashed file name can be asked for as a plain id).
 */
function refuseForeignRestore(header: SessionHeaderRecord, options: SessionOptions, logPath: string): void {
  const file = path.basename(logPath);
  if (options.id !== undefined && options.id !== header.id) {
    throw new Error(`Cannot restore session ${JSON.stringify(options.id)}: ${file} holds session ${JSON.stringify(header.id)}`);
  }
  for (const key of ["agentId", "projectId"] as const) {
    if (options[key] !== undefined && options[key] !== header[key]) {
      const logged = header[key] === undefined ? "none" : JSON.stringify(header[key]);
      throw new Error(`Cannot restore ${file} with ${key} ${JSON.stringify(options[key])}: the conversation was held under ${key} ${logged}, and its active skills and env grants belong to that scope`);
    }
  }
}

function openSession(
  host: SessionHost,
  settings: Settings,
  log: SessionLog,
  replay: readonly SessionRecord[],
  initialDiagnostics: readonly Diagnostic[],
  historyStart = 0,
): Session {
  const conversation = openConversation(host, settings);
  const { state } = conversation;
  const diagnostics: Diagnostic[] = [...initialDiagnostics];
  for (const record of replay) conversation.apply(record);
  let headerWritten = replay.length > 0;
  let openCheckpoint: number | null = null;
  let closed = false;

  // The header and the pinned catalog wait in memory until the session records something of its
  // own: a connection that only asked for the catalog (every MCP initialize does, even one the
  // transport then refuses) must leave no file behind.
  const held: SessionRecord[] = [];
  let holding = replay.length === 0;

  function write(record: SessionRecord, sync = false): void {
    conversation.apply(record);
    if (holding && (record.type === "session" || record.type === "catalog")) {
      held.push(record);
      return;
    }
    holding = false;
    for (const earlier of held.splice(0)) {
      const problem = log.append(earlier);
      if (problem) diagnostics.push(problem);
    }
    const problem = log.append(record, { sync });
    if (problem) diagnostics.push(problem);
  }

  function append(record: SessionRecord, sync = false): void {
    if (!headerWritten) {
      headerWritten = true;
      write(conversation.header());
    }
    write(record, sync);
  }

  async function invoke(args: unknown, options: CallOptions = {}): Promise<SkillToolInvocation> {
    if (closed) throw new Error(`Session ${settings.id} is closed`);
    const { invocation, record } = await conversation.decideCall(args, options);
    // Numbered now, not when the call started: calls finishing out of order keep the log in order.
    append({ ...record, seq: conversation.nextCallSeq() });
    return invocation;
  }

  async function invokeManage(args: unknown, options: CallOptions = {}): Promise<SkillManageInvocation> {
    if (closed) throw new Error(`Session ${settings.id} is closed`);
    const { invocation, record } = await conversation.decideManage(args, options);
    append({ ...record, seq: conversation.nextCallSeq() });
    return invocation;
  }

  let manageTool: SkillManageTool | null = null;
  const boundManageTool = (): SkillManageTool | null => {
    const inner = conversation.manageTool();
    if (inner === null) return null;
    manageTool ??= {
      name: "skill_manage",
      description: inner.description,
      inputSchema: inner.inputSchema,
      call: async (args, ctx) => (await invokeManage(args, { toolCallId: toolCallIdOf(ctx as SkillToolContext) })).envelope,
      invoke: (args, ctx) => invokeManage(args, { toolCallId: toolCallIdOf(ctx as SkillToolContext) }),
    };
    return manageTool;
  };

  function abortCheckpoint(id: number): void {
    openCheckpoint = null;
    append({ type: "checkpoint", time: now(), checkpoint: id, phase: "abort" }, true);
  }

  const tool: SkillTool = {
    name: "skill",
    description: conversation.inner.description,
    inputSchema: conversation.inner.inputSchema,
    readOnly: true,
    call: async (args, ctx) => (await invoke(args, { toolCallId: toolCallIdOf(ctx) })).envelope,
    invoke: (args, ctx) => invoke(args, { toolCallId: toolCallIdOf(ctx) }),
  };

  return {
    id: settings.id,
    tool,
    logPath: log.path,
    invoke,
    call: async (args, options) => (await invoke(args, options)).envelope,
    get manageTool() {
      return boundManageTool();
    },
    invokeManage,
    manage: async (args, options) => (await invokeManage(args, options)).envelope,
    loaded: () => conversation.loaded(),
    available: () => conversation.available(),
    clear() {
      openCheckpoint = null;
      append({ type: "clear", time: now() }, true);
    },
    beginCompaction() {
      // Only one compaction can be in progress; a new one supersedes an unfinished one.
      if (openCheckpoint !== null) abortCheckpoint(openCheckpoint);
      const id = conversation.takeCheckpoint();
      openCheckpoint = id;
      append({ type: "checkpoint", time: now(), checkpoint: id, phase: "begin" }, true);
      return {
        commit() {
          if (openCheckpoint !== id) {
            throw new Error(`Compaction checkpoint ${id} is no longer open: it was committed, aborted or superseded`);
          }
          openCheckpoint = null;
          const { record, plan } = conversation.planCommit(id);
          append(record, true);
          return plan.result;
        },
        abort() {
          if (openCheckpoint === id) abortCheckpoint(id);
        },
      };
    },
    narrowsSurfaceTo: () => conversation.narrowsSurfaceTo(),
    gate: (toolName) => conversation.gate(toolName),
    preApprovedTools: () => conversation.preApprovedTools(),
    envGrants: () => conversation.envGrants(),
    envFor: (keys) => conversation.envFor(keys),
    carriedState: () => conversation.carriedState(),
    catalogText() {
      if (state.catalog === null) append({ type: "catalog", time: now(), text: conversation.currentCatalog() });
      return state.catalog ?? "";
    },
    currentCatalogText: () => conversation.currentCatalog(),
    history() {
      const logged = log.held ? log.held() : log.path !== null ? readSessionLog(log.path).records.slice(historyStart) : [];
      return [...logged, ...held];
    },
    stats: () => conversation.stats(),
    diagnostics: () => [...diagnostics],
    close() {
      closed = true;
      const problem = log.close();
      if (problem) diagnostics.push(problem);
    },
  };
}
