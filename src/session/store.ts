/**
 * Where conversations live when more than one process may continue them (SPEC §9): a
 * `SessionStore` holds each session's records, keyed by (principal, session id, sequence).
 *
 * Writers never overwrite: they append at the sequence they expect to be next, and a store that
 * already holds that sequence answers `conflict` with the records written meanwhile, so the
 * writer folds them in and decides again (a repeat activation another process already answered
 * `loaded` becomes `already_active`). An append may carry an idempotency key and the answer it
 * produced; the same key again is answered `duplicate` with the stored answer, so a request a
 * load balancer retries is acted on once. Records marked durable (checkpoints, clear, end) reach
 * stable storage before the append returns.
 *
 * Three implementations: memory (`memoryStore`, here), JSONL files (`store-file.ts`, today's
 * log files) and PostgreSQL (`store-postgres.ts`). The same contract tests run against each.
 */
import { EventEmitter } from "node:events";
import type { Diagnostic } from "../package/diagnostic.js";
import type { SessionRecord } from "./records.js";

/** Whose conversation: the principal scopes session ids, so one principal never reads another's. */
export interface SessionKey {
  principal: string;
  sessionId: string;
}

export interface StoredRecord {
  /** Position in the session's record stream, from 0, without gaps. */
  seq: number;
  record: SessionRecord;
}

export interface StoreReadOptions {
  /** Also look up the answer stored under this idempotency key. */
  idempotencyKey?: string;
}

export interface StoreRead {
  /** Records at `fromSeq` and after, in order. Foreign rows hold their sequence but are left out (see `diagnostics`). */
  records: StoredRecord[];
  /** The sequence the next append must name. */
  nextSeq: number;
  /** The answer stored under the idempotency key asked for, when there is one. */
  answer?: unknown;
  diagnostics: Diagnostic[];
}

export interface AppendOptions {
  /** `<session id>:<request id>`: the same key again is answered with `answer` instead of appending. */
  idempotencyKey?: string;
  /** JSON value stored with the key: what the first request was answered. */
  answer?: unknown;
  /** Reach stable storage before returning (fsync, synchronous commit). */
  durable?: boolean;
  /** Also note the session as used now (as `touch` does), in the same write. */
  touch?: boolean;
  /**
   * The caller gave up (the client cancelled the request): an append not yet committed is
   * abandoned, and nothing is written. Aborted before it starts, nothing is sent at all.
   */
  signal?: AbortSignal;
}

export type AppendResult =
  | { status: "ok"; nextSeq: number }
  /** Another writer appended first: these are its records from the expected sequence on. */
  | { status: "conflict"; records: StoredRecord[]; nextSeq: number; diagnostics: Diagnostic[] }
  /** The idempotency key was used before: this is the answer stored with it. */
  | { status: "duplicate"; answer: unknown };

/** A message for every process sharing the store (PostgreSQL: NOTIFY). Serialized under 8,000 bytes. */
export type StoreMessage = Record<string, unknown>;

export interface StoreSubscription {
  close(): Promise<void>;
}

/** What `prune` deleted. */
export interface PruneResult {
  /** Conversations deleted (ended, or with no request and no write for the age asked). */
  sessions: number;
  /** Replica heartbeat streams deleted (past hours nothing reads any more). */
  heartbeats: number;
}

export interface SessionStore {
  readonly kind: "memory" | "file" | "postgres";
  /**
   * Answers when the store can serve a request now; throws `StoreUnavailableError` when it cannot
   * within `timeoutMs`. Stores in this process are always ready and leave it out.
   */
  ping?(timeoutMs: number): Promise<void>;
  /**
   * Deletes conversations whose last write and last request are both older than `olderThanMs`
   * (ended ones and ones nobody continued), with their stored answers and activity, and replica
   * heartbeats no reader looks at any more. Only a store shared across processes keeps enough to
   * need it.
   */
  prune?(olderThanMs: number): Promise<PruneResult>;
  read(key: SessionKey, fromSeq?: number, options?: StoreReadOptions): Promise<StoreRead>;
  /** Appends `records` at `expectedSeq`, `expectedSeq + 1`, …, or none of them. */
  appendAt(key: SessionKey, expectedSeq: number, records: readonly SessionRecord[], options?: AppendOptions): Promise<AppendResult>;
  /** Notes that the session was used now (idle expiry counts from the last touch). */
  touch(key: SessionKey): Promise<void>;
  /**
   * Sessions untouched for `idleMs`, each handed to exactly one caller however many processes
   * ask at once; the caller ends them. A claimed session is no longer tracked until touched again.
   */
  claimIdle(idleMs: number, limit: number): Promise<SessionKey[]>;
  /** Stops tracking a session's activity (it ended). */
  forget(key: SessionKey): Promise<void>;
  /** Sends `message` to every subscriber of every process sharing the store, this one included. */
  publish(message: StoreMessage): Promise<void>;
  /**
   * Calls `listener` with each published message. `onReconnect` is called when delivery resumes
   * after a lost connection: messages may have been missed meanwhile.
   */
  subscribe(listener: (message: StoreMessage) => void, onReconnect?: () => void): Promise<StoreSubscription>;
  close(): Promise<void>;
}

/**
 * The store could not answer in time, or could not be reached. Its message is safe to show a
 * client (it names no host, statement or driver); what the driver said is the `cause`, for the
 * server's log. A write that met this may or may not have been committed only when the failure
 * came after the statement was sent; a store with deadlines inside the statement (PostgreSQL)
 * refuses the write itself once its deadline has passed.
 */
export class StoreUnavailableError extends Error {
  readonly code = "store_unavailable";

  constructor(
    readonly reason: "timeout" | "unreachable",
    options: { cause?: unknown } = {},
  ) {
    super(reason === "timeout" ? "The session store did not answer in time" : "The session store cannot be reached", options);
    this.name = "StoreUnavailableError";
  }
}

/** The caller's signal aborted the operation (a cancelled request) before the store committed it. */
export class StoreCancelledError extends Error {
  readonly code = "cancelled";

  constructor() {
    super("The request was cancelled before it was stored");
    this.name = "StoreCancelledError";
  }
}

/**
 * The session was ended (DELETE, idle expiry) or never existed in the store. Beside the store's
 * other errors rather than in `stored-session.ts`, so the HTTP server can recognise it without
 * loading the stored session's code into a server that keeps sessions in its own process.
 */
export class SessionGoneError extends Error {
  readonly code = "session_gone";

  constructor(id: string, why: "ended" | "missing") {
    super(why === "ended" ? `Session ${id} has ended` : `Session ${id} is not in the store`);
    this.name = "SessionGoneError";
  }
}

/** How long a shared store's statement may take before its caller is told the store is unavailable (SPEC §9). */
export const DEFAULT_STORE_TIMEOUT_MS = 5000;

/** PostgreSQL's NOTIFY payload limit is 8,000 bytes; every store keeps to it so none differs. */
export const MAX_MESSAGE_BYTES = 7999;

/** The serialized message, or a RangeError when it would not fit a NOTIFY payload. */
export function serializeMessage(message: StoreMessage): string {
  const text = JSON.stringify(message);
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_MESSAGE_BYTES) throw new RangeError(`a store message is at most ${MAX_MESSAGE_BYTES} bytes; this one is ${bytes}`);
  return text;
}

/**
 * The principal of a scope: conversations are kept apart per (agent, project), the scope their
 * state was decided under (a restore under another scope is refused for the same reason).
 */
export function scopePrincipal(scope: { agentId?: string | undefined; projectId?: string | undefined }): string {
  const parts: string[] = [];
  if (scope.agentId !== undefined) parts.push(`agent:${encodeURIComponent(scope.agentId)}`);
  if (scope.projectId !== undefined) parts.push(`project:${encodeURIComponent(scope.projectId)}`);
  return parts.join(",");
}

export function keyText(key: SessionKey): string {
  return JSON.stringify([key.principal, key.sessionId]);
}

export function checkAppend(expectedSeq: number, records: readonly SessionRecord[]): void {
  if (!Number.isSafeInteger(expectedSeq) || expectedSeq < 0) throw new RangeError(`expectedSeq must be a non-negative whole number, not ${expectedSeq}`);
  if (records.length === 0) throw new RangeError("an append needs at least one record");
}

/** Activity times and the pub/sub of one process: what the memory and file stores share. */
export class LocalCoordination {
  private readonly lastActive = new Map<string, { key: SessionKey; at: number }>();
  private readonly events = new EventEmitter();

  constructor() {
    this.events.setMaxListeners(0);
  }

  touch(key: SessionKey): void {
    this.lastActive.set(keyText(key), { key, at: Date.now() });
  }

  claimIdle(idleMs: number, limit: number): SessionKey[] {
    const cutoff = Date.now() - idleMs;
    const claimed: SessionKey[] = [];
    for (const [text, entry] of this.lastActive) {
      if (claimed.length >= limit) break;
      if (entry.at > cutoff) continue;
      this.lastActive.delete(text);
      claimed.push(entry.key);
    }
    return claimed;
  }

  forget(key: SessionKey): void {
    this.lastActive.delete(keyText(key));
  }

  publish(message: StoreMessage): void {
    // Serialized and parsed like a NOTIFY payload: every subscriber gets its own copy, within the same limit.
    const text = serializeMessage(message);
    queueMicrotask(() => this.events.emit("message", text));
  }

  subscribe(listener: (message: StoreMessage) => void): StoreSubscription {
    const handler = (text: string): void => listener(JSON.parse(text) as StoreMessage);
    this.events.on("message", handler);
    return {
      close: async () => {
        this.events.off("message", handler);
      },
    };
  }
}

interface MemorySession {
  /** Records as JSON text: a record read back is a copy no caller can change under the store. */
  records: string[];
  answers: Map<string, string>;
}

/** Sessions in this process's memory: the library's default when a host wants a store but no server. */
export function memoryStore(): SessionStore {
  const sessions = new Map<string, MemorySession>();
  const local = new LocalCoordination();
  let closed = false;
  const open = (): void => {
    if (closed) throw new Error("the session store is closed");
  };

  function recordsFrom(session: MemorySession | undefined, fromSeq: number): StoredRecord[] {
    if (!session) return [];
    return session.records.slice(fromSeq).map((text, index) => ({ seq: fromSeq + index, record: JSON.parse(text) as SessionRecord }));
  }

  return {
    kind: "memory",
    async read(key, fromSeq = 0, options = {}) {
      open();
      const session = sessions.get(keyText(key));
      const answer = options.idempotencyKey === undefined ? undefined : session?.answers.get(options.idempotencyKey);
      return {
        records: recordsFrom(session, fromSeq),
        nextSeq: Math.max(session?.records.length ?? 0, fromSeq),
        ...(answer !== undefined ? { answer: JSON.parse(answer) as unknown } : {}),
        diagnostics: [],
      };
    },
    async appendAt(key, expectedSeq, records, options = {}) {
      open();
      checkAppend(expectedSeq, records);
      if (options.signal?.aborted) throw new StoreCancelledError();
      const text = keyText(key);
      let session = sessions.get(text);
      const stored = options.idempotencyKey === undefined ? undefined : session?.answers.get(options.idempotencyKey);
      if (stored !== undefined) return { status: "duplicate", answer: JSON.parse(stored) as unknown };
      const next = session?.records.length ?? 0;
      if (expectedSeq !== next) {
        if (expectedSeq > next) throw new RangeError(`append at ${expectedSeq} would leave a gap: the session's next sequence is ${next}`);
        return { status: "conflict", records: recordsFrom(session, expectedSeq), nextSeq: next, diagnostics: [] };
      }
      if (!session) sessions.set(text, (session = { records: [], answers: new Map() }));
      for (const record of records) session.records.push(JSON.stringify(record));
      if (options.idempotencyKey !== undefined) session.answers.set(options.idempotencyKey, JSON.stringify(options.answer ?? null));
      if (options.touch) local.touch(key);
      return { status: "ok", nextSeq: session.records.length };
    },
    async touch(key) {
      open();
      local.touch(key);
    },
    async claimIdle(idleMs, limit) {
      open();
      return local.claimIdle(idleMs, limit);
    },
    async forget(key) {
      local.forget(key);
    },
    async publish(message) {
      open();
      local.publish(message);
    },
    async subscribe(listener) {
      open();
      return local.subscribe(listener);
    },
    async close() {
      closed = true;
    },
  };
}
