/**
 * A session is one conversation (SPEC §5): it supplies the tool's activation hook and owns
 * everything that must end with the conversation — dedup, narrowing, grants, carried state and
 * the pinned catalog — plus the durable log those are rebuilt from.
 */
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import type { Scope, ScopedRegistry, SkillInfo } from "../access/types.js";
import type { Diagnostic } from "../package/diagnostic.js";
import { normalizeName } from "../package/naming.js";
import { envNames } from "../package/requirements.js";
import { renderCatalog, type CatalogFormat } from "../prompt/catalog.js";
import { sharedCatalog } from "../prompt/catalog-cache.js";
import type { RegisteredSkill } from "../registry/types.js";
import type { Envelope } from "../tool/envelope.js";
import { createSkillTool } from "../tool/skill-tool.js";
import type { SkillTool, SkillToolContext, SkillToolInvocation } from "../tool/types.js";
import { activationFromEnvelope } from "./activation.js";
import { DEFAULT_CARRY_BUDGET_BYTES, planCompaction } from "./compaction.js";
import { loggableArguments } from "./logged-arguments.js";
import { fileLog, memoryLog, readSessionLog, resolveLogPath, type SessionLog } from "./log.js";
import { envValuesFor, grantedEnvNames } from "./grants.js";
import { gateTool, narrowedSurface, type GateDecision } from "./narrowing.js";
import type {
  ActivationFacts,
  CallRecord,
  CommitResult,
  CompactionMode,
  SessionHeaderRecord,
  SessionRecord,
} from "./records.js";
import { selectSkills } from "./selection.js";
import { activeInOrder, applyRecord, emptyState, isAlreadyActive } from "./state.js";
import { StatsCounter, type SkillStats } from "./stats.js";

export interface SessionHost {
  resolveRegistry(scope: Scope): ScopedRegistry;
  refresh(): Promise<unknown>;
  /** The environment `envFor` hands values out of. */
  env(): Readonly<Record<string, string>>;
  /** Base of relative log paths. */
  cwd: string;
}

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
  catalog?: { format?: CatalogFormat; budgetChars?: number };
  /** Explicit narrowing of this run to these skill names, on top of policy. */
  skills?: string[];
  /** Rebuild the session from its existing log before continuing it. */
  restore?: boolean;
}

export interface CallOptions {
  /** The host's id for this tool call; digests at compaction are keyed by it. */
  toolCallId?: string;
  /**
   * A person started this activation (an MCP prompt, a slash command), not the model: skills
   * hidden from the model (`disable-model-invocation: true`) may be activated too.
   */
  userInvoked?: boolean;
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

interface Settings {
  id: string;
  scope: Scope;
  compaction: CompactionMode;
  carryBudgetBytes: number;
  catalog: { format: CatalogFormat; budgetChars?: number };
  selection: ReadonlySet<string> | null;
}

function now(): string {
  return new Date().toISOString();
}

function toolCallIdOf(ctx: SkillToolContext | undefined): string | undefined {
  const id = (ctx as { toolCallId?: unknown } | undefined)?.toolCallId;
  return typeof id === "string" ? id : undefined;
}

function lastHeader(records: readonly SessionRecord[]): SessionHeaderRecord | undefined {
  for (let index = records.length - 1; index >= 0; index -= 1) {
    const record = records[index];
    if (record?.type === "session") return record;
  }
  return undefined;
}

function settingsOf(options: SessionOptions, header: SessionHeaderRecord | undefined): Settings {
  const compaction = options.compaction ?? header?.compaction ?? "carry";
  if (compaction !== "carry" && compaction !== "reload") {
    throw new TypeError(`compaction must be "carry" or "reload", got ${JSON.stringify(compaction)}`);
  }
  const carryBudgetBytes = options.carryBudgetBytes ?? header?.carryBudgetBytes ?? DEFAULT_CARRY_BUDGET_BYTES;
  if (!Number.isFinite(carryBudgetBytes) || carryBudgetBytes < 0) {
    throw new RangeError(`carryBudgetBytes must be a non-negative number, got ${String(carryBudgetBytes)}`);
  }
  const scope: Scope = {};
  const projectId = options.projectId ?? header?.projectId;
  const agentId = options.agentId ?? header?.agentId;
  if (projectId !== undefined) scope.projectId = projectId;
  if (agentId !== undefined) scope.agentId = agentId;
  return {
    id: options.id ?? header?.id ?? randomUUID(),
    scope,
    compaction,
    carryBudgetBytes,
    catalog: {
      format: options.catalog?.format ?? "xml",
      ...(options.catalog?.budgetChars !== undefined ? { budgetChars: options.catalog.budgetChars } : {}),
    },
    // Named the way the registry names skills, so any spelling of a name selects it.
    selection: options.skills ? new Set(options.skills.map(normalizeName)) : null,
  };
}

export function createSession(host: SessionHost, options: SessionOptions = {}): Session {
  const id = options.id ?? randomUUID();
  const logPath = resolveLogPath(host.cwd, id, options.log);
  if (logPath === null) return openSession(host, settingsOf({ ...options, id }, undefined), memoryLog(), [], []);
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
  const state = emptyState();
  // No list of records: statistics are counted as records arrive, and the history is the log's
  // (SESSION.md), so a long conversation's envelopes are not all kept in memory.
  const counter = new StatsCounter();
  const diagnostics: Diagnostic[] = [...initialDiagnostics];
  for (const record of replay) {
    applyRecord(state, record);
    counter.add(record);
  }
  let nextSeq = replay.reduce((next, record) => (record.type === "call" ? Math.max(next, record.seq + 1) : next), 0);
  let nextCheckpoint = replay.reduce(
    (next, record) => (record.type === "checkpoint" ? Math.max(next, record.checkpoint + 1) : next),
    0,
  );
  let headerWritten = replay.length > 0;
  let openCheckpoint: number | null = null;
  let closed = false;
  // (name, content) pairs whose activation is in flight: a concurrent second call is a repeat.
  const inFlight = new Set<string>();

  const scoped = (): ScopedRegistry => selectSkills(host.resolveRegistry(settings.scope), settings.selection);
  /** What a skill declares now, model-hidden ones included (a prompt can activate those). */
  const declaredEnv = (name: string): readonly string[] => {
    const registry = scoped();
    const skill = registry.get(name) ?? registry.all().find((candidate) => candidate.name === name);
    return skill ? envNames(skill.manifest.requirements) : [];
  };

  /** Rendered once per registry list and options, and shared with every session that sees the same list. */
  function currentCatalog(): string {
    const registry = scoped();
    if (!registry.toolAvailable) return "";
    const offered = registry.offered?.();
    return offered ? sharedCatalog(offered, settings.catalog) : renderCatalog(registry.list(), settings.catalog);
  }
  const inner = createSkillTool({ resolveRegistry: scoped, refreshSkills: () => host.refresh() });

  // The header and the pinned catalog wait in memory until the session records something of its
  // own: a connection that only asked for the catalog (every MCP initialize does, even one the
  // transport then refuses) must leave no file behind.
  const held: SessionRecord[] = [];
  let holding = replay.length === 0;

  function write(record: SessionRecord, sync = false): void {
    counter.add(record);
    applyRecord(state, record);
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
      const header: SessionHeaderRecord = {
        type: "session",
        v: 1,
        time: now(),
        id: settings.id,
        ...settings.scope,
        compaction: settings.compaction,
        carryBudgetBytes: settings.carryBudgetBytes,
      };
      write(header);
    }
    write(record, sync);
  }

  /**
   * Declarations are taken from the record the tool read the body against, never looked up
   * again: the registry may have been swapped since, and the session must record the manifest
   * of the same file version as the content.
   */
  function factsOf(skill: RegisteredSkill | undefined): ActivationFacts {
    if (!skill) return { tools: null, allowedTools: null, env: [] };
    return {
      tools: skill.manifest.tools ? [...skill.manifest.tools] : null,
      allowedTools: skill.manifest.allowedTools ? [...skill.manifest.allowedTools] : null,
      env: envNames(skill.manifest.requirements),
    };
  }

  async function invoke(args: unknown, options: CallOptions = {}): Promise<SkillToolInvocation> {
    if (closed) throw new Error(`Session ${settings.id} is closed`);
    const reserved: Array<{ key: string; name: string; content: string; facts: ActivationFacts }> = [];
    const activateSkill = (name: string, content: string, skill?: RegisteredSkill): boolean => {
      const key = JSON.stringify([name, content]);
      if (isAlreadyActive(state, name, content) || inFlight.has(key)) return false;
      inFlight.add(key);
      // The session's own tool always passes the record; the lookup is only for a caller that does not.
      reserved.push({ key, name, content, facts: factsOf(skill ?? scoped().get(name)) });
      return true;
    };
    let invocation: SkillToolInvocation;
    try {
      invocation = await inner.invoke(args, { ...settings.scope, activateSkill, ...(options.userInvoked ? { userInvoked: true } : {}) });
    } finally {
      for (const entry of reserved) inFlight.delete(entry.key);
    }
    const activation = activationFromEnvelope(invocation.envelope);
    const facts = activation
      ? reserved.find((entry) => entry.name === activation.name && entry.content === activation.content)?.facts
      : undefined;
    const record: CallRecord = {
      type: "call",
      time: now(),
      seq: nextSeq,
      toolCallId: options.toolCallId ?? null,
      args: loggableArguments(args),
      envelope: invocation.envelope,
      ...(facts ? { activation: facts } : {}),
    };
    nextSeq += 1;
    append(record);
    return invocation;
  }

  function abortCheckpoint(id: number): void {
    openCheckpoint = null;
    append({ type: "checkpoint", time: now(), checkpoint: id, phase: "abort" }, true);
  }

  const tool: SkillTool = {
    name: "skill",
    description: inner.description,
    inputSchema: inner.inputSchema,
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
    loaded: () => [...state.loaded.keys()],
    available() {
      const registry = scoped();
      return registry.toolAvailable ? registry.list() : [];
    },
    clear() {
      openCheckpoint = null;
      append({ type: "clear", time: now() }, true);
    },
    beginCompaction() {
      // Only one compaction can be in progress; a new one supersedes an unfinished one.
      if (openCheckpoint !== null) abortCheckpoint(openCheckpoint);
      const id = nextCheckpoint;
      nextCheckpoint += 1;
      openCheckpoint = id;
      append({ type: "checkpoint", time: now(), checkpoint: id, phase: "begin" }, true);
      return {
        commit() {
          if (openCheckpoint !== id) {
            throw new Error(`Compaction checkpoint ${id} is no longer open: it was committed, aborted or superseded`);
          }
          openCheckpoint = null;
          const plan = planCompaction(state, settings.compaction, settings.carryBudgetBytes);
          append({ type: "checkpoint", time: now(), checkpoint: id, phase: "commit", result: plan.result, kept: plan.kept }, true);
          return plan.result;
        },
        abort() {
          if (openCheckpoint === id) abortCheckpoint(id);
        },
      };
    },
    narrowsSurfaceTo: () => narrowedSurface(state),
    gate: (toolName) => gateTool(narrowedSurface(state), toolName),
    preApprovedTools() {
      const tools = new Set<string>();
      for (const skill of activeInOrder(state)) for (const tool of skill.facts.allowedTools ?? []) tools.add(tool);
      return [...tools];
    },
    envGrants: () => grantedEnvNames(state, declaredEnv),
    envFor: (keys) => envValuesFor(state, declaredEnv, host.env(), keys),
    carriedState: () => ({ carried: state.carried, reminder: state.reminder, epoch: state.epoch }),
    catalogText() {
      if (state.catalog === null) append({ type: "catalog", time: now(), text: currentCatalog() });
      return state.catalog ?? "";
    },
    currentCatalogText: currentCatalog,
    history() {
      const logged = log.held ? log.held() : log.path !== null ? readSessionLog(log.path).records.slice(historyStart) : [];
      return [...logged, ...held];
    },
    stats: () => counter.snapshot(),
    diagnostics: () => [...diagnostics],
    close() {
      closed = true;
      const problem = log.close();
      if (problem) diagnostics.push(problem);
    },
  };
}
