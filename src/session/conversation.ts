/**
 * What a session decides and what it knows, apart from where its records go: the fold over
 * records (`applyRecord`, the one place state changes), the call decision (run the tool with the
 * dedup hook over the current state, and build the record it produced), the header, and every
 * read of the state. A session on a log (`session.ts`) and one on a shared store
 * (`stored-session.ts`) are two ways of persisting the same decisions.
 */
import { randomUUID } from "node:crypto";
import type { Scope, ScopedRegistry, SkillInfo } from "../access/types.js";
import { normalizeName } from "../package/naming.js";
import { envNames } from "../package/requirements.js";
import { renderCatalog, type CatalogFormat } from "../prompt/catalog.js";
import { sharedCatalog } from "../prompt/catalog-cache.js";
import type { RegisteredSkill } from "../registry/types.js";
import type { WritableSource } from "../access/writable-sources.js";
import { createSkillManageTool, manageToolOffered } from "../tool/manage-tool.js";
import type { SkillManageInvocation, SkillManageTool } from "../tool/manage-types.js";
import { createSkillTool } from "../tool/skill-tool.js";
import type { SkillTool, SkillToolInvocation } from "../tool/types.js";
import { activationFromEnvelope } from "./activation.js";
import { DEFAULT_CARRY_BUDGET_BYTES, planCompaction, type CompactionPlan } from "./compaction.js";
import { envValuesFor, grantedEnvNames } from "./grants.js";
import { loggableArguments } from "./logged-arguments.js";
import { gateTool, narrowedSurface, type GateDecision } from "./narrowing.js";
import type { ActivationFacts, CallRecord, CompactionMode, DedupMode, SessionHeaderRecord, SessionRecord } from "./records.js";
import { selectSkills } from "./selection.js";
import { activeInOrder, applyRecord, emptyState, type ConversationState } from "./state.js";
import { StatsCounter, type SkillStats } from "./stats.js";
import { isAlreadyActive } from "./state.js";

export interface SessionHost {
  resolveRegistry(scope: Scope): ScopedRegistry;
  refresh(): Promise<unknown>;
  /** The environment `envFor` hands values out of. */
  env(): Readonly<Record<string, string>>;
  /** Base of relative log paths. */
  cwd: string;
  /** What the host serves (a bundle's digest), written into the header of a stored session. */
  registryDigest?(): Promise<string>;
  /** The writable sources open to a scope (SPEC §11); without it no session is offered `skill_manage`. */
  writableSources?(scope: Scope): readonly WritableSource[];
  /** Rescans one source after `skill_manage` wrote into it. */
  refreshSource?(index: number): Promise<unknown>;
}

export interface CatalogOptions {
  format?: CatalogFormat;
  budgetChars?: number;
}

/** The options a conversation is decided under (the rest of `SessionOptions` is about persistence). */
export interface ConversationOptions {
  id?: string;
  projectId?: string;
  agentId?: string;
  compaction?: CompactionMode;
  carryBudgetBytes?: number;
  catalog?: CatalogOptions;
  skills?: string[];
  /**
   * Whether a repeated activation answers `already_active` (SPEC §5.1). `epoch` (the default): the
   * same content once per compaction epoch, for a host that tells the session about compaction
   * and new conversations. `none`: every activation answers `loaded` with its content, for a host
   * that cannot (over MCP nothing says the model's context was reset).
   */
  dedup?: DedupMode;
}


export interface CallOptions {
  /** The host's id for this tool call; digests at compaction are keyed by it. */
  toolCallId?: string;
  /**
   * A person started this activation (an MCP prompt, a slash command), not the model: skills
   * hidden from the model (`disable-model-invocation: true`) may be activated too, and the answer
   * always carries the content: a person asking for the skill again is never told it is loaded.
   */
  userInvoked?: boolean;
}

export interface Settings {
  id: string;
  scope: Scope;
  compaction: CompactionMode;
  carryBudgetBytes: number;
  catalog: { format: CatalogFormat; budgetChars?: number };
  selection: ReadonlySet<string> | null;
  dedup: DedupMode;
}

export function now(): string {
  return new Date().toISOString();
}

export function lastHeader(records: readonly SessionRecord[]): SessionHeaderRecord | undefined {
  for (let index = records.length - 1; index >= 0; index -= 1) {
    const record = records[index];
    if (record?.type === "session") return record;
  }
  return undefined;
}

export function settingsOf(options: ConversationOptions, header: SessionHeaderRecord | undefined): Settings {
  const compaction = options.compaction ?? header?.compaction ?? "carry";
  if (compaction !== "carry" && compaction !== "reload") {
    throw new TypeError(`compaction must be "carry" or "reload", got ${JSON.stringify(compaction)}`);
  }
  const carryBudgetBytes = options.carryBudgetBytes ?? header?.carryBudgetBytes ?? DEFAULT_CARRY_BUDGET_BYTES;
  if (!Number.isFinite(carryBudgetBytes) || carryBudgetBytes < 0) {
    throw new RangeError(`carryBudgetBytes must be a non-negative number, got ${String(carryBudgetBytes)}`);
  }
  const dedup = options.dedup ?? header?.dedup ?? "epoch";
  if (dedup !== "epoch" && dedup !== "none") throw new TypeError(`dedup must be "epoch" or "none", got ${JSON.stringify(dedup)}`);
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
    dedup,
  };
}

export interface Conversation {
  readonly settings: Settings;
  readonly state: ConversationState;
  /** The tool the session wraps, for its description and schema. */
  readonly inner: SkillTool;
  /** Folds one record in: state, statistics and the next call and checkpoint numbers. */
  apply(record: SessionRecord): void;
  /** The call number the next call record gets. */
  nextCallSeq(): number;
  /** Takes the next checkpoint number. */
  takeCheckpoint(): number;
  /** A header for this conversation. */
  header(extra?: Pick<SessionHeaderRecord, "registryDigest" | "client">): SessionHeaderRecord;
  /**
   * Runs the tool against the current state and returns what it answered with the record to
   * persist; the state is not changed until that record is applied.
   */
  decideCall(args: unknown, options: CallOptions): Promise<{ invocation: SkillToolInvocation; record: CallRecord }>;
  /** The `skill_manage` tool of this conversation; null when the host opens no writable source to its scope. */
  manageTool(): SkillManageTool | null;
  /** Runs `skill_manage` with this conversation's knowledge of SKILL.md versions; same contract as `decideCall`. */
  decideManage(args: unknown, options: CallOptions): Promise<{ invocation: SkillManageInvocation; record: CallRecord }>;
  /** The commit record a compaction would write now, and what `commit()` returns. */
  planCommit(checkpoint: number): { record: SessionRecord; plan: CompactionPlan };
  /** The catalog of the live registry now (not pinned). */
  currentCatalog(): string;
  loaded(): string[];
  available(): SkillInfo[];
  narrowsSurfaceTo(): string[] | null;
  gate(toolName: string): GateDecision;
  preApprovedTools(): string[];
  envGrants(): string[];
  envFor(keys: readonly string[]): Record<string, string>;
  carriedState(): { carried: string | null; reminder: string | null; epoch: number };
  stats(): SkillStats[];
}

export function openConversation(host: SessionHost, settings: Settings): Conversation {
  const state = emptyState();
  // No list of records: statistics are counted as records arrive, and the history is the log's
  // (SESSION.md), so a long conversation's envelopes are not all kept in memory.
  const counter = new StatsCounter();
  let nextSeq = 0;
  let nextCheckpoint = 0;
  // (name, content) pairs whose activation is in flight: a concurrent second call is a repeat.
  // Rarely more than one, so a list: a set keyed on the pair cost every activation a JSON
  // encoding of the whole body.
  const inFlight: Array<{ name: string; content: string }> = [];

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
  // Policy, not the explicit `skills` narrowing, decides what a write may see and shadow: a
  // narrowed run must still not create a name that shadows a skill it was only told to leave alone.
  const manage = createSkillManageTool({
    resolveRegistry: (scope) => host.resolveRegistry(scope),
    writableSources: (scope) => host.writableSources?.(scope) ?? [],
    refreshSkills: () => host.refresh(),
    refreshSource: (index) => (host.refreshSource ? host.refreshSource(index) : host.refresh()),
  });
  const manageOffered = (): boolean => {
    const writable = host.writableSources?.(settings.scope) ?? [];
    return writable.length > 0 && manageToolOffered(host.resolveRegistry(settings.scope), writable);
  };

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

  return {
    settings,
    state,
    inner,
    apply(record) {
      counter.add(record);
      applyRecord(state, record);
      if (record.type === "call") nextSeq = Math.max(nextSeq, record.seq + 1);
      if (record.type === "checkpoint") nextCheckpoint = Math.max(nextCheckpoint, record.checkpoint + 1);
    },
    nextCallSeq: () => nextSeq,
    takeCheckpoint: () => nextCheckpoint++,
    header(extra = {}) {
      return {
        type: "session",
        v: 1,
        time: now(),
        id: settings.id,
        ...settings.scope,
        compaction: settings.compaction,
        carryBudgetBytes: settings.carryBudgetBytes,
        // Written only when not the default, so a log of a session that dedups reads as before.
        ...(settings.dedup !== "epoch" ? { dedup: settings.dedup } : {}),
        ...(extra.registryDigest !== undefined ? { registryDigest: extra.registryDigest } : {}),
        ...(extra.client !== undefined ? { client: extra.client } : {}),
      };
    },
    async decideCall(args, options) {
      const reserved: Array<{ name: string; content: string; facts: ActivationFacts }> = [];
      // A person asking, or a host with no dedup, always gets the content; the activation is still
      // recorded as active (compaction, grants and narrowing follow it as ever).
      const dedups = settings.dedup === "epoch" && options.userInvoked !== true;
      const activateSkill = (name: string, content: string, skill?: RegisteredSkill): boolean => {
        if (dedups && (isAlreadyActive(state, name, content) || inFlight.some((entry) => entry.name === name && entry.content === content))) return false;
        // The session's own tool always passes the record; the lookup is only for a caller that does not.
        const entry = { name, content, facts: factsOf(skill ?? scoped().get(name)) };
        inFlight.push(entry);
        reserved.push(entry);
        return true;
      };
      let invocation: SkillToolInvocation;
      try {
        invocation = await inner.invoke(args, { ...settings.scope, activateSkill, ...(options.userInvoked ? { userInvoked: true } : {}) });
      } finally {
        for (const entry of reserved) inFlight.splice(inFlight.indexOf(entry), 1);
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
        ...(invocation.skillFile ? { skillFile: invocation.skillFile } : {}),
      };
      return { invocation, record };
    },
    manageTool: () => (manageOffered() ? manage : null),
    async decideManage(args, options) {
      const invocation = await manage.invoke(args, { ...settings.scope, knownSkillFile: (name) => state.skillFiles.get(name) });
      const record: CallRecord = {
        type: "call",
        time: now(),
        seq: nextSeq,
        toolCallId: options.toolCallId ?? null,
        tool: "skill_manage",
        args: loggableArguments(args),
        envelope: invocation.envelope,
        ...(invocation.skillFile ? { skillFile: invocation.skillFile } : {}),
      };
      return { invocation, record };
    },
    planCommit(checkpoint) {
      const plan = planCompaction(state, settings.compaction, settings.carryBudgetBytes);
      return { record: { type: "checkpoint", time: now(), checkpoint, phase: "commit", result: plan.result, kept: plan.kept }, plan };
    },
    currentCatalog,
    loaded: () => [...state.loaded.keys()],
    available() {
      const registry = scoped();
      return registry.toolAvailable ? registry.list() : [];
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
    stats: () => counter.snapshot(),
  };
}
