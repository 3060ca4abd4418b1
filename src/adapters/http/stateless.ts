/**
 * The stateless MCP wire of protocol 2026-07-28 on the HTTP endpoint: no `initialize`, no session
 * id; every request carries its protocol version and client capabilities in `params._meta`, and
 * `server/discover` says what the server offers. SDK 1.x speaks only the initialize handshake, so
 * each such request is answered by a connection built for it alone (an in-memory session, no
 * log: a stateless client keeps no conversation here), and the result gets the fields 2026-07-28
 * requires of every result (`resultType`) and of cacheable ones (`ttlMs`, `cacheScope`).
 */
import type http from "node:http";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ErrorCode, isJSONRPCRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { sendError } from "./body.js";
import { SESSION_CAP_RETRY_AFTER_SECONDS } from "./defaults.js";
import { createMcpConnection, mcpServerCapabilities, type McpServerOptions, type McpSessionFactory } from "../mcp.js";

export const STATELESS_PROTOCOL_VERSION = "2026-07-28";
const PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities";
const CACHEABLE = new Set([
  "server/discover",
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "skills/list",
  "skills/get",
  "resources/directory/read",
]);
const CACHE_FIELDS = { ttlMs: 0, cacheScope: "private" } as const;

interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: string | number;
  method: string;
  params?: Record<string, unknown>;
}

/**
 * True for a request of the stateless wire: the protocol version in the header or in `_meta`, and
 * not `initialize`. Whether it is a well-formed request is `serveStatelessRequest`'s to judge.
 */
export function isStatelessRequest(body: unknown, protocolHeader: string | undefined): body is JsonRpcRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  const message = body as Partial<JsonRpcRequest>;
  if (typeof message.method !== "string" || message.method === "initialize" || message.id === undefined) return false;
  const meta = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  return protocolHeader === STATELESS_PROTOCOL_VERSION || meta?.[PROTOCOL_VERSION_META] === STATELESS_PROTOCOL_VERSION;
}

/** How many stateless requests one server answers at once, and how long each may take. */
export interface StatelessLimits {
  /** Requests being answered now; `serveStatelessRequest` counts them up and down. */
  inFlight: number;
  /** A request not answered within this many milliseconds gets 503 with Retry-After. */
  readonly deadlineMs: number;
  /** Why one more request cannot be taken now (answered 503 with Retry-After), or null when it can. */
  busy(): string | null;
}

/**
 * Answers one stateless request over HTTP, whichever way sessions are kept. A request the SDK would not read
 * as a JSON-RPC request (an id that is not a string or an integer, `params` that are not an
 * object) is refused at once: handed to the SDK it was dropped as an unknown message and its
 * client waited forever, holding the connection built for it. Each request holds a connection
 * (a session) while it is answered, so they are bounded as sessions are; and each gets a
 * deadline, so nothing a request does can hold its client, or its memory, for longer.
 */
export async function serveStatelessRequest(
  res: http.ServerResponse,
  runtime: McpSessionFactory,
  options: McpServerOptions,
  body: JsonRpcRequest,
  limits: StatelessLimits,
): Promise<void> {
  if (!isJSONRPCRequest(body)) {
    return sendError(res, 400, ErrorCode.InvalidRequest, "Invalid Request: a JSON-RPC request needs an id that is a string or an integer, a method, and params that are an object if given");
  }
  const busy = limits.busy();
  if (busy !== null) return sendError(res, 503, -32000, `Server busy: ${busy}; try again later`, { "retry-after": String(SESSION_CAP_RETRY_AFTER_SECONDS) });
  limits.inFlight += 1;
  // Past its deadline or gone with its client (nobody is left to read the answer): either way
  // the connection built for the request is closed at once.
  const stop = new AbortController();
  let late = false;
  const timer = setTimeout(() => {
    late = true;
    stop.abort();
  }, limits.deadlineMs);
  const clientGone = (): void => stop.abort();
  res.once("close", clientGone);
  try {
    const answer = await answerStateless(runtime, options, body, stop.signal);
    if (answer) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(answer));
    } else if (late && !res.headersSent) {
      sendError(res, 503, ErrorCode.InternalError, `Request timed out: no answer within ${limits.deadlineMs} ms; try again later`, { "retry-after": "1" });
    }
  } finally {
    clearTimeout(timer);
    res.off("close", clientGone);
    limits.inFlight -= 1;
  }
}

/** Answers one stateless request; the JSON-RPC response, result or error; null once `signal` aborts first. */
export async function answerStateless(
  runtime: McpSessionFactory,
  options: McpServerOptions,
  request: JsonRpcRequest,
  signal?: AbortSignal,
): Promise<JSONRPCMessage | null> {
  if (request.method === "server/discover") {
    return {
      jsonrpc: "2.0",
      id: request.id,
      result: {
        supportedVersions: [STATELESS_PROTOCOL_VERSION],
        capabilities: mcpServerCapabilities(),
        resultType: "complete",
        ...CACHE_FIELDS,
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "skillport", version: options.version } },
      },
    } as JSONRPCMessage;
  }
  const meta = request.params?.["_meta"] as Record<string, unknown> | undefined;
  const declared = meta?.[CLIENT_CAPABILITIES_META] as { extensions?: Record<string, unknown> } | undefined;
  const connection = createMcpConnection(runtime, { ...options, session: { ...options.session, log: false } }, undefined, declared);
  const [client, server] = InMemoryTransport.createLinkedPair();
  try {
    await connection.server.connect(server);
    const response = new Promise<JSONRPCMessage | null>((resolve) => {
      client.onmessage = (message) => {
        if ("id" in message && message.id === request.id && ("result" in message || "error" in message)) resolve(message);
      };
      if (signal?.aborted) resolve(null);
      signal?.addEventListener("abort", () => resolve(null), { once: true });
    });
    await client.start();
    await client.send(request as JSONRPCMessage);
    const answer = await response;
    if (answer === null || !("result" in answer)) return answer;
    const result = answer.result as Record<string, unknown>;
    return {
      ...answer,
      result: { resultType: "complete", ...(CACHEABLE.has(request.method) ? CACHE_FIELDS : {}), ...result },
    } as JSONRPCMessage;
  } finally {
    await client.close();
    await connection.close();
  }
}
