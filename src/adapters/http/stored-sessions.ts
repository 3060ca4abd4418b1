/**
 * Sessions kept in a store (`skillport mcp --http PORT --store URL`): any replica serves any
 * session (SPEC §9). Nothing about a conversation lives only in one process:
 *
 * - skillport mints `Mcp-Session-Id` and writes the session's header (with its pinned catalog,
 *   durably) to the store before answering `initialize`;
 * - each request gets its own SDK transport (stateless mode, JSON responses) and MCP server,
 *   built from the stored session after catching up with what other replicas appended;
 * - a `tools/call` (or `prompts/get`) appends under the idempotency key `<session id>:<JSON-RPC
 *   id>`, so a request a load balancer retries on another replica gets the stored answer;
 * - `tools/list` answers from the session's pinned catalog, so replicas agree;
 * - `DELETE` writes a durable end record; idle sessions are claimed through the store, so exactly
 *   one replica ends each;
 * - `GET` opens an SSE stream this replica holds; change notifications (and the end of a
 *   session) are published through the store (PostgreSQL NOTIFY) and every replica writes them to
 *   its own streams. After the store's listening connection is re-established, every stream gets
 *   `list_changed` (a change may have been missed); so does a stream a client resumes with
 *   `Last-Event-ID` (it was cut from a replica that may have died holding news for it).
 *
 * Each replica keeps recently used sessions in memory (`maxSessions`, least recently used out),
 * as a cache only: one evicted is read back from the store on its next request.
 *
 * Operating it (SPEC §9): a request the store cannot serve in time is answered 503 with
 * `Retry-After` (`store-unavailable.ts`), on the direct path and through the SDK's transport
 * alike; a `tools/call` cancelled by `notifications/cancelled` (sent to this replica or, through
 * the store, to another) or by its client going away before it commits is not stored; a session
 * pinned to another registry digest is answered 409, naming both; ended and idle sessions are
 * deleted after `sessionTtlMs`. What every request meets first (Host and Origin, probes, drain,
 * the stateless wire, the body limit) is the one HTTP server's, `front.ts`.
 */
import { randomUUID } from "node:crypto";
import type http from "node:http";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Scope, ScopedRegistry } from "../../access/types.js";
import type { Session, SessionOptions } from "../../session/session.js";
import { SessionGoneError, type StoredSession, type StoredSessionOptions } from "../../session/stored-session.js";
import { StoreUnavailableError, type SessionStore, type StoreMessage, type StoreSubscription } from "../../session/store.js";
import { createMcpConnection, type McpServerOptions, type McpSessionFactory } from "../mcp.js";
import { mcpSessionOptions } from "../mcp-dedup.js";
import { readJsonBody, refuseBody, sendError } from "./body.js";
import { DEFAULT_MCP_HTTP_IDLE_TIMEOUT_MS, DEFAULT_SESSION_TTL_MS } from "./defaults.js";
import { answerDirectToolCall, directToolCall } from "./direct-call.js";
import { checkListen, serveHttpFront, type HttpFrontListen, type SessionBackend } from "./front.js";
import { answerStoreUnavailable, causeText } from "./store-unavailable.js";

export { MCP_HTTP_PATH } from "./front.js";
const MAX_SWEEP_INTERVAL_MS = 60_000;
/** Idle sessions one sweep ends at most; the next sweep takes the rest. */
const SWEEP_BATCH = 100;
/** How long a client waits before resuming a cut SSE stream (the SSE `retry` field). */
const SSE_RETRY_MS = 1000;
/** A comment on every open stream this often, so proxies do not take a quiet stream for a dead one. */
const SSE_KEEPALIVE_MS = 15_000;
/** `/readyz` fails when the store takes longer than this to answer (SPEC §9). */
const READINESS_STORE_DEADLINE_MS = 1000;
/** Prunes run at most this far apart, so a long TTL does not leave a day's churn in the tables. */
const MAX_PRUNE_INTERVAL_MS = 10 * 60_000;
/** ...and at least this far apart, so a short TTL (a test's) does not turn pruning into a loop. */
const MIN_PRUNE_INTERVAL_MS = 1000;
/** How long a cancellation waits for a call it overtook, and how many such are kept at most. */
const CANCELLED_KEPT_MS = 60_000;
const MAX_CANCELLED_KEPT = 10_000;
/** JSON-RPC code for a session pinned to skills this replica does not serve. */
export const REGISTRY_DIGEST_MISMATCH_CODE = -32004;

/** What a server on a store needs of the runtime: stored sessions, and what a scope may see. */
export interface McpStoreRuntime {
  readonly store: SessionStore | null;
  createStoredSession(options: StoredSessionOptions): Promise<StoredSession>;
  openStoredSession(id: string, options: StoredSessionOptions): Promise<StoredSession>;
  /** For the stateless 2026-07-28 wire, which keeps no conversation. */
  session(options: SessionOptions): Session;
  registry(scope: Scope): Pick<ScopedRegistry, "toolAvailable" | "all" | "availability">;
}

export interface McpHttpReplicatedListen extends HttpFrontListen {
  /** Sessions with no request for this long are ended, by whichever replica claims them first; 0 = never. */
  idleTimeoutMs?: number;
  /**
   * Answer a session whose header names another registry digest than this replica's with 409
   * (naming both) instead of serving it other skills. Default true. A server whose skills change
   * under it by design (`--watch`) turns it off: its sessions follow the live registry.
   */
  rejectOtherRegistryDigest?: boolean;
  /** Delete sessions ended, or with no request and no write, for this long (the store's `prune`); 0 = never. Default 24 hours. */
  sessionTtlMs?: number;
}

export interface McpHttpReplicatedServing {
  readonly url: string;
  readonly port: number;
  /** This replica's id in the messages it publishes. */
  readonly replicaId: string;
  /** Tells every replica's open streams that the skills changed. */
  notifyToolsChanged(): Promise<void>;
  /**
   * Stops taking work and finishes what is in flight (SIGTERM): `/readyz` answers 503, new
   * connections and new sessions are refused, event streams are closed (their clients reconnect
   * elsewhere), and requests being answered finish, for up to `timeoutMs`; then `close()`.
   * Resolves true when everything in flight finished in time.
   */
  drain(timeoutMs: number): Promise<boolean>;
  /** Requests being answered now (event streams not counted). */
  inFlight(): number;
  /** Sessions this replica holds in memory. */
  sessionsOpen(): number;
  /** Event streams this replica holds open. */
  streamsOpen(): number;
  /** Stops listening and closes this replica's streams; the sessions stay in the store. */
  close(): Promise<void>;
}

const CHANGE_NOTIFICATIONS: JSONRPCMessage[] = [
  { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
  { jsonrpc: "2.0", method: "notifications/resources/list_changed" },
  { jsonrpc: "2.0", method: "notifications/prompts/list_changed" },
];

interface JsonRpcLike {
  id?: unknown;
  method?: unknown;
}

export async function serveMcpHttpReplicated(
  runtime: McpStoreRuntime,
  options: McpServerOptions,
  listen: McpHttpReplicatedListen,
): Promise<McpHttpReplicatedServing> {
  const store = runtime.store;
  if (!store) throw new TypeError("the replicated HTTP server needs a runtime opened with a store");
  // Bad options fail before the store is subscribed to.
  const { maxSessions } = checkListen(listen);
  const idleTimeoutMs = listen.idleTimeoutMs ?? DEFAULT_MCP_HTTP_IDLE_TIMEOUT_MS;
  // Activity reaches the store at most this often per session and replica, so idle expiry errs
  // late by at most this much, and a busy session costs no write per request.
  const touchEveryMs = idleTimeoutMs > 0 ? Math.min(Math.max(idleTimeoutMs / 10, 50), 5000) : Infinity;
  const replicaId = randomUUID();
  const sessionOptions = mcpSessionOptions(options.session, options.dedup);
  const metrics = listen.metrics ?? null;
  const rejectOtherDigest = listen.rejectOtherRegistryDigest !== false && listen.registryDigest !== undefined;
  const sessionTtlMs = listen.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
  if (!(Number.isFinite(sessionTtlMs) && sessionTtlMs >= 0)) throw new RangeError(`sessionTtlMs must be 0 or more milliseconds, not ${sessionTtlMs}`);
  /** Sessions by id, least recently used first. */
  const cache = new Map<string, { stored: StoredSession; touched: number }>();
  /** Open SSE streams by session id. */
  const streams = new Map<string, Set<http.ServerResponse>>();
  /** Calls being answered here, by idempotency key: what `notifications/cancelled` aborts. */
  const calls = new Map<string, AbortController>();
  /**
   * Cancellations of calls not (yet) being answered here, by key, with when they came: through a
   * balancer a cancellation can overtake the call it cancels, which then must not be acted on.
   */
  const cancelled = new Map<string, number>();
  const noteCancelled = (key: string): void => {
    const now = Date.now();
    for (const [old, at] of cancelled) {
      if (now - at < CANCELLED_KEPT_MS && cancelled.size < MAX_CANCELLED_KEPT) break;
      cancelled.delete(old);
    }
    cancelled.set(key, now);
  };
  let eventCounter = 0;
  const remember = (stored: StoredSession): void => {
    // Read before the entry is moved to the end: the time it last reached the store must survive
    // the move, or every request would find it never touched and write again.
    const touched = cache.get(stored.id)?.touched ?? 0;
    cache.delete(stored.id);
    cache.set(stored.id, { stored, touched });
    while (cache.size > maxSessions) cache.delete(cache.keys().next().value!);
  };

  /** True when the session's activity is due to reach the store (and counts it as done). */
  const touchDue = (id: string): boolean => {
    const entry = cache.get(id);
    if (!entry || Date.now() - entry.touched < touchEveryMs) return false;
    entry.touched = Date.now();
    return true;
  };

  const touch = (id: string): void => {
    const entry = cache.get(id);
    if (!entry || !touchDue(id)) return;
    store.touch(entry.stored.key).catch((error: unknown) => options.log(`mcp http: noting activity of ${id}: ${causeText(error)}`));
  };

  /** The stored session, from this replica's cache or the store; null when it is gone. */
  const sessionFor = async (id: string): Promise<StoredSession | null> => {
    const cached = cache.get(id);
    if (cached) {
      remember(cached.stored);
      return cached.stored;
    }
    try {
      const stored = await runtime.openStoredSession(id, sessionOptions);
      remember(stored);
      return stored;
    } catch (error) {
      if (error instanceof SessionGoneError) return null;
      // An id belonging to another scope is, to this server, no session at all.
      if (/Cannot open session/.test((error as Error).message)) return null;
      throw error;
    }
  };

  /**
   * 409 for a session started on other skills than this replica serves: answering it would give
   * the conversation other instructions (or none) for the skills it was offered. Both digests are
   * named, so the balancer, the client or an operator knows where it belongs.
   */
  const refuseOtherDigest = async (res: http.ServerResponse, stored: StoredSession): Promise<boolean> => {
    const pinned = stored.header.registryDigest;
    if (!rejectOtherDigest || pinned === undefined) return false;
    const serving = await listen.registryDigest!();
    if (serving === pinned) return false;
    metrics?.error("registry_digest_mismatch");
    res.writeHead(409, { "content-type": "application/json", "mcp-session-id": stored.id });
    res.end(
      JSON.stringify({
        jsonrpc: "2.0",
        id: null,
        error: {
          code: REGISTRY_DIGEST_MISMATCH_CODE,
          message: `Registry digest mismatch: this session was started on skills ${pinned}, and this replica serves ${serving}; send it to a replica serving ${pinned}, or start a new session`,
          data: { sessionDigest: pinned, replicaDigest: serving },
        },
      }),
    );
    return true;
  };

  const writeEvent = (res: http.ServerResponse, message: JSONRPCMessage): void => {
    eventCounter += 1;
    res.write(`id: ${replicaId}-${eventCounter}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`);
  };

  const toAllStreams = (messages: readonly JSONRPCMessage[]): void => {
    for (const set of streams.values()) for (const res of set) for (const message of messages) writeEvent(res, message);
  };

  const forgetSession = (id: string): void => {
    cache.delete(id);
    for (const res of streams.get(id) ?? []) res.end();
    streams.delete(id);
  };

  const onMessage = (message: StoreMessage): void => {
    if (message.kind === "list_changed") toAllStreams(CHANGE_NOTIFICATIONS);
    else if (message.kind === "end" && typeof message.sessionId === "string") forgetSession(message.sessionId);
    else if (message.kind === "cancel" && typeof message.key === "string") {
      const call = calls.get(message.key);
      if (call) call.abort();
      else noteCancelled(message.key);
    }
  };
  const subscription: StoreSubscription = await store.subscribe(onMessage, () => {
    options.log("mcp http: store notifications resumed; telling every open stream the lists may have changed");
    toAllStreams(CHANGE_NOTIFICATIONS);
  });

  const announceEnd = async (stored: StoredSession): Promise<void> => {
    forgetSession(stored.id);
    await store.forget(stored.key);
    await store.publish({ kind: "end", from: replicaId, sessionId: stored.id });
  };

  /**
   * `notifications/cancelled`: the call it names is aborted here, or, when this replica is not
   * answering it, on whichever replica is (through the store). A call already stored stays
   * stored: cancelling cannot take back what another request may have seen.
   */
  const cancelCall = (sessionId: string, requestId: unknown): void => {
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    const key = `${sessionId}:${JSON.stringify(requestId)}`;
    const local = calls.get(key);
    if (local) return local.abort();
    noteCancelled(key);
    store.publish({ kind: "cancel", from: replicaId, key }).catch((error: unknown) => options.log(`mcp http: passing on a cancellation: ${causeText(error)}`));
  };

  /** The per-request MCP server over the stored session; `session.invoke` carries this request's idempotency key. */
  const connectionFor = (stored: StoredSession, requestId: unknown, call: RequestCall, failure: StoreFailure) => {
    const facade = requestSession(stored, idempotencyKeyOf(stored, requestId), call, failure);
    const factory: McpSessionFactory = { session: () => facade, registry: (scope) => runtime.registry(scope) };
    return createMcpConnection(factory, options, stored.id, stored.header.client?.capabilities as { extensions?: Record<string, unknown> } | undefined);
  };

  /**
   * Answers one request on its own MCP server over the stored session. A plain `tools/call` of
   * the skill tool is answered directly (`direct-call.ts`); anything else goes through a
   * request-scoped SDK transport, whose answer is held until it is known not to hide a store
   * failure: the transport turns a handler's error into a JSON-RPC error inside a 200, and a store
   * that could not answer in time must be a 503 with `Retry-After` whatever the request was.
   */
  const answer = async (req: http.IncomingMessage, res: http.ServerResponse, stored: StoredSession, body: unknown, call: RequestCall): Promise<void> => {
    const message = body as JsonRpcLike;
    const failure: StoreFailure = {};
    const connection = connectionFor(stored, message.id, call, failure);
    try {
      const direct = call.signal ? directToolCall(req, body, connection) : null;
      if (direct) {
        return await answerDirectToolCall(res, connection, stored.id, direct, {
          format: "json",
          log: options.log,
          internalErrors: "logged",
          ...(metrics ? { metrics } : {}),
          ...(call.replay ? { replay: true } : {}),
        });
      }
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await connection.server.connect(transport);
      const response = await transport.handleRequest(webRequestOf(req), { parsedBody: body });
      if (failure.error) {
        metrics?.error("store_unavailable");
        answerStoreUnavailable(res, failure.error, options.log, message.id);
        return;
      }
      const text = await response.text();
      if (res.destroyed) return;
      const headers: Record<string, string> = { "mcp-session-id": stored.id };
      response.headers.forEach((value, name) => (headers[name] = value));
      res.writeHead(response.status, headers);
      res.end(text);
    } finally {
      await connection.server.close().catch(() => {});
    }
  };

  /** `initialize`, already checked by the front: the session is written to the store before it is answered. */
  const initialize = async (req: http.IncomingMessage, res: http.ServerResponse, body: unknown): Promise<void> => {
    const params = (body as { params: { protocolVersion: string; capabilities: unknown } }).params;
    const stored = await runtime.createStoredSession({
      ...sessionOptions,
      id: randomUUID(),
      client: { protocolVersion: params.protocolVersion, capabilities: params.capabilities as Record<string, unknown> },
    });
    remember(stored);
    touch(stored.id);
    return answer(req, res, stored, body, { caughtUp: false, touch: false });
  };

  const handlePost = async (req: http.IncomingMessage, res: http.ServerResponse, sessionId: string): Promise<void> => {
    const body = await readJsonBody(req);
    if (!body.ok) return refuseBody(res, body);
    const message = body.value as JsonRpcLike;
    // Acted on at once for a session this replica holds: a cancellation must not wait behind the
    // store. One for a session it does not hold is checked first: a cancellation naming no
    // session is refused, not passed on to every replica.
    if (!Array.isArray(body.value) && message.method === "notifications/cancelled" && message.id === undefined) {
      if (!cache.has(sessionId) && !(await sessionFor(sessionId))) {
        return sendError(res, 404, -32001, "Session not found: start a new session with an initialize request");
      }
      cancelCall(sessionId, (message as { params?: { requestId?: unknown } }).params?.requestId);
      res.writeHead(202, { "mcp-session-id": sessionId }).end();
      return;
    }
    const stored = await sessionFor(sessionId);
    if (!stored) return sendError(res, 404, -32001, "Session not found: start a new session with an initialize request");
    if (await refuseOtherDigest(res, stored)) return;
    // A notification or a response from the client changes nothing a request-scoped server
    // holds (`initialized`, `cancelled` for a request already answered): accepted as the SDK would.
    if (!Array.isArray(body.value) && (message.id === undefined || message.method === undefined)) {
      touch(stored.id);
      res.writeHead(202, { "mcp-session-id": stored.id }).end();
      return;
    }
    // One read: what other replicas appended, whether the session ended, and for a request that
    // may act (a call, a prompt) the answer already stored under its idempotency key.
    const idempotencyKey = idempotencyKeyOf(stored, message.id);
    const acting = (message.method === "tools/call" || message.method === "prompts/get") && idempotencyKey !== undefined;
    // A call notes the session's activity with its own write; anything else on its own, when due.
    const touchWithCall = acting && touchDue(stored.id);
    if (!acting) touch(stored.id);
    const caught = await stored.catchUp(acting ? idempotencyKey : undefined);
    if (stored.ended()) {
      forgetSession(stored.id);
      return sendError(res, 404, -32001, "Session not found: it has ended; start a new session with an initialize request");
    }
    if (message.method === "tools/list" && stored.pinnedCatalog() === null) await stored.catalogText();
    if (!acting) return answer(req, res, stored, body.value, { caughtUp: false, touch: false });
    if ("answer" in caught) metrics?.replay();
    // The call's own abort: `notifications/cancelled`, or its client gone before the answer.
    const controller = new AbortController();
    if (cancelled.delete(idempotencyKey)) controller.abort();
    calls.set(idempotencyKey, controller);
    const onClose = (): void => {
      if (!res.writableFinished) controller.abort();
    };
    res.once("close", onClose);
    try {
      return await answer(req, res, stored, body.value, { caughtUp: !("answer" in caught), replay: "answer" in caught, touch: touchWithCall, signal: controller.signal });
    } finally {
      res.off("close", onClose);
      if (calls.get(idempotencyKey) === controller) calls.delete(idempotencyKey);
    }
  };

  const handleGet = async (req: http.IncomingMessage, res: http.ServerResponse, sessionId: string, release: () => void): Promise<void> => {
    if (!String(req.headers.accept ?? "").includes("text/event-stream")) {
      return sendError(res, 406, -32000, "Not acceptable: a GET stream needs Accept: text/event-stream");
    }
    const stored = await sessionFor(sessionId);
    if (!stored) return sendError(res, 404, -32001, "Session not found: start a new session with an initialize request");
    if (await refuseOtherDigest(res, stored)) return;
    await stored.catchUp();
    if (stored.ended()) return sendError(res, 404, -32001, "Session not found: it has ended");
    touch(stored.id);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", "mcp-session-id": stored.id });
    // An open stream is not a request in flight: draining closes it rather than waiting for it.
    release();
    // A priming event: with an id in hand, a client whose stream is cut resumes with Last-Event-ID.
    eventCounter += 1;
    res.write(`retry: ${SSE_RETRY_MS}\nid: ${replicaId}-${eventCounter}\ndata: \n\n`);
    let set = streams.get(stored.id);
    if (!set) streams.set(stored.id, (set = new Set()));
    set.add(res);
    res.once("close", () => {
      set.delete(res);
      if (set.size === 0 && streams.get(stored.id) === set) streams.delete(stored.id);
    });
    // A resumed stream was cut, maybe by a replica that died holding news for it.
    if (req.headers["last-event-id"] !== undefined) for (const message of CHANGE_NOTIFICATIONS) writeEvent(res, message);
  };

  const handleDelete = async (res: http.ServerResponse, sessionId: string): Promise<void> => {
    const stored = await sessionFor(sessionId);
    if (!stored) return sendError(res, 404, -32001, "Session not found");
    const ended = await stored.end("deleted");
    await announceEnd(stored);
    if (!ended) return sendError(res, 404, -32001, "Session not found: it had already ended");
    res.writeHead(200).end();
  };

  const request = async (req: http.IncomingMessage, res: http.ServerResponse, sessionId: string, release: () => void): Promise<void> => {
    try {
      if (req.method === "POST") return await handlePost(req, res, sessionId);
      if (req.method === "GET") return await handleGet(req, res, sessionId, release);
      if (req.method === "DELETE") return await handleDelete(res, sessionId);
    } catch (error) {
      // Deleted from the store under this replica (a prune): the front answers 404, and the
      // copy held here goes, so the next request does not find it either.
      if (error instanceof SessionGoneError) forgetSession(sessionId);
      throw error;
    }
    return sendError(res, 405, -32000, "Method not allowed", { allow: "GET, POST, DELETE" });
  };

  let sweeping = false;
  const sweepIdle = async (): Promise<void> => {
    if (sweeping) return;
    sweeping = true;
    try {
      for (const key of await store.claimIdle(idleTimeoutMs, SWEEP_BATCH)) {
        const cached = cache.get(key.sessionId)?.stored;
        let stored: StoredSession;
        try {
          // Opened by its own key: a session of another scope sharing the store is still ended, not dropped.
          stored = cached && cached.key.principal === key.principal ? cached : await runtime.openStoredSession(key.sessionId, { principal: key.principal });
        } catch (error) {
          if (error instanceof SessionGoneError) continue;
          throw error;
        }
        if (await stored.end("idle")) options.log(`mcp http: session ${stored.id} idle for ${Math.round(idleTimeoutMs / 1000)}s or more; ended`);
        await announceEnd(stored);
      }
    } catch (error) {
      options.log(`mcp http: ending idle sessions: ${causeText(error)}`);
    } finally {
      sweeping = false;
    }
  };
  let pruning = false;
  const prune = async (): Promise<void> => {
    if (pruning || !store.prune) return;
    pruning = true;
    try {
      const pruned = await store.prune(sessionTtlMs);
      if (pruned.sessions + pruned.heartbeats > 0) {
        options.log(`mcp http: deleted ${pruned.sessions} session(s) ended or idle for ${Math.round(sessionTtlMs / 1000)}s or more, and ${pruned.heartbeats} old heartbeat stream(s)`);
      }
    } catch (error) {
      options.log(`mcp http: deleting old sessions: ${causeText(error)}`);
    } finally {
      pruning = false;
    }
  };
  const keepalive = setInterval(() => {
    for (const set of streams.values()) for (const res of set) res.write(": keep-alive\n\n");
  }, SSE_KEEPALIVE_MS).unref();
  const sweeper = idleTimeoutMs > 0 ? setInterval(() => void sweepIdle(), Math.min(Math.max(idleTimeoutMs / 4, 100), MAX_SWEEP_INTERVAL_MS)).unref() : null;
  const pruner =
    sessionTtlMs > 0 && store.prune ? setInterval(() => void prune(), Math.min(Math.max(sessionTtlMs / 4, MIN_PRUNE_INTERVAL_MS), MAX_PRUNE_INTERVAL_MS)).unref() : null;

  const endStreams = (): void => {
    for (const set of streams.values()) for (const res of set) res.end();
    streams.clear();
  };
  const backend: SessionBackend = {
    // Sessions live in the store; the ones held here are a cache, evicted rather than refused.
    sessionsCounted: () => null,
    initialize,
    request,
    async storeReady() {
      try {
        await store.ping?.(READINESS_STORE_DEADLINE_MS);
        return true;
      } catch (error) {
        options.log(`mcp http: readiness: session store unavailable: ${causeText(error)}`);
        return false;
      }
    },
    drainStarted: endStreams,
    async close() {
      if (sweeper) clearInterval(sweeper);
      if (pruner) clearInterval(pruner);
      clearInterval(keepalive);
      for (const controller of calls.values()) controller.abort();
      await subscription.close().catch(() => {});
      endStreams();
      cache.clear();
    },
  };
  const front = await serveHttpFront(runtime, options, listen, backend).catch(async (error: unknown) => {
    await backend.close();
    throw error;
  });
  return {
    url: front.url,
    port: front.port,
    replicaId,
    async notifyToolsChanged() {
      await store.publish({ kind: "list_changed", from: replicaId });
    },
    inFlight: () => front.inFlight(),
    sessionsOpen: () => cache.size,
    streamsOpen: () => {
      let count = 0;
      for (const set of streams.values()) count += set.size;
      return count;
    },
    drain: (timeoutMs) => front.drain(timeoutMs),
    close: () => front.close(),
  };
}

/** A store failure met while the SDK's transport answered: the request is then answered 503 instead. */
interface StoreFailure {
  error?: StoreUnavailableError;
}

/** The request as the web-standard transport reads it; its body is passed already parsed. */
function webRequestOf(req: http.IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return new Request(new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`), { method: req.method ?? "POST", headers });
}

/** How one request's calls reach the store: after its read, with or without a touch, abortable. */
interface RequestCall {
  /** The caller has just caught up and found no stored answer: the call skips its own read. */
  caughtUp: boolean;
  /** An answer is stored under the request's idempotency key: the call repeats it. */
  replay?: boolean;
  touch: boolean;
  signal?: AbortSignal;
}

/**
 * The stored session as the MCP connection sees it for one request: calls go through the store
 * under this request's idempotency key, and the catalog the connection shows (instructions and
 * the tool description alike) is the pinned one, so every replica answers `tools/list` the same.
 */
function requestSession(stored: StoredSession, idempotencyKey: string | undefined, call: RequestCall, failure: StoreFailure): Session {
  const unsupported = (what: string) => (): never => {
    throw new Error(`${what} is not available on a request's view of a stored session; use the stored session itself`);
  };
  // One request acts at most once: a second invoke through the same view reads for itself.
  let fresh = call.caughtUp;
  let touchPending = call.touch;
  const invoke: Session["invoke"] = (args, options = {}) => {
    const skipRead = fresh;
    fresh = false;
    const touch = touchPending;
    touchPending = false;
    const invoked = stored.invoke(args, {
      ...options,
      ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
      ...(skipRead ? { caughtUp: true } : {}),
      ...(touch ? { touch: true } : {}),
      ...(call.signal ? { signal: call.signal } : {}),
    });
    // Noted for the request's answer, which the transport would otherwise write as a 200.
    invoked.catch((error: unknown) => {
      if (error instanceof StoreUnavailableError) failure.error ??= error;
    });
    return invoked;
  };
  return {
    id: stored.id,
    tool: { ...stored.tool, call: async (args) => (await invoke(args)).envelope, invoke: (args) => invoke(args) },
    logPath: null,
    invoke,
    call: async (args, options) => (await invoke(args, options)).envelope,
    // Writing skills is not offered on a shared store: each replica serves its own copy of the tree.
    manageTool: null,
    manage: unsupported("manage()"),
    invokeManage: unsupported("invokeManage()"),
    loaded: () => stored.loaded(),
    available: () => stored.available(),
    clear: unsupported("clear()"),
    beginCompaction: unsupported("beginCompaction()"),
    narrowsSurfaceTo: () => stored.narrowsSurfaceTo(),
    gate: (toolName) => stored.gate(toolName),
    preApprovedTools: () => stored.preApprovedTools(),
    envGrants: () => stored.envGrants(),
    envFor: (keys) => stored.envFor(keys),
    carriedState: () => stored.carriedState(),
    catalogText: () => stored.pinnedCatalog() ?? "",
    currentCatalogText: () => stored.pinnedCatalog() ?? "",
    history: unsupported("history()"),
    stats: () => stored.stats(),
    diagnostics: () => stored.diagnostics(),
    close: () => {},
  };
}

/**
 * `<session id>:<JSON-RPC id>`, the key a retried request is recognised by (a store keeps it as a
 * hash: the id is as long as the client makes it); none for a notification, nor for an id JSON-RPC
 * does not allow, which the transport refuses. The id is canonical as written: a string or an
 * integer has one JSON spelling.
 */
function idempotencyKeyOf(stored: StoredSession, requestId: unknown): string | undefined {
  const valid = typeof requestId === "string" || (typeof requestId === "number" && Number.isSafeInteger(requestId));
  return valid ? `${stored.id}:${JSON.stringify(requestId)}` : undefined;
}

