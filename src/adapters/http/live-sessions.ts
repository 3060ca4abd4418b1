/**
 * Sessions kept in this process (`skillport mcp --http PORT` without `--store`): each MCP session
 * id gets its own SDK transport, MCP server and skillport session, so two clients never share
 * dedup or grants, and a session keeps everything a library session has (its log, compaction,
 * `skill_manage`). Everything a request meets before its session (Host and Origin, the cap, the
 * stateless wire, probes, drain) is the front's (`front.ts`).
 *
 * A client that vanishes without DELETE would hold its session forever, so sessions idle past a
 * timeout are ended exactly as a DELETE would end them.
 */
import { randomUUID } from "node:crypto";
import type http from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createMcpConnection, type McpConnection, type McpServerOptions, type McpSessionFactory } from "../mcp.js";
import { readJsonBody, refuseBody, sendError } from "./body.js";
import { DEFAULT_MCP_HTTP_IDLE_TIMEOUT_MS, STREAM_IDLE_FACTOR } from "./defaults.js";
import { answerDirectToolCall, directToolCall } from "./direct-call.js";
import { serveHttpFront, type HttpFrontListen, type SessionBackend } from "./front.js";

export { MCP_HTTP_PATH } from "./front.js";
export { DEFAULT_MCP_HTTP_HOST, DEFAULT_MCP_HTTP_IDLE_TIMEOUT_MS, defaultMaxSessions } from "./defaults.js";
export { isLoopback } from "./address.js";

/** Upper bound on how late past its timeout an idle session is noticed. */
const MAX_SWEEP_INTERVAL_MS = 60_000;

export interface McpHttpServing {
  /** e.g. `http://127.0.0.1:41235/mcp` */
  readonly url: string;
  readonly port: number;
  /** Live connections by MCP session id. */
  readonly connections: ReadonlyMap<string, McpConnection>;
  notifyToolsChanged(): Promise<void>;
  /**
   * Stops taking work and finishes what is in flight (SIGTERM): `/readyz` answers 503, new
   * sessions and event streams are refused, and requests being answered finish, for up to
   * `timeoutMs`; then `close()`. Resolves true when everything in flight finished in time.
   */
  drain(timeoutMs: number): Promise<boolean>;
  /** Ends every session (flushing its log) and stops listening. */
  close(): Promise<void>;
}

interface Entry {
  transport: StreamableHTTPServerTransport;
  connection: McpConnection;
  /** When a request for this session last started or ended. */
  lastActive: number;
  /** Requests still being answered, event streams not included: a client waiting for one is not idle. */
  inFlight: number;
  /**
   * Event streams (GET) open: they keep the session from idling only up to a bound of their own
   * (`streamIdleTimeoutMs`), or a stream per session would hold every place under the cap.
   */
  streams: number;
}

export interface McpHttpListen extends HttpFrontListen {
  /** Sessions with no request for this long are ended; 0 = never. Default 30 minutes. */
  idleTimeoutMs?: number;
  /**
   * A session whose only open request is an event stream (GET) is ended once it has sent no
   * other request for this long (its stream closed with it); never less than `idleTimeoutMs`.
   * Default twice `idleTimeoutMs`; with `idleTimeoutMs` 0, streams too keep sessions for ever.
   */
  streamIdleTimeoutMs?: number;
}

export async function serveMcpHttp(runtime: McpSessionFactory, options: McpServerOptions, listen: McpHttpListen): Promise<McpHttpServing> {
  const idleTimeoutMs = listen.idleTimeoutMs ?? DEFAULT_MCP_HTTP_IDLE_TIMEOUT_MS;
  const streamIdleTimeoutMs = Math.max(idleTimeoutMs, listen.streamIdleTimeoutMs ?? idleTimeoutMs * STREAM_IDLE_FACTOR);
  if (!(Number.isFinite(streamIdleTimeoutMs) && streamIdleTimeoutMs >= 0)) throw new RangeError(`streamIdleTimeoutMs must be 0 or more milliseconds, not ${listen.streamIdleTimeoutMs}`);
  const entries = new Map<string, Entry>();
  const connections = new Map<string, McpConnection>();

  const endSession = async (id: string): Promise<void> => {
    const entry = entries.get(id);
    if (!entry) return;
    entries.delete(id);
    connections.delete(id);
    await entry.connection.close();
  };

  const initialize = async (req: http.IncomingMessage, res: http.ServerResponse, body: unknown): Promise<void> => {
    writeInOnePiece(res);
    // The id is chosen before the transport exists so the skillport session (and its log file) share it.
    const id = randomUUID();
    const connection = createMcpConnection(runtime, options, id);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => {
        entries.set(id, { transport, connection, lastActive: Date.now(), inFlight: 0, streams: 0 });
        connections.set(id, connection);
      },
    });
    transport.onclose = () => void endSession(id);
    await connection.server.connect(transport);
    await transport.handleRequest(req, res, body);
    // An initialize that failed never registers; its session must not linger.
    if (!entries.has(id)) await connection.close();
  };

  const request = async (req: http.IncomingMessage, res: http.ServerResponse, sessionId: string, release: () => void): Promise<void> => {
    const entry = entries.get(sessionId);
    if (!entry) return sendError(res, 404, -32001, "Session not found: start a new session with an initialize request");
    trackActivity(entry, res, req.method === "GET");
    // A GET holds the session's event stream open: not a request draining waits for.
    if (req.method === "GET") release();
    if (req.method === "POST") writeInOnePiece(res);
    // Parsed here, as the SDK's own examples do with a body parser: left to the transport, each
    // request's body went through a web stream, which cost more than the tool call it carried.
    if (req.method === "POST" && isJsonContent(req.headers["content-type"])) {
      const body = await readJsonBody(req);
      if (!body.ok) return refuseBody(res, body);
      // Ended while its body was read: the transport, closed by then, answers 404 as it should.
      const call = entries.get(sessionId) === entry ? directToolCall(req, body.value, entry.connection) : null;
      if (call) return answerDirectToolCall(res, entry.connection, sessionId, call, { format: "sse", log: options.log, internalErrors: "shown", ...(listen.metrics ? { metrics: listen.metrics } : {}) });
      return entry.transport.handleRequest(req, res, body.value);
    }
    return entry.transport.handleRequest(req, res);
  };

  const backend: SessionBackend = {
    sessionsCounted: () => entries.size,
    initialize,
    request,
    drainStarted: () => {},
    async close() {
      if (sweeper) clearInterval(sweeper);
      await Promise.all([...entries.keys()].map((id) => endSession(id)));
    },
  };

  const sweepIdle = (): void => {
    const now = Date.now();
    for (const [id, entry] of entries) {
      if (entry.inFlight > 0 || now - entry.lastActive < (entry.streams > 0 ? streamIdleTimeoutMs : idleTimeoutMs)) continue;
      const streams = entry.streams > 0 ? `, with ${entry.streams} event stream(s) open` : "";
      options.log(`mcp http: session ${id} idle for ${Math.round((now - entry.lastActive) / 1000)}s${streams}; closed`);
      endSession(id).catch((error: unknown) => options.log(`mcp http: closing idle session ${id}: ${(error as Error).message}`));
    }
  };
  const front = await serveHttpFront(runtime, options, listen, backend);
  // Unref'd: the sweeper alone must never keep a finished server's process alive.
  const sweeper = idleTimeoutMs > 0 ? setInterval(sweepIdle, Math.min(Math.max(idleTimeoutMs / 4, 100), MAX_SWEEP_INTERVAL_MS)).unref() : null;

  return {
    url: front.url,
    port: front.port,
    connections,
    async notifyToolsChanged() {
      await Promise.all([...connections.values()].map((c) => c.notifyToolsChanged()));
    },
    drain: (timeoutMs) => front.drain(timeoutMs),
    close: () => front.close(),
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

function trackActivity(entry: Entry, res: http.ServerResponse, stream: boolean): void {
  entry.lastActive = Date.now();
  if (stream) entry.streams += 1;
  else entry.inFlight += 1;
  // "close" fires both when the answer is complete and when the client drops the connection.
  res.once("close", () => {
    if (stream) entry.streams -= 1;
    else entry.inFlight -= 1;
    entry.lastActive = Date.now();
  });
}

/** Anything else goes to the transport unread, so it answers a wrong content type as the SDK does. */
function isJsonContent(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.toLowerCase().includes("application/json");
}
