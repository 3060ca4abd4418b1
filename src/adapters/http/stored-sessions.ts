/**
 * `skillport mcp --http PORT --store URL`: Streamable HTTP at `/mcp` where any replica serves any
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
 * `Retry-After` (`store-unavailable.ts`); a `tools/call` cancelled by `notifications/cancelled`
 * (sent to this replica or, through the store, to another) or by its client going away before
 * it commits is not stored; `GET /healthz` and `GET /readyz` say whether the replica serves and
 * whether a balancer should send it requests; `drain()` finishes what is in flight and refuses new
 * sessions; a session pinned to another registry digest is answered 409, naming both; ended and
 * idle sessions are deleted after `sessionTtlMs`.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ErrorCode, isInitializeRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Scope, ScopedRegistry } from "../../access/types.js";
import type { Session, SessionOptions } from "../../session/session.js";
import { SessionGoneError, type StoredSession, type StoredSessionOptions } from "../../session/stored-session.js";
import { StoreCancelledError, type SessionStore, type StoreMessage, type StoreSubscription } from "../../session/store.js";
import { parseAllowedOrigin, parseBindAddress, requestAllowed } from "./address.js";
import { readJsonBody, refuseBody, sendError } from "./body.js";
import { directToolCall } from "./direct-call.js";
import type { ServerMetrics } from "./metrics.js";
import { stampRegistryDigest } from "./digest-header.js";
import { DEFAULT_MCP_HTTP_HOST, DEFAULT_MCP_HTTP_IDLE_TIMEOUT_MS, DEFAULT_SESSION_TTL_MS, DEFAULT_STATELESS_DEADLINE_MS, defaultMaxSessions } from "./defaults.js";
import { createMcpConnection, type McpConnection, type McpServerOptions, type McpSessionFactory } from "../mcp.js";
import { isStatelessRequest, serveStatelessRequest, type StatelessLimits } from "./stateless.js";
import { ProtocolError } from "../protocol-error.js";
import { answerStoreUnavailable, causeText, correlationId, isStoreUnavailable, STORE_RETRY_AFTER_SECONDS } from "./store-unavailable.js";

export const MCP_HTTP_PATH = "/mcp";
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
/** JSON-RPC code for a request cancelled before it was stored (the code LSP uses for it). */
const REQUEST_CANCELLED_CODE = -32800;
/** JSON-RPC code for a session pinned to skills this replica does not serve. */
export const REGISTRY_DIGEST_MISMATCH_CODE = -32004;

/** What the replicated server needs of the runtime: stored sessions, and what a scope may see. */
export interface McpStoreRuntime {
  readonly store: SessionStore | null;
  createStoredSession(options: StoredSessionOptions): Promise<StoredSession>;
  openStoredSession(id: string, options: StoredSessionOptions): Promise<StoredSession>;
  /** For the stateless 2026-07-28 wire, which keeps no conversation. */
  session(options: SessionOptions): Session;
  registry(scope: Scope): Pick<ScopedRegistry, "toolAvailable" | "all" | "availability">;
}

export interface McpHttpReplicatedListen {
  port: number;
  host?: string;
  /** Sessions with no request for this long are ended, by whichever replica claims them first; 0 = never. */
  idleTimeoutMs?: number;
  allowedOrigins?: readonly string[];
  /**
   * Sessions this replica keeps in memory between requests (a cache: the store holds them all),
   * and stateless requests it answers at once (each holds a session while it lasts).
   */
  maxSessions?: number;
  /** A stateless request not answered within this long gets 503. Default 30 s. */
  statelessDeadlineMs?: number;
  /** What this server serves (`runtime.registryDigest()`), sent as `Skillport-Registry-Digest` on every response. */
  registryDigest?: () => Promise<string>;
  /**
   * Answer a session whose header names another registry digest than this replica's with 409
   * (naming both) instead of serving it other skills. Default true. A server whose skills change
   * under it by design (`--watch`) turns it off: its sessions follow the live registry.
   */
  rejectOtherRegistryDigest?: boolean;
  /** Delete sessions ended, or with no request and no write, for this long (the store's `prune`); 0 = never. Default 24 hours. */
  sessionTtlMs?: number;
  /** Serves `GET /metrics` (`createServerMetrics`). */
  metrics?: ServerMetrics;
  /** True once the registry has loaded (readiness); default: always, as a runtime is loaded before it serves. */
  registryLoaded?: () => boolean;
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
  const bind = parseBindAddress(listen.host ?? DEFAULT_MCP_HTTP_HOST);
  const allowedOrigins = new Set((listen.allowedOrigins ?? []).map(parseAllowedOrigin));
  if (!bind.loopback && allowedOrigins.size === 0) {
    throw new TypeError(`serving on ${bind.urlHost}, which is not loopback, needs allowedOrigins: the origins browsers may call from`);
  }
  const maxSessions = listen.maxSessions ?? defaultMaxSessions();
  if (!Number.isSafeInteger(maxSessions) || maxSessions < 1) throw new RangeError(`maxSessions must be a positive whole number, not ${maxSessions}`);
  const idleTimeoutMs = listen.idleTimeoutMs ?? DEFAULT_MCP_HTTP_IDLE_TIMEOUT_MS;
  // Activity reaches the store at most this often per session and replica, so idle expiry errs
  // late by at most this much, and a busy session costs no write per request.
  const touchEveryMs = idleTimeoutMs > 0 ? Math.min(Math.max(idleTimeoutMs / 10, 50), 5000) : Infinity;
  const replicaId = randomUUID();
  const sessionOptions = options.session;
  const metrics = listen.metrics ?? null;
  const rejectOtherDigest = listen.rejectOtherRegistryDigest !== false && listen.registryDigest !== undefined;
  const sessionTtlMs = listen.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
  if (!(Number.isFinite(sessionTtlMs) && sessionTtlMs >= 0)) throw new RangeError(`sessionTtlMs must be 0 or more milliseconds, not ${sessionTtlMs}`);
  const stateless: StatelessLimits = {
    inFlight: 0,
    deadlineMs: listen.statelessDeadlineMs ?? DEFAULT_STATELESS_DEADLINE_MS,
    busy: () => (stateless.inFlight >= maxSessions ? `${maxSessions} stateless requests are being answered, the most it serves at once` : null),
  };

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
  let draining = false;
  /** Requests being answered (event streams leave the count once open), and who waits for none. */
  let active = 0;
  let idle: (() => void) | null = null;

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
  const connectionFor = (stored: StoredSession, requestId: unknown, call: RequestCall) => {
    const facade = requestSession(stored, idempotencyKeyOf(stored, requestId), call);
    const factory: McpSessionFactory = { session: () => facade, registry: (scope) => runtime.registry(scope) };
    return createMcpConnection(factory, options, stored.id, stored.header.client?.capabilities as { extensions?: Record<string, unknown> } | undefined);
  };

  /**
   * A plain `tools/call` of the skill tool, answered here rather than through the SDK's transport,
   * so a store that cannot answer is a 503 (the transport would wrap it in a 200) and the outcome
   * is known for metrics. Anything the transport would treat otherwise goes to it.
   */
  const answerToolCall = async (res: http.ServerResponse, connection: McpConnection, stored: StoredSession, id: string | number, args: unknown, replay: boolean): Promise<void> => {
    const started = performance.now();
    let outcome = "error";
    try {
      let message: Record<string, unknown>;
      try {
        const result = await connection.callSkillTool(args, id);
        const envelope = result.structuredContent as { data?: { status?: unknown } | null; error?: { code?: unknown } | null } | undefined;
        // A replay was counted when it was first answered; here it counts as what it is.
        outcome = replay ? "replayed" : String(envelope?.error?.code ?? envelope?.data?.status ?? (result.isError ? "error" : "ok"));
        message = { result, jsonrpc: "2.0", id };
      } catch (error) {
        if (isStoreUnavailable(error)) {
          outcome = "store_unavailable";
          metrics?.error("store_unavailable");
          answerStoreUnavailable(res, error, options.log, id);
          return;
        }
        if (error instanceof StoreCancelledError) {
          outcome = "cancelled";
          message = { jsonrpc: "2.0", id, error: { code: REQUEST_CANCELLED_CODE, message: "Request cancelled: nothing was stored" } };
        } else if (error instanceof SessionGoneError) {
          outcome = "session_gone";
          return sendError(res, 404, -32001, "Session not found: it has ended; start a new session with an initialize request");
        } else {
          const thrown = error as { code?: unknown; message?: unknown };
          // A protocol error is worded for the client; anything else is logged, never shown.
          if (error instanceof ProtocolError) message = { jsonrpc: "2.0", id, error: { code: thrown.code, message: thrown.message } };
          else {
            const correlation = correlationId();
            options.log(`mcp http: [${correlation}] tool call: ${causeText(error)}`);
            metrics?.error("internal");
            message = { jsonrpc: "2.0", id, error: { code: ErrorCode.InternalError, message: `Internal error (correlation id ${correlation})` } };
          }
        }
      }
      if (res.destroyed) return;
      res.writeHead(200, { "content-type": "application/json", "mcp-session-id": stored.id });
      res.end(JSON.stringify(message));
    } finally {
      metrics?.toolCall(outcome, (performance.now() - started) / 1000);
    }
  };

  const answer = async (req: http.IncomingMessage, res: http.ServerResponse, stored: StoredSession, body: unknown, call: RequestCall): Promise<void> => {
    const message = body as JsonRpcLike;
    const connection = connectionFor(stored, message.id, call);
    try {
      const direct = call.signal ? directToolCall(req, body, connection) : null;
      if (direct) return await answerToolCall(res, connection, stored, direct.id, direct.args, call.replay === true);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await connection.server.connect(transport);
      res.setHeader("mcp-session-id", stored.id);
      await transport.handleRequest(req, res, body);
    } finally {
      await connection.server.close().catch(() => {});
    }
  };

  const handlePost = async (req: http.IncomingMessage, res: http.ServerResponse, sessionId: string | undefined): Promise<void> => {
    const body = await readJsonBody(req);
    if (!body.ok) return refuseBody(res, body);
    if (sessionId === undefined) {
      const protocol = req.headers["mcp-protocol-version"];
      if (isStatelessRequest(body.value, typeof protocol === "string" ? protocol : undefined)) {
        return serveStatelessRequest(res, runtime, options, body.value, stateless);
      }
      if (!isInitializeRequest(body.value)) {
        return sendError(res, 400, -32000, "Bad request: no Mcp-Session-Id header; the first request must be initialize");
      }
      if (draining) {
        return sendError(res, 503, -32000, "Server draining: it is shutting down and starts no new sessions; try another replica", {
          "retry-after": String(STORE_RETRY_AFTER_SECONDS),
        });
      }
      const params = body.value.params;
      const stored = await runtime.createStoredSession({
        ...sessionOptions,
        id: randomUUID(),
        client: { protocolVersion: params.protocolVersion, capabilities: params.capabilities as Record<string, unknown> },
      });
      remember(stored);
      touch(stored.id);
      return answer(req, res, stored, body.value, { caughtUp: false, touch: false });
    }
    const message = body.value as JsonRpcLike;
    // Handled before the session is read: a cancellation must not wait behind the store.
    if (!Array.isArray(body.value) && message.method === "notifications/cancelled" && message.id === undefined) {
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
    if (draining) return sendError(res, 503, -32000, "Server draining: open the stream on another replica", { "retry-after": String(STORE_RETRY_AFTER_SECONDS) });
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

  /** Whether a balancer should send this replica requests: not draining, the registry loaded, the store answering within 1 s. */
  let readinessProbe: Promise<{ ready: boolean; store: string }> | null = null;
  const readiness = (): Promise<{ ready: boolean; store: string }> => {
    // Probes arriving together share one statement.
    readinessProbe ??= (async () => {
      try {
        await store.ping?.(READINESS_STORE_DEADLINE_MS);
        return { ready: true, store: "ok" };
      } catch (error) {
        options.log(`mcp http: readiness: session store unavailable: ${causeText(error)}`);
        return { ready: false, store: "unavailable" };
      } finally {
        readinessProbe = null;
      }
    })();
    return readinessProbe;
  };

  const sendJson = (res: http.ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers });
    res.end(JSON.stringify(value));
  };

  const handleProbe = async (res: http.ServerResponse, path: string): Promise<void> => {
    if (path === "/healthz") return sendJson(res, 200, { status: draining ? "draining" : "serving" });
    const registry = listen.registryLoaded?.() ?? true;
    if (draining) return sendJson(res, 503, { status: "draining", store: "not checked", registry: registry ? "loaded" : "loading" });
    const probe = await readiness();
    const ready = probe.ready && registry;
    sendJson(res, ready ? 200 : 503, { status: ready ? "ready" : "not ready", store: probe.store, registry: registry ? "loaded" : "loading" }, ready ? {} : { "retry-after": "1" });
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, release: () => void): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://localhost");
    // Probes carry no Host a replica would know (a balancer's check), and reveal nothing.
    if (req.method === "GET" && (url.pathname === "/healthz" || url.pathname === "/readyz")) return handleProbe(res, url.pathname);
    if (url.pathname === "/metrics" && metrics && requestAllowed(bind, allowedOrigins, req.headers.host, req.headers.origin)) {
      if (req.method !== "GET") return sendError(res, 405, -32000, "Method not allowed", { allow: "GET" });
      const text = await metrics.render();
      res.writeHead(200, { "content-type": metrics.contentType });
      res.end(text);
      return;
    }
    if (url.pathname !== MCP_HTTP_PATH) return sendError(res, 404, -32601, `Not found: the MCP endpoint is ${MCP_HTTP_PATH}`);
    if (!requestAllowed(bind, allowedOrigins, req.headers.host, req.headers.origin)) {
      return sendError(res, 403, -32600, "Forbidden: Host or Origin not allowed (DNS-rebinding protection)");
    }
    const header = req.headers["mcp-session-id"];
    const sessionId = typeof header === "string" ? header : undefined;
    if (req.method === "POST") return handlePost(req, res, sessionId);
    if (sessionId === undefined) return sendError(res, 400, -32000, "Bad request: no Mcp-Session-Id header; start with an initialize POST");
    if (req.method === "GET") return handleGet(req, res, sessionId, release);
    if (req.method === "DELETE") return handleDelete(res, sessionId);
    return sendError(res, 405, -32000, "Method not allowed", { allow: "GET, POST, DELETE" });
  };

  const server = http.createServer((req, res) => {
    const started = performance.now();
    active += 1;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      active -= 1;
      if (active === 0) idle?.();
    };
    res.once("close", () => {
      release();
      metrics?.request(req.method ?? "?", res.statusCode, (performance.now() - started) / 1000);
    });
    // While draining, every answer says the connection closes, so clients come back through the balancer.
    if (draining) res.setHeader("connection", "close");
    stampRegistryDigest(res, listen.registryDigest)
      .then(() => handle(req, res, release))
      .catch((error: unknown) => {
        if (isStoreUnavailable(error)) {
          metrics?.error("store_unavailable");
          answerStoreUnavailable(res, error, options.log);
          return;
        }
        if (error instanceof SessionGoneError) {
          options.log(`mcp http: ${error.message}`);
          if (!res.headersSent) return sendError(res, 404, -32001, "Session not found: it has ended");
        }
        const correlation = correlationId();
        options.log(`mcp http: [${correlation}] ${causeText(error)}`);
        metrics?.error("internal");
        if (!res.headersSent) sendError(res, 500, -32603, `Internal server error (correlation id ${correlation})`);
        else res.end();
      });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, bind.listenHost, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

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

  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      draining = true;
      if (sweeper) clearInterval(sweeper);
      if (pruner) clearInterval(pruner);
      clearInterval(keepalive);
      for (const controller of calls.values()) controller.abort();
      await subscription.close().catch(() => {});
      for (const set of streams.values()) for (const res of set) res.end();
      streams.clear();
      cache.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    })();
    return closing;
  };
  return {
    url: `http://${bind.urlHost}:${port}${MCP_HTTP_PATH}`,
    port,
    replicaId,
    async notifyToolsChanged() {
      await store.publish({ kind: "list_changed", from: replicaId });
    },
    inFlight: () => active,
    sessionsOpen: () => cache.size,
    streamsOpen: () => {
      let count = 0;
      for (const set of streams.values()) count += set.size;
      return count;
    },
    async drain(timeoutMs) {
      draining = true;
      // Still listening: `/readyz` answers 503 and `initialize` is refused until what is in flight
      // is done, so a balancer sees the replica leave rather than a refused connection. Idle
      // keep-alive connections close now, busy ones after their answer (`connection: close`).
      server.closeIdleConnections();
      for (const set of streams.values()) for (const res of set) res.end();
      streams.clear();
      const finished =
        active === 0 ||
        (await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => {
            idle = null;
            resolve(false);
          }, timeoutMs);
          timer.unref();
          idle = () => {
            clearTimeout(timer);
            idle = null;
            resolve(true);
          };
        }));
      await close();
      return finished;
    },
    close,
  };
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
function requestSession(stored: StoredSession, idempotencyKey: string | undefined, call: RequestCall): Session {
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
    return stored.invoke(args, {
      ...options,
      ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
      ...(skipRead ? { caughtUp: true } : {}),
      ...(touch ? { touch: true } : {}),
      ...(call.signal ? { signal: call.signal } : {}),
    });
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

