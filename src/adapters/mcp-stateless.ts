/**
 * The stateless MCP wire of protocol 2026-07-28 on the HTTP endpoint: no `initialize`, no session
 * id; every request carries its protocol version and client capabilities in `params._meta`, and
 * `server/discover` says what the server offers. SDK 1.x speaks only the initialize handshake, so
 * each such request is answered by a connection built for it alone (an in-memory session, no
 * log: a stateless client keeps no conversation here), and the result gets the fields 2026-07-28
 * requires of every result (`resultType`) and of cacheable ones (`ttlMs`, `cacheScope`).
 */
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { createMcpConnection, mcpServerCapabilities, type McpServerOptions, type McpSessionFactory } from "./mcp.js";

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

/** True for a request of the stateless wire: the protocol version in the header or in `_meta`, and not `initialize`. */
export function isStatelessRequest(body: unknown, protocolHeader: string | undefined): body is JsonRpcRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  const message = body as Partial<JsonRpcRequest>;
  if (typeof message.method !== "string" || message.method === "initialize" || message.id === undefined) return false;
  const meta = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  return protocolHeader === STATELESS_PROTOCOL_VERSION || meta?.[PROTOCOL_VERSION_META] === STATELESS_PROTOCOL_VERSION;
}

/** Answers one stateless request; the JSON-RPC response, result or error. */
export async function answerStateless(runtime: McpSessionFactory, options: McpServerOptions, request: JsonRpcRequest): Promise<JSONRPCMessage> {
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
    const response = new Promise<JSONRPCMessage>((resolve) => {
      client.onmessage = (message) => {
        if ("id" in message && message.id === request.id && ("result" in message || "error" in message)) resolve(message);
      };
    });
    await client.start();
    await client.send(request as JSONRPCMessage);
    const answer = await response;
    if (!("result" in answer)) return answer;
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
