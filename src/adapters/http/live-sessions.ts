/**
 * `skillport mcp --http PORT`: Streamable HTTP at `/mcp`. Each MCP session id gets its own
 * transport, MCP server and skillport session, so two clients never share dedup or grants.
 * Bound to 127.0.0.1 by default: skill bodies can hold internal procedures, and a local server
 * must not be reachable from other machines (or, through DNS rebinding, from web pages) unasked.
 * A client that vanishes without DELETE would hold its session forever, so sessions idle past a
 * timeout are ended exactly as a DELETE would end them; and live sessions are capped, so many
 * initializes cannot take the machine's memory (beyond the cap: 503 with Retry-After).
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { parseAllowedOrigin, parseBindAddress, requestAllowed } from "./address.js";
import { readJsonBody, refuseBody, sendError } from "./body.js";
import { answerDirectToolCall, directToolCall } from "./direct-call.js";
import { stampRegistryDigest } from "./digest-header.js";
import {
  DEFAULT_MCP_HTTP_HOST,
  DEFAULT_MCP_HTTP_IDLE_TIMEOUT_MS,
  DEFAULT_STATELESS_DEADLINE_MS,
  defaultMaxSessions,
  SESSION_CAP_RETRY_AFTER_SECONDS,
} from "./defaults.js";

export { DEFAULT_MCP_HTTP_HOST, DEFAULT_MCP_HTTP_IDLE_TIMEOUT_MS, defaultMaxSessions } from "./defaults.js";
export { isLoopback } from "./address.js";
import { createMcpConnection, type McpConnection, type McpServerOptions, type McpSessionFactory } from "../mcp.js";
import { isStatelessRequest, serveStatelessRequest, type StatelessLimits } from "./stateless.js";

export const MCP_HTTP_PATH = "/mcp";
const WRITE_HIGH_WATER_MARK = 2 * 1024 * 1024;
/** Upper bound on how late past its timeout an idle session is noticed. */
const MAX_SWEEP_INTERVAL_MS = 60_000;

export interface McpHttpServing {
  /** e.g. `http://127.0.0.1:41235/mcp` */
  readonly url: string;
  readonly port: number;
  /** Live connections by MCP session id. */
  readonly connections: ReadonlyMap<string, McpConnection>;
  notifyToolsChanged(): Promise<void>;
  /** Ends every session (flushing its log) and stops listening. */
  close(): Promise<void>;
}

interface Entry {
  transport: StreamableHTTPServerTransport;
  connection: McpConnection;
  /** When a request for this session last started or ended. */
  lastActive: number;
  /** Requests still being answered, open SSE streams included: a client holding one is not idle. */
  inFlight: number;
}

export interface McpHttpListen {
  port: number;
  host?: string;
  /** Sessions with no request for this long are ended; 0 = never. Default 30 minutes. */
  idleTimeoutMs?: number;
  /**
   * Origins (`scheme://host[:port]`) browsers may call from. Required off loopback (the MCP spec
   * says servers must validate Origin); on loopback, loopback origins are always allowed.
   */
  allowedOrigins?: readonly string[];
  /**
   * Live sessions at most; an initialize beyond it gets 503. Stateless requests being answered
   * count as sessions (each holds one while it lasts). Default `defaultMaxSessions()`.
   */
  maxSessions?: number;
  /** A stateless request not answered within this long gets 503. Default 30 s. */
  statelessDeadlineMs?: number;
  /** What this server serves (`runtime.registryDigest()`), sent as `Skillport-Registry-Digest` on every response. */
  registryDigest?: () => Promise<string>;
}

export async function serveMcpHttp(
  runtime: McpSessionFactory,
  options: McpServerOptions,
  listen: McpHttpListen,
): Promise<McpHttpServing> {
  const bind = parseBindAddress(listen.host ?? DEFAULT_MCP_HTTP_HOST);
  const allowedOrigins = new Set((listen.allowedOrigins ?? []).map(parseAllowedOrigin));
  if (!bind.loopback && allowedOrigins.size === 0) {
    throw new TypeError(`serving on ${bind.urlHost}, which is not loopback, needs allowedOrigins: the origins browsers may call from`);
  }
  const maxSessions = listen.maxSessions ?? defaultMaxSessions();
  if (!Number.isSafeInteger(maxSessions) || maxSessions < 1) throw new RangeError(`maxSessions must be a positive whole number, not ${maxSessions}`);
  const idleTimeoutMs = listen.idleTimeoutMs ?? DEFAULT_MCP_HTTP_IDLE_TIMEOUT_MS;
  const entries = new Map<string, Entry>();
  // Initializes being answered: they count toward the cap before their session registers.
  let opening = 0;
  const connections = new Map<string, McpConnection>();

  const endSession = async (id: string): Promise<void> => {
    const entry = entries.get(id);
    if (!entry) return;
    entries.delete(id);
    connections.delete(id);
    await entry.connection.close();
  };

  const stateless: StatelessLimits = {
    inFlight: 0,
    deadlineMs: listen.statelessDeadlineMs ?? DEFAULT_STATELESS_DEADLINE_MS,
    busy: () => (entries.size + opening + stateless.inFlight >= maxSessions ? `${maxSessions} sessions and requests are live, the most it serves` : null),
  };

  const openSession = async (req: http.IncomingMessage, res: http.ServerResponse, body: unknown): Promise<void> => {
    if (entries.size + opening + stateless.inFlight >= maxSessions) {
      return sendError(res, 503, -32000, `Server busy: ${maxSessions} sessions are live, the most it serves; try again later`, {
        "retry-after": String(SESSION_CAP_RETRY_AFTER_SECONDS),
      });
    }
    opening += 1;
    try {
      await startSession(req, res, body);
    } finally {
      opening -= 1;
    }
  };

  const startSession = async (req: http.IncomingMessage, res: http.ServerResponse, body: unknown): Promise<void> => {
    // The id is chosen before the transport exists so the skillport session (and its log file) share it.
    const id = randomUUID();
    const connection = createMcpConnection(runtime, options, id);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => {
        entries.set(id, { transport, connection, lastActive: Date.now(), inFlight: 0 });
        connections.set(id, connection);
      },
    });
    transport.onclose = () => void endSession(id);
    await connection.server.connect(transport);
    await transport.handleRequest(req, res, body);
    // An initialize that failed never registers; its session must not linger.
    if (!entries.has(id)) await connection.close();
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== MCP_HTTP_PATH) return sendError(res, 404, -32601, `Not found: the MCP endpoint is ${MCP_HTTP_PATH}`);
    if (!requestAllowed(bind, allowedOrigins, req.headers.host, req.headers.origin)) {
      return sendError(res, 403, -32600, "Forbidden: Host or Origin not allowed (DNS-rebinding protection)");
    }
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const entry = entries.get(sessionId);
      if (!entry) return sendError(res, 404, -32001, "Session not found: start a new session with an initialize request");
      trackActivity(entry, res);
      if (req.method === "POST") writeInOnePiece(res);
      // Parsed here, as the SDK's own examples do with a body parser: left to the transport, each
      // request's body went through a web stream, which cost more than the tool call it carried.
      if (req.method === "POST" && isJsonContent(req.headers["content-type"])) {
        const body = await readJsonBody(req);
        if (!body.ok) return refuseBody(res, body);
        // Ended while its body was read: the transport, closed by then, answers 404 as it should.
        const call = entries.get(sessionId) === entry ? directToolCall(req, body.value, entry.connection) : null;
        if (call) return answerDirectToolCall(res, entry.connection, sessionId, call);
        return entry.transport.handleRequest(req, res, body.value);
      }
      return entry.transport.handleRequest(req, res);
    }
    if (req.method !== "POST") return sendError(res, 400, -32000, "Bad request: no Mcp-Session-Id header; start with an initialize POST");
    const body = await readJsonBody(req);
    if (!body.ok) return refuseBody(res, body);
    const protocol = req.headers["mcp-protocol-version"];
    if (isStatelessRequest(body.value, typeof protocol === "string" ? protocol : undefined)) {
      return serveStatelessRequest(res, runtime, options, body.value, stateless);
    }
    if (!isInitializeRequest(body.value)) {
      return sendError(res, 400, -32000, "Bad request: no Mcp-Session-Id header; the first request must be initialize");
    }
    writeInOnePiece(res);
    return openSession(req, res, body.value);
  };

  // A whole answer fits under the write buffer's mark, so one held by `writeInOnePiece` is not
  // made to wait for a drain that comes only once it is let go (then its end left in a write of
  // its own). The largest answer (a 256 KiB file, JSON-escaped, twice) is below it.
  const server = http.createServer({ highWaterMark: WRITE_HIGH_WATER_MARK }, (req, res) => {
    stampRegistryDigest(res, listen.registryDigest)
      .then(() => handle(req, res))
      .catch((error: unknown) => {
        options.log(`mcp http: ${(error as Error).message}`);
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

  const sweepIdle = (): void => {
    const now = Date.now();
    for (const [id, entry] of entries) {
      if (entry.inFlight > 0 || now - entry.lastActive < idleTimeoutMs) continue;
      options.log(`mcp http: session ${id} idle for ${Math.round((now - entry.lastActive) / 1000)}s; closed`);
      endSession(id).catch((error: unknown) => options.log(`mcp http: closing idle session ${id}: ${(error as Error).message}`));
    }
  };
  // Unref'd: the sweeper alone must never keep a finished server's process alive.
  const sweeper = idleTimeoutMs > 0 ? setInterval(sweepIdle, Math.min(Math.max(idleTimeoutMs / 4, 100), MAX_SWEEP_INTERVAL_MS)).unref() : null;
  const url = `http://${bind.urlHost}:${port}${MCP_HTTP_PATH}`;

  let closing: Promise<void> | null = null;
  return {
    url,
    port,
    connections,
    async notifyToolsChanged() {
      await Promise.all([...connections.values()].map((c) => c.notifyToolsChanged()));
    },
    close() {
      closing ??= (async () => {
        if (sweeper) clearInterval(sweeper);
        await Promise.all([...entries.keys()].map((id) => endSession(id)));
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          // Open SSE streams would otherwise hold close() forever.
          server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}

/**
 * Holds what an answer to a POST writes until the end of this turn of the event loop, so an
 * answer ready by then leaves in one write. The transport streams every answer as SSE and, when
 * the result is not ready the moment it first looks, writes the headers, the event and the end
 * of the stream each on its own: on loopback a socket write costs about as much as the whole
 * tool call, so an answer in three writes cost 1.3–1.5× one in one. An answer that takes longer
 * (a rescan, a package walk) is let go at the end of the turn and streams as before.
 */
function writeInOnePiece(res: http.ServerResponse): void {
  res.cork();
  // `end()` uncorks fully; after it this is a no-op.
  setImmediate(() => res.uncork());
}

function trackActivity(entry: Entry, res: http.ServerResponse): void {
  entry.lastActive = Date.now();
  entry.inFlight += 1;
  // "close" fires both when the answer is complete and when the client drops the connection.
  res.once("close", () => {
    entry.inFlight -= 1;
    entry.lastActive = Date.now();
  });
}


/** Anything else goes to the transport unread, so it answers a wrong content type as the SDK does. */
function isJsonContent(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.toLowerCase().includes("application/json");
}

