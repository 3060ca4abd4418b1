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
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Scope, ScopedRegistry } from "../access/types.js";
import type { Session, SessionOptions } from "../session/session.js";
import { SessionGoneError, type StoredSession, type StoredSessionOptions } from "../session/stored-session.js";
import type { SessionStore, StoreMessage, StoreSubscription } from "../session/store.js";
import { parseAllowedOrigin, parseBindAddress, requestAllowed } from "./mcp-http-address.js";
import { readJsonBody, sendError } from "./mcp-http-body.js";
import { stampRegistryDigest } from "./registry-digest-header.js";
import { DEFAULT_MCP_HTTP_HOST, DEFAULT_MCP_HTTP_IDLE_TIMEOUT_MS, defaultMaxSessions } from "./mcp-http-defaults.js";
import { createMcpConnection, type McpServerOptions, type McpSessionFactory } from "./mcp.js";
import { answerStateless, isStatelessRequest } from "./mcp-stateless.js";

export const MCP_HTTP_PATH = "/mcp";
const MAX_SWEEP_INTERVAL_MS = 60_000;
/** Idle sessions one sweep ends at most; the next sweep takes the rest. */
const SWEEP_BATCH = 100;
/** How long a client waits before resuming a cut SSE stream (the SSE `retry` field). */
const SSE_RETRY_MS = 1000;
/** A comment on every open stream this often, so proxies do not take a quiet stream for a dead one. */
const SSE_KEEPALIVE_MS = 15_000;

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
  /** Sessions this replica keeps in memory between requests (a cache: the store holds them all). */
  maxSessions?: number;
  /** What this server serves (`runtime.registryDigest()`), sent as `Skillport-Registry-Digest` on every response. */
  registryDigest?: () => Promise<string>;
}

export interface McpHttpReplicatedServing {
  readonly url: string;
  readonly port: number;
  /** This replica's id in the messages it publishes. */
  readonly replicaId: string;
  /** Tells every replica's open streams that the skills changed. */
  notifyToolsChanged(): Promise<void>;
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

  /** Sessions by id, least recently used first. */
  const cache = new Map<string, { stored: StoredSession; touched: number }>();
  /** Open SSE streams by session id. */
  const streams = new Map<string, Set<http.ServerResponse>>();
  let eventCounter = 0;

  const remember = (stored: StoredSession): void => {
    cache.delete(stored.id);
    cache.set(stored.id, { stored, touched: cache.get(stored.id)?.touched ?? 0 });
    while (cache.size > maxSessions) cache.delete(cache.keys().next().value!);
  };

  const touch = (id: string): void => {
    const entry = cache.get(id);
    if (!entry || Date.now() - entry.touched < touchEveryMs) return;
    entry.touched = Date.now();
    store.touch(entry.stored.key).catch((error: unknown) => options.log(`mcp http: noting activity of ${id}: ${(error as Error).message}`));
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

  /** The per-request MCP server over the stored session; `session.invoke` carries this request's idempotency key. */
  const connectionFor = (stored: StoredSession, requestId: unknown, caughtUp: boolean) => {
    const facade = requestSession(stored, idempotencyKeyOf(stored, requestId), caughtUp);
    const factory: McpSessionFactory = { session: () => facade, registry: (scope) => runtime.registry(scope) };
    return createMcpConnection(factory, options, stored.id, stored.header.client?.capabilities as { extensions?: Record<string, unknown> } | undefined);
  };

  const answer = async (req: http.IncomingMessage, res: http.ServerResponse, stored: StoredSession, body: unknown, caughtUp = false): Promise<void> => {
    const message = body as JsonRpcLike;
    const connection = connectionFor(stored, message.id, caughtUp);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await connection.server.connect(transport);
      res.setHeader("mcp-session-id", stored.id);
      await transport.handleRequest(req, res, body);
    } finally {
      await connection.server.close().catch(() => {});
    }
  };

  const handlePost = async (req: http.IncomingMessage, res: http.ServerResponse, sessionId: string | undefined): Promise<void> => {
    const body = await readJsonBody(req);
    if (!body.ok) return sendError(res, body.status, body.code, body.message);
    if (sessionId === undefined) {
      const protocol = req.headers["mcp-protocol-version"];
      if (isStatelessRequest(body.value, typeof protocol === "string" ? protocol : undefined)) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(await answerStateless(runtime, options, body.value)));
        return;
      }
      if (!isInitializeRequest(body.value)) {
        return sendError(res, 400, -32000, "Bad request: no Mcp-Session-Id header; the first request must be initialize");
      }
      const params = body.value.params;
      const stored = await runtime.createStoredSession({
        ...sessionOptions,
        id: randomUUID(),
        client: { protocolVersion: params.protocolVersion, capabilities: params.capabilities as Record<string, unknown> },
      });
      remember(stored);
      touch(stored.id);
      return answer(req, res, stored, body.value);
    }
    const stored = await sessionFor(sessionId);
    if (!stored) return sendError(res, 404, -32001, "Session not found: start a new session with an initialize request");
    touch(stored.id);
    const message = body.value as JsonRpcLike;
    // A notification or a response from the client changes nothing a request-scoped server
    // holds (`initialized`, `cancelled` for a request already answered): accepted as the SDK would.
    if (!Array.isArray(body.value) && (message.id === undefined || message.method === undefined)) {
      res.writeHead(202, { "mcp-session-id": stored.id }).end();
      return;
    }
    // One read: what other replicas appended, whether the session ended, and for a request that
    // may act (a call, a prompt) the answer already stored under its idempotency key.
    const idempotencyKey = idempotencyKeyOf(stored, message.id);
    const acting = (message.method === "tools/call" || message.method === "prompts/get") && idempotencyKey !== undefined;
    const caught = await stored.catchUp(acting ? idempotencyKey : undefined);
    if (stored.ended()) {
      forgetSession(stored.id);
      return sendError(res, 404, -32001, "Session not found: it has ended; start a new session with an initialize request");
    }
    if (message.method === "tools/list" && stored.pinnedCatalog() === null) await stored.catalogText();
    return answer(req, res, stored, body.value, acting && !("answer" in caught));
  };

  const handleGet = async (req: http.IncomingMessage, res: http.ServerResponse, sessionId: string): Promise<void> => {
    if (!String(req.headers.accept ?? "").includes("text/event-stream")) {
      return sendError(res, 406, -32000, "Not acceptable: a GET stream needs Accept: text/event-stream");
    }
    const stored = await sessionFor(sessionId);
    if (!stored) return sendError(res, 404, -32001, "Session not found: start a new session with an initialize request");
    await stored.catchUp();
    if (stored.ended()) return sendError(res, 404, -32001, "Session not found: it has ended");
    touch(stored.id);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", "mcp-session-id": stored.id });
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

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== MCP_HTTP_PATH) return sendError(res, 404, -32601, `Not found: the MCP endpoint is ${MCP_HTTP_PATH}`);
    if (!requestAllowed(bind, allowedOrigins, req.headers.host, req.headers.origin)) {
      return sendError(res, 403, -32600, "Forbidden: Host or Origin not allowed (DNS-rebinding protection)");
    }
    const header = req.headers["mcp-session-id"];
    const sessionId = typeof header === "string" ? header : undefined;
    if (req.method === "POST") return handlePost(req, res, sessionId);
    if (sessionId === undefined) return sendError(res, 400, -32000, "Bad request: no Mcp-Session-Id header; start with an initialize POST");
    if (req.method === "GET") return handleGet(req, res, sessionId);
    if (req.method === "DELETE") return handleDelete(res, sessionId);
    return sendError(res, 405, -32000, "Method not allowed", { allow: "GET, POST, DELETE" });
  };

  const server = http.createServer((req, res) => {
    stampRegistryDigest(res, listen.registryDigest)
      .then(() => handle(req, res))
      .catch((error: unknown) => {
        options.log(`mcp http: ${(error as Error).message}`);
        if (error instanceof SessionGoneError) {
          if (!res.headersSent) return sendError(res, 404, -32001, "Session not found: it has ended");
        }
        if (!res.headersSent) sendError(res, 500, -32603, "Internal server error");
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
      options.log(`mcp http: ending idle sessions: ${(error as Error).message}`);
    } finally {
      sweeping = false;
    }
  };
  const keepalive = setInterval(() => {
    for (const set of streams.values()) for (const res of set) res.write(": keep-alive\n\n");
  }, SSE_KEEPALIVE_MS).unref();
  const sweeper = idleTimeoutMs > 0 ? setInterval(() => void sweepIdle(), Math.min(Math.max(idleTimeoutMs / 4, 100), MAX_SWEEP_INTERVAL_MS)).unref() : null;

  let closing: Promise<void> | null = null;
  return {
    url: `http://${bind.urlHost}:${port}${MCP_HTTP_PATH}`,
    port,
    replicaId,
    async notifyToolsChanged() {
      await store.publish({ kind: "list_changed", from: replicaId });
    },
    close() {
      closing ??= (async () => {
        if (sweeper) clearInterval(sweeper);
        clearInterval(keepalive);
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
    },
  };
}

/**
 * The stored session as the MCP connection sees it for one request: calls go through the store
 * under this request's idempotency key, and the catalog the connection shows (instructions and
 * the tool description alike) is the pinned one, so every replica answers `tools/list` the same.
 */
function requestSession(stored: StoredSession, idempotencyKey: string | undefined, caughtUp: boolean): Session {
  const unsupported = (what: string) => (): never => {
    throw new Error(`${what} is not available on a request's view of a stored session; use the stored session itself`);
  };
  // One request acts at most once: a second invoke through the same view reads for itself.
  let fresh = caughtUp;
  const invoke: Session["invoke"] = (args, options = {}) => {
    const skipRead = fresh;
    fresh = false;
    return stored.invoke(args, { ...options, ...(idempotencyKey !== undefined ? { idempotencyKey } : {}), ...(skipRead ? { caughtUp: true } : {}) });
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

/** `<session id>:<JSON-RPC id>`, the key a retried request is recognised by; none for a notification. */
function idempotencyKeyOf(stored: StoredSession, requestId: unknown): string | undefined {
  return requestId === undefined || requestId === null ? undefined : `${stored.id}:${JSON.stringify(requestId)}`;
}

