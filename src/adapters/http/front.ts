/**
 * The one HTTP server in front of MCP sessions (`skillport mcp --http PORT`, with or without
 * `--store`). Where a session lives is a `SessionBackend`'s business: in this process, each with
 * its own SDK transport (`live-sessions.ts`), or in a store any replica reads (`stored-sessions.ts`).
 * Everything a request meets before it reaches its session is decided here, once, for both:
 *
 * - how many connections it holds, with room kept for the probes (`connection-cap.ts`);
 * - where it listens (127.0.0.1 unless told otherwise) and who may call it: `Host` and `Origin`
 *   are checked on every MCP request (DNS rebinding), and off loopback only listed origins serve;
 * - `GET /healthz` and `GET /readyz` (SPEC §9), and `GET /metrics` when metrics are kept;
 * - the body limit and the answer to a body that is not JSON;
 * - the stateless 2026-07-28 wire, which has no session at all;
 * - what a new session must start with (`initialize`), and when it is refused: beyond the session
 *   cap, or while draining (503 with `Retry-After` either way);
 * - the bearer token, when there is one (`bearer-token.ts`);
 * - the `Skillport-Registry-Digest` header on every answer past those checks (not on a probe,
 *   a 403 or a 401);
 * - drain: `/readyz` turns 503, new sessions and event streams are refused, what is in flight
 *   finishes, then the server closes;
 * - how a failure is answered: a store that cannot answer in time is a 503 (`store-unavailable.ts`),
 *   a session gone is a 404, anything else a 500 whose text is a correlation id, never the cause.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { SessionGoneError } from "../../session/store.js";
import type { McpServerOptions, McpSessionFactory } from "../mcp.js";
import { parseAllowedOrigin, parseBindAddress, requestAllowed, type BindAddress } from "./address.js";
import { bearerCheck, bearerTokenProblem, refuseUnauthorized } from "./bearer-token.js";
import { readJsonBody, refuseBody, sendError } from "./body.js";
import { capConnections } from "./connection-cap.js";
import {
  DEFAULT_MCP_HTTP_HOST,
  DEFAULT_STATELESS_DEADLINE_MS,
  defaultMaxConnections,
  defaultMaxSessions,
  HEADERS_TIMEOUT_MS,
  REQUEST_TIMEOUT_MS,
  SESSION_CAP_RETRY_AFTER_SECONDS,
} from "./defaults.js";
import { stampRegistryDigest } from "./digest-header.js";
import type { ServerMetrics } from "./metrics.js";
import { isStatelessRequest, serveStatelessRequest, type StatelessLimits } from "./stateless.js";
import { answerStoreUnavailable, causeText, correlationId, isStoreUnavailable, STORE_RETRY_AFTER_SECONDS } from "./store-unavailable.js";

export const MCP_HTTP_PATH = "/mcp";
/**
 * A whole answer fits under the write buffer's mark, so one held back to leave in a single write
 * (`live-sessions.ts`) is not made to wait for a drain that comes only once it is let go. The
 * largest answer (a 256 KiB file, JSON-escaped, twice) is below it.
 */
const WRITE_HIGH_WATER_MARK = 2 * 1024 * 1024;

/** Where sessions live, as the front sees it. */
export interface SessionBackend {
  /**
   * Sessions held that count toward the cap, with stateless requests being answered; null when
   * sessions are not capped here (replicas keep them in a store, and in memory only as a cache).
   */
  sessionsCounted(): number | null;
  /** Answers an `initialize` (already read and checked) by starting a session. */
  initialize(req: http.IncomingMessage, res: http.ServerResponse, body: unknown): Promise<void>;
  /**
   * Answers a request naming a session (`Mcp-Session-Id`), of any method. `release` says the
   * request is no longer in flight although its answer stays open: an event stream is not work
   * that draining waits for.
   */
  request(req: http.IncomingMessage, res: http.ServerResponse, sessionId: string, release: () => void): Promise<void>;
  /** Whether the session store answers (`/readyz`); absent when there is none. */
  storeReady?(): Promise<boolean>;
  /** Draining has begun: event streams end now, so their clients reconnect elsewhere. */
  drainStarted(): void;
  /** Ends what the backend holds in this process; the front stops listening after. */
  close(): Promise<void>;
}

export interface HttpFrontListen {
  port: number;
  host?: string;
  /**
   * Origins (`scheme://host[:port]`) browsers may call from. Required off loopback (the MCP spec
   * says servers must validate Origin); on loopback, loopback origins are always allowed.
   */
  allowedOrigins?: readonly string[];
  /**
   * At most this many live sessions (where the backend counts them) and stateless requests being
   * answered; beyond it, 503. Default `defaultMaxSessions()`.
   */
  maxSessions?: number;
  /** A stateless request not answered within this long gets 503. Default 30 s. */
  statelessDeadlineMs?: number;
  /** What this server serves (`runtime.registryDigest()`), sent as `Skillport-Registry-Digest` on every response. */
  registryDigest?: () => Promise<string>;
  /** Serves `GET /metrics` (`createServerMetrics`) and counts requests and errors. */
  metrics?: ServerMetrics;
  /** True once the registry has loaded (readiness); default: always, as a runtime is loaded before it serves. */
  registryLoaded?: () => boolean;
  /**
   * The bearer token every MCP request and `/metrics` must carry (`Authorization: Bearer …`);
   * the probes stay open. Required off loopback: a string, or `false` to say that something in
   * front of the server authenticates instead. On loopback it is optional, but loopback does
   * not keep out other users of this machine: give one to a server that can write skills.
   */
  authToken?: string | false;
  /**
   * Connections held at most (`connection-cap.ts`); a few more are admitted for the probes only.
   * Default `defaultMaxConnections()`.
   */
  maxConnections?: number;
}

export interface HttpFront {
  readonly url: string;
  readonly port: number;
  readonly maxSessions: number;
  /** Requests being answered now (event streams not counted). */
  inFlight(): number;
  /**
   * Stops taking work and finishes what is in flight (SIGTERM), for up to `timeoutMs`; then
   * `close()`. Resolves true when everything in flight finished in time.
   */
  drain(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** The checks of `listen` a caller can make before building a backend: bad options fail before anything starts. */
export function checkListen(listen: HttpFrontListen): { bind: BindAddress; allowedOrigins: Set<string>; maxSessions: number; maxConnections: number } {
  const bind = parseBindAddress(listen.host ?? DEFAULT_MCP_HTTP_HOST);
  const allowedOrigins = new Set((listen.allowedOrigins ?? []).map(parseAllowedOrigin));
  if (!bind.loopback && allowedOrigins.size === 0) {
    throw new TypeError(`serving on ${bind.urlHost}, which is not loopback, needs allowedOrigins: the origins browsers may call from`);
  }
  if (typeof listen.authToken === "string") {
    const problem = bearerTokenProblem(listen.authToken);
    if (problem !== null) throw new RangeError(`authToken: ${problem}`);
  } else if (listen.authToken !== undefined && listen.authToken !== false) {
    throw new TypeError("authToken must be a string, or false");
  }
  if (!bind.loopback && listen.authToken === undefined) {
    throw new TypeError(`serving on ${bind.urlHost}, which is not loopback, needs authToken: a bearer token (or false when something in front authenticates)`);
  }
  const maxSessions = listen.maxSessions ?? defaultMaxSessions();
  if (!Number.isSafeInteger(maxSessions) || maxSessions < 1) throw new RangeError(`maxSessions must be a positive whole number, not ${maxSessions}`);
  const maxConnections = listen.maxConnections ?? defaultMaxConnections();
  if (!Number.isSafeInteger(maxConnections) || maxConnections < 1) throw new RangeError(`maxConnections must be a positive whole number, not ${maxConnections}`);
  return { bind, allowedOrigins, maxSessions, maxConnections };
}

export async function serveHttpFront(runtime: McpSessionFactory, options: McpServerOptions, listen: HttpFrontListen, backend: SessionBackend): Promise<HttpFront> {
  const { bind, allowedOrigins, maxSessions, maxConnections } = checkListen(listen);
  const metrics = listen.metrics ?? null;
  const authorized = typeof listen.authToken === "string" ? bearerCheck(listen.authToken) : null;
  let draining = false;
  /** Requests being answered (event streams leave the count once open), and who waits for none. */
  let active = 0;
  let idle: (() => void) | null = null;
  // Initializes being answered: they count toward the cap before their session is counted.
  let opening = 0;

  const stateless: StatelessLimits = {
    inFlight: 0,
    deadlineMs: listen.statelessDeadlineMs ?? DEFAULT_STATELESS_DEADLINE_MS,
    busy: () => {
      const sessions = backend.sessionsCounted();
      if (sessions === null) return stateless.inFlight >= maxSessions ? `${maxSessions} stateless requests are being answered, the most it serves at once` : null;
      return sessions + opening + stateless.inFlight >= maxSessions ? `${maxSessions} sessions and requests are live, the most it serves` : null;
    },
  };

  const sendJson = (res: http.ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers });
    res.end(JSON.stringify(value));
  };

  /** Whether a balancer should send this server requests: not draining, the registry loaded, the store (if any) answering. */
  let storeProbe: Promise<boolean> | null = null;
  const handleProbe = async (res: http.ServerResponse, path: string): Promise<void> => {
    if (path === "/healthz") return sendJson(res, 200, { status: draining ? "draining" : "serving" });
    const registry = listen.registryLoaded?.() ?? true ? "loaded" : "loading";
    if (draining) return sendJson(res, 503, { status: "draining", store: "not checked", registry });
    let store = "none";
    if (backend.storeReady) {
      // Probes arriving together share one statement.
      storeProbe ??= backend.storeReady().finally(() => (storeProbe = null));
      store = (await storeProbe) ? "ok" : "unavailable";
    }
    const ready = store !== "unavailable" && registry === "loaded";
    sendJson(res, ready ? 200 : 503, { status: ready ? "ready" : "not ready", store, registry }, ready ? {} : { "retry-after": "1" });
  };

  const startSession = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const body = await readJsonBody(req);
    if (!body.ok) return refuseBody(res, body);
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
    const sessions = backend.sessionsCounted();
    if (sessions !== null && sessions + opening + stateless.inFlight >= maxSessions) {
      return sendError(res, 503, -32000, `Server busy: ${maxSessions} sessions are live, the most it serves; try again later`, {
        "retry-after": String(SESSION_CAP_RETRY_AFTER_SECONDS),
      });
    }
    opening += 1;
    try {
      await backend.initialize(req, res, body.value);
    } finally {
      opening -= 1;
    }
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, release: () => void): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://localhost");
    // Probes carry no Host a server would know (a balancer's check), and reveal nothing.
    if (req.method === "GET" && (url.pathname === "/healthz" || url.pathname === "/readyz")) return handleProbe(res, url.pathname);
    if (connections.probesOnly(req.socket)) {
      return sendError(res, 503, -32000, `Server busy: it holds ${maxConnections} connections, the most it serves; try again later`, {
        "retry-after": String(SESSION_CAP_RETRY_AFTER_SECONDS),
        connection: "close",
      });
    }
    const allowed = requestAllowed(bind, allowedOrigins, req.headers.host, req.headers.origin);
    const isMetrics = url.pathname === "/metrics" && metrics !== null && allowed;
    if (!isMetrics && url.pathname !== MCP_HTTP_PATH) return sendError(res, 404, -32601, `Not found: the MCP endpoint is ${MCP_HTTP_PATH}`);
    if (!allowed) return sendError(res, 403, -32600, "Forbidden: Host or Origin not allowed (DNS-rebinding protection)");
    if (authorized && !authorized(req.headers.authorization)) return refuseUnauthorized(res, req.headers.authorization !== undefined);
    // Only now: a refused request (a rebinding page's, an unauthorized one) and a probe learn
    // nothing of what the server serves.
    await stampRegistryDigest(res, listen.registryDigest);
    if (isMetrics && metrics) {
      if (req.method !== "GET") return sendError(res, 405, -32000, "Method not allowed", { allow: "GET" });
      const text = await metrics.render();
      res.writeHead(200, { "content-type": metrics.contentType });
      res.end(text);
      return;
    }
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      if (draining && req.method === "GET") {
        return sendError(res, 503, -32000, "Server draining: open the stream on another replica", { "retry-after": String(STORE_RETRY_AFTER_SECONDS) });
      }
      return backend.request(req, res, sessionId, release);
    }
    if (req.method !== "POST") return sendError(res, 400, -32000, "Bad request: no Mcp-Session-Id header; start with an initialize POST");
    return startSession(req, res);
  };

  const server = http.createServer({ highWaterMark: WRITE_HIGH_WATER_MARK }, (req, res) => {
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
    handle(req, res, release)
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

  // A client sending a byte now and then holds its connection only this long.
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  const connections = capConnections(server, maxConnections);

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, bind.listenHost, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      draining = true;
      await backend.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Open event streams would otherwise hold close() forever.
        server.closeAllConnections();
      });
    })();
    return closing;
  };

  return {
    url: `http://${bind.urlHost}:${port}${MCP_HTTP_PATH}`,
    port,
    maxSessions,
    inFlight: () => active,
    async drain(timeoutMs) {
      draining = true;
      // Still listening: `/readyz` answers 503 and `initialize` is refused until what is in flight
      // is done, so a balancer sees the server leave rather than a refused connection. Idle
      // keep-alive connections close now, busy ones after their answer (`connection: close`).
      server.closeIdleConnections();
      backend.drainStarted();
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
