/**
 * A session whose records live in a shared `SessionStore`, so any process can continue it
 * (SPEC §9). Before each operation it catches up with the records other processes appended
 * (reading from its last sequence), decides against that state, and appends at the sequence it
 * expects; a conflict folds in the records that won and decides again, so a repeat activation
 * another process already answered `loaded` becomes `already_active`. State changes only by
 * applying records that the store accepted, through the same fold as every other session.
 *
 * Operations on one session run one at a time in a process: a second call waits for the first,
 * instead of racing it to the store and losing.
 */
import { createHash } from "node:crypto";
import type { SkillInfo } from "../access/types.js";
import type { Diagnostic } from "../package/diagnostic.js";
import type { Envelope } from "../tool/envelope.js";
import type { SkillTool, SkillToolContext, SkillToolInvocation } from "../tool/types.js";
import {
  lastHeader,
  now,
  openConversation,
  settingsOf,
  type CallOptions,
  type Conversation,
  type ConversationOptions,
  type SessionHost,
} from "./conversation.js";
import { loggableArguments } from "./logged-arguments.js";
import type { GateDecision } from "./narrowing.js";
import type { CommitResult, EndRecord, SessionHeaderRecord, SessionRecord } from "./records.js";
import type { SkillStats } from "./stats.js";
import { scopePrincipal, SessionGoneError, StoreCancelledError, type AppendOptions, type SessionKey, type SessionStore } from "./store.js";

/** What an idempotency key stores for a call: which request it answered, and the answer. */
interface StoredAnswer {
  request: string;
  invocation: SkillToolInvocation;
}

function requestFingerprint(args: unknown, userInvoked: boolean): string {
  // The logged form: JSON whatever the caller passed (a library host may pass anything).
  return createHash("sha256").update(JSON.stringify([loggableArguments(args) ?? null, userInvoked])).digest("base64url").slice(0, 22);
}

/** Appends tried for one decision before giving up: each retry means another process wrote meanwhile. */
export const MAX_APPEND_ATTEMPTS = 32;

export interface StoredSessionOptions extends ConversationOptions {
  /** Whose session; default: the principal of its scope (`scopePrincipal`). */
  principal?: string;
  /** What the client declared at the start (MCP `initialize`), kept in the header. */
  client?: SessionHeaderRecord["client"];
}

export interface StoredCallOptions extends CallOptions {
  /** `<session id>:<request id>`: a retry with the same key gets the first answer, and nothing is done twice. */
  idempotencyKey?: string;
  /**
   * The caller has just caught up (`catchUp(idempotencyKey)`) and no answer was stored: the
   * call skips its own read. Records appended since then are met as a conflict, and a racing
   * retry as a duplicate, so nothing is decided against stale state either way.
   */
  caughtUp?: boolean;
  /** Abandons the call when it aborts before its record is committed (a client's `notifications/cancelled`): nothing is stored. */
  signal?: AbortSignal;
  /** Note the session as used with the call's own write (the store's `touch`, at no extra statement). */
  touch?: boolean;
}

export interface StoredCheckpoint {
  commit(): Promise<CommitResult>;
  abort(): Promise<void>;
}

export { SessionGoneError } from "./store.js";

export interface StoredSession {
  readonly id: string;
  readonly key: SessionKey;
  /** The header the session was started with. */
  readonly header: SessionHeaderRecord;
  /** The `skill` tool bound to this session: its calls go through `invoke`. */
  readonly tool: SkillTool;
  /** Folds in records other processes appended since; returns the answer stored under `idempotencyKey`, if any. */
  catchUp(idempotencyKey?: string): Promise<{ answer?: unknown }>;
  invoke(args: unknown, options?: StoredCallOptions): Promise<SkillToolInvocation>;
  call(args: unknown, options?: StoredCallOptions): Promise<Envelope>;
  clear(): Promise<void>;
  beginCompaction(): Promise<StoredCheckpoint>;
  /** Ends the conversation for every process (durable); false when it had already ended. */
  end(reason: EndRecord["reason"]): Promise<boolean>;
  ended(): boolean;
  /** The pinned catalog, pinning the live one first when none is (a new prompt epoch). */
  catalogText(): Promise<string>;
  /** The pinned catalog as last read; null when none is pinned. */
  pinnedCatalog(): string | null;
  currentCatalogText(): string;
  loaded(): string[];
  available(): SkillInfo[];
  narrowsSurfaceTo(): string[] | null;
  gate(toolName: string): GateDecision;
  preApprovedTools(): string[];
  envGrants(): string[];
  envFor(keys: readonly string[]): Record<string, string>;
  carriedState(): { carried: string | null; reminder: string | null; epoch: number };
  stats(): SkillStats[];
  /** Every record of the conversation, read from the store. */
  history(): Promise<SessionRecord[]>;
  /** The sequence the next append names. */
  nextSeq(): number;
  diagnostics(): Diagnostic[];
}

function keyOf(options: StoredSessionOptions, id: string): SessionKey {
  const scope = { agentId: options.agentId, projectId: options.projectId };
  return { principal: options.principal ?? scopePrincipal(scope), sessionId: id };
}

/**
 * Starts a new conversation in the store: its header, with the registry digest and what the
 * client declared, and its pinned catalog, written durably before this returns, so a client told
 * the session exists finds it on any process.
 */
export async function createStoredSession(host: SessionHost, store: SessionStore, options: StoredSessionOptions = {}): Promise<StoredSession> {
  const settings = settingsOf(options, undefined);
  const conversation = openConversation(host, settings);
  const key = keyOf(options, settings.id);
  const registryDigest = host.registryDigest ? await host.registryDigest() : undefined;
  const header = conversation.header({
    ...(registryDigest !== undefined ? { registryDigest } : {}),
    ...(options.client !== undefined ? { client: options.client } : {}),
  });
  const catalog: SessionRecord = { type: "catalog", time: now(), text: conversation.currentCatalog() };
  const result = await store.appendAt(key, 0, [header, catalog], { durable: true });
  if (result.status !== "ok") throw new Error(`Session ${settings.id} already exists in the store`);
  conversation.apply(header);
  conversation.apply(catalog);
  return storedSession(store, key, conversation, header, result.nextSeq, []);
}

/**
 * Opens a conversation another process (or this one, earlier) started. Options left unset come
 * from its header; another scope than the header's is refused, as a restore from a log is.
 * Throws `SessionGoneError` when the store has no such session or it has ended.
 */
export async function openStoredSession(host: SessionHost, store: SessionStore, id: string, options: StoredSessionOptions = {}): Promise<StoredSession> {
  const key = keyOf(options, id);
  const read = await store.read(key);
  const records = read.records.map((stored) => stored.record);
  const header = lastHeader(records);
  if (!header) throw new SessionGoneError(id, "missing");
  for (const field of ["agentId", "projectId"] as const) {
    if (options[field] !== undefined && options[field] !== header[field]) {
      throw new Error(`Cannot open session ${JSON.stringify(id)} with ${field} ${JSON.stringify(options[field])}: it was held under ${header[field] === undefined ? "none" : JSON.stringify(header[field])}`);
    }
  }
  const conversation = openConversation(host, settingsOf({ ...options, id }, header));
  for (const record of records) conversation.apply(record);
  if (conversation.state.ended) throw new SessionGoneError(id, "ended");
  return storedSession(store, key, conversation, header, read.nextSeq, read.diagnostics);
}

function storedSession(
  store: SessionStore,
  key: SessionKey,
  conversation: Conversation,
  header: SessionHeaderRecord,
  startSeq: number,
  initialDiagnostics: readonly Diagnostic[],
): StoredSession {
  const { settings, state } = conversation;
  let nextSeq = startSeq;
  let openCheckpoint: number | null = null;
  const diagnostics: Diagnostic[] = [...initialDiagnostics];
  let queue: Promise<unknown> = Promise.resolve();

  /** Runs `work` after every earlier operation on this session has finished. */
  function serially<T>(work: () => Promise<T>): Promise<T> {
    const run = queue.then(work, work);
    queue = run.catch(() => {});
    return run;
  }

  function absorb(records: ReadonlyArray<{ record: SessionRecord }>, next: number, problems: readonly Diagnostic[]): void {
    for (const { record } of records) {
      // A checkpoint another process opened or closed is its own; this process's open one stays its own.
      conversation.apply(record);
    }
    nextSeq = next;
    diagnostics.push(...problems);
  }

  async function catchUpNow(idempotencyKey?: string): Promise<{ answer?: unknown }> {
    const read = await store.read(key, nextSeq, idempotencyKey !== undefined ? { idempotencyKey } : {});
    absorb(read.records, read.nextSeq, read.diagnostics);
    return "answer" in read ? { answer: read.answer } : {};
  }

  /**
   * Appends what `decide` returns at the expected sequence, deciding again after each conflict.
   * Returns what the decision produced; with an idempotency key, a duplicate's stored answer
   * when `accept` takes it.
   */
  async function persist<T>(
    decide: () => Promise<{ records: SessionRecord[]; value: T; answer?: unknown }>,
    options: AppendOptions = {},
    accept: (answer: unknown) => T | undefined = () => undefined,
  ): Promise<T> {
    let appendOptions = options;
    for (let attempt = 0; attempt < MAX_APPEND_ATTEMPTS; attempt += 1) {
      if (state.ended) throw new SessionGoneError(settings.id, "ended");
      const { records, value, answer } = await decide();
      if (records.length === 0) return value;
      const result = await store.appendAt(key, nextSeq, records, { ...appendOptions, ...(appendOptions.idempotencyKey !== undefined ? { answer } : {}) });
      if (result.status === "ok") {
        for (const record of records) conversation.apply(record);
        nextSeq = result.nextSeq;
        return value;
      }
      if (result.status === "duplicate") {
        await catchUpNow();
        const accepted = accept(result.answer);
        if (accepted !== undefined) return accepted;
        // The key answered another request: act on this one, unkeyed.
        const { idempotencyKey: _unused, ...rest } = appendOptions;
        appendOptions = rest;
        continue;
      }
      absorb(result.records, result.nextSeq, result.diagnostics);
    }
    throw new Error(`Session ${settings.id}: gave up after ${MAX_APPEND_ATTEMPTS} appends lost to other writers`);
  }

  async function invoke(args: unknown, options: StoredCallOptions = {}): Promise<SkillToolInvocation> {
    return serially(async () => {
      const { idempotencyKey, caughtUp, signal, touch, ...callOptions } = options;
      if (signal?.aborted) throw new StoreCancelledError();
      // A retry carries the same request; a client that reuses a request id for another request
      // (a restarted client counting from 0 again) must not be handed the old answer.
      const request = requestFingerprint(args, callOptions.userInvoked === true);
      const accept = (stored: unknown): SkillToolInvocation | undefined => {
        const answer = stored as Partial<StoredAnswer> | null;
        return answer?.request === request && answer.invocation !== undefined ? answer.invocation : undefined;
      };
      const caught = caughtUp ? {} : await catchUpNow(idempotencyKey);
      const answered = "answer" in caught ? accept(caught.answer) : undefined;
      if (answered !== undefined) return answered;
      const keyed = idempotencyKey !== undefined && !("answer" in caught);
      return persist(
        async () => {
          const { invocation, record } = await conversation.decideCall(args, callOptions);
          return { records: [record], value: invocation, answer: { request, invocation } satisfies StoredAnswer };
        },
        { ...(keyed ? { idempotencyKey } : {}), ...(signal ? { signal } : {}), ...(touch ? { touch } : {}) },
        accept,
      );
    });
  }

  function append(record: SessionRecord, durable: boolean): Promise<void> {
    return persist(async () => ({ records: [record], value: undefined }), { durable });
  }

  const toolCallIdOf = (ctx: SkillToolContext | undefined): StoredCallOptions => {
    const id = (ctx as { toolCallId?: unknown } | undefined)?.toolCallId;
    return typeof id === "string" ? { toolCallId: id } : {};
  };
  const tool: SkillTool = {
    name: "skill",
    description: conversation.inner.description,
    inputSchema: conversation.inner.inputSchema,
    readOnly: true,
    call: async (args, ctx) => (await invoke(args, toolCallIdOf(ctx))).envelope,
    invoke: (args, ctx) => invoke(args, toolCallIdOf(ctx)),
  };

  return {
    id: settings.id,
    key,
    header,
    tool,
    catchUp: (idempotencyKey) => serially(() => catchUpNow(idempotencyKey)),
    invoke,
    call: async (args, options) => (await invoke(args, options)).envelope,
    clear: () =>
      serially(async () => {
        await catchUpNow();
        openCheckpoint = null;
        await append({ type: "clear", time: now() }, true);
      }),
    beginCompaction: () =>
      serially(async () => {
        await catchUpNow();
        if (openCheckpoint !== null) await append({ type: "checkpoint", time: now(), checkpoint: openCheckpoint, phase: "abort" }, true);
        const id = conversation.takeCheckpoint();
        openCheckpoint = id;
        await append({ type: "checkpoint", time: now(), checkpoint: id, phase: "begin" }, true);
        return {
          commit: () =>
            serially(async () => {
              if (openCheckpoint !== id) throw new Error(`Compaction checkpoint ${id} is no longer open: it was committed, aborted or superseded`);
              await catchUpNow();
              openCheckpoint = null;
              // Planned against the state the store accepted, again after any conflict.
              return persist(async () => {
                const { record, plan } = conversation.planCommit(id);
                return { records: [record], value: plan.result };
              }, { durable: true });
            }),
          abort: () =>
            serially(async () => {
              if (openCheckpoint !== id) return;
              openCheckpoint = null;
              await catchUpNow();
              await append({ type: "checkpoint", time: now(), checkpoint: id, phase: "abort" }, true);
            }),
        };
      }),
    end: (reason) =>
      serially(async () => {
        await catchUpNow();
        if (state.ended) return false;
        try {
          await append({ type: "end", time: now(), reason }, true);
          return true;
        } catch (error) {
          // Another process ended it between our read and our append.
          if (error instanceof SessionGoneError) return false;
          throw error;
        }
      }),
    ended: () => state.ended,
    catalogText: () =>
      serially(async () => {
        if (state.catalog === null) await catchUpNow();
        if (state.catalog === null) {
          await persist(async () => ({
            // Another process may have pinned one meanwhile (a conflict brought it in): then nothing is written.
            records: state.catalog === null ? [{ type: "catalog", time: now(), text: conversation.currentCatalog() }] : [],
            value: undefined,
          }));
        }
        return state.catalog ?? "";
      }),
    pinnedCatalog: () => state.catalog,
    currentCatalogText: () => conversation.currentCatalog(),
    loaded: () => conversation.loaded(),
    available: () => conversation.available(),
    narrowsSurfaceTo: () => conversation.narrowsSurfaceTo(),
    gate: (toolName) => conversation.gate(toolName),
    preApprovedTools: () => conversation.preApprovedTools(),
    envGrants: () => conversation.envGrants(),
    envFor: (keys) => conversation.envFor(keys),
    carriedState: () => conversation.carriedState(),
    stats: () => conversation.stats(),
    async history() {
      const read = await store.read(key);
      return read.records.map((stored) => stored.record);
    },
    nextSeq: () => nextSeq,
    diagnostics: () => [...diagnostics],
  };
}
