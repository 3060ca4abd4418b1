/**
 * The one request the HTTP server answers without the SDK's transport: a plain `tools/call` of
 * the `skill` tool in an established session, the request a conversation sends most.
 *
 * Through the transport each such call went from Node's request to a web `Request`, through two
 * schema parses of the message, a `ReadableStream` and a `TextEncoder`, and back to Node's
 * response; measured, that was most of a call's CPU, and the reason a call cost 1.3–1.5× the same
 * call to a minimal SDK server whose answers are half the size. Here the call goes straight to
 * the connection's own handler (`callSkillTool`, the one place its result is shaped) and its
 * answer leaves as the single SSE event the transport would have written.
 *
 * Only a request the transport would accept exactly as it is takes this path: every check the
 * transport makes on such a request is made here first, and anything else (a batch, `_meta`, a
 * missing or unknown protocol version, another tool, a client the tool is withheld from) goes to
 * the transport, which answers it, errors included, as it always has. So nothing a client can
 * send is answered two ways.
 */
import type http from "node:http";
import { performance } from "node:perf_hooks";
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js";
import { ErrorCode, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { SessionGoneError, StoreCancelledError } from "../../session/store.js";
import type { McpConnection } from "../mcp.js";
import { ProtocolError } from "../protocol-error.js";
import { sendError } from "./body.js";
import type { ServerMetrics } from "./metrics.js";
import { answerStoreUnavailable, causeText, correlationId, isStoreUnavailable } from "./store-unavailable.js";

/** JSON-RPC code for a request cancelled before it was stored (the code LSP uses for it). */
export const REQUEST_CANCELLED_CODE = -32800;

/** A `tools/call` the direct path answers: its JSON-RPC id and the tool's arguments as sent. */
export interface DirectToolCall {
  id: string | number;
  args: unknown;
}

/** The headers the transport sends with an SSE answer to a POST, so a client sees no difference. */
const SSE_HEADERS = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache, no-transform",
  Connection: "keep-alive",
  "X-Accel-Buffering": "no",
} as const;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Only the given keys, so a field the direct path does not know (`_meta`, a task) goes to the SDK. */
function hasOnlyKeys(value: Record<string, unknown>, allowed: readonly string[]): boolean {
  for (const key in value) if (!allowed.includes(key)) return false;
  return true;
}

/**
 * The call, when `body` (already parsed) is a `tools/call` of the `skill` tool that the transport
 * would hand to the handler unchanged; null sends the request to the transport.
 */
export function directToolCall(req: http.IncomingMessage, body: unknown, connection: McpConnection): DirectToolCall | null {
  // The transport's own checks on a POST after `initialize`, in its order: Accept lists both
  // answer types, the body is JSON, the protocol version is one it speaks. A missing version
  // header the transport lets through as its default; that rare client is left to it.
  const accept = req.headers.accept;
  if (typeof accept !== "string" || !accept.includes("application/json") || !accept.includes("text/event-stream")) return null;
  if (!isJsonContentType(req.headers["content-type"])) return null;
  const version = req.headers["mcp-protocol-version"];
  if (typeof version !== "string" || !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return null;
  // A single JSON-RPC request, as the SDK's message schema reads one: ids are strings or safe integers.
  if (!isPlainObject(body) || !hasOnlyKeys(body, ["jsonrpc", "id", "method", "params"])) return null;
  if (body["jsonrpc"] !== "2.0" || body["method"] !== "tools/call") return null;
  const id = body["id"];
  if (typeof id !== "string" && !(typeof id === "number" && Number.isSafeInteger(id))) return null;
  const params = body["params"];
  if (!isPlainObject(params) || !hasOnlyKeys(params, ["name", "arguments"])) return null;
  const name = params["name"];
  if (typeof name !== "string" || !connection.takesToolCall(name)) return null;
  return { id, args: params["arguments"] };
}

/** How a direct call is answered, besides its result. */
export interface DirectAnswerOptions {
  /**
   * What the transport it stands in for would have written: one SSE event (a session's own
   * transport) or a JSON body (a request-scoped transport in JSON mode, as replicas use).
   */
  format: "sse" | "json";
  log: (line: string) => void;
  /**
   * A failure that is neither a protocol error nor the store's: shown as the SDK's protocol shows
   * a handler's error ("shown": a session in this process, where the direct path must answer as
   * the transport would), or logged under a correlation id ("logged": on a store, where its text
   * may be the database's).
   */
  internalErrors: "shown" | "logged";
  metrics?: ServerMetrics;
  /** The call's answer was stored before (a retry): counted as a replay, not as its outcome again. */
  replay?: boolean;
}

/**
 * Answers the call as the transport would, and a failure as the one HTTP server answers failures:
 * a store that cannot answer in time is a 503 with `Retry-After` (never a 200 holding an error,
 * which a balancer or client would not retry), a cancelled call says nothing was stored, a session
 * ended under the call is a 404.
 */
export async function answerDirectToolCall(
  res: http.ServerResponse,
  connection: McpConnection,
  sessionId: string,
  call: DirectToolCall,
  options: DirectAnswerOptions,
): Promise<void> {
  const started = performance.now();
  let outcome = "error";
  try {
    let message: Record<string, unknown>;
    try {
      const result = await connection.callSkillTool(call.args, call.id);
      const envelope = result.structuredContent as { data?: { status?: unknown } | null; error?: { code?: unknown } | null } | undefined;
      // A replay was counted when it was first answered; here it counts as what it is.
      outcome = options.replay ? "replayed" : String(envelope?.error?.code ?? envelope?.data?.status ?? (result.isError ? "error" : "ok"));
      message = { result, jsonrpc: "2.0", id: call.id };
    } catch (error) {
      if (isStoreUnavailable(error)) {
        outcome = "store_unavailable";
        options.metrics?.error("store_unavailable");
        answerStoreUnavailable(res, error, options.log, call.id);
        return;
      }
      if (error instanceof SessionGoneError) {
        outcome = "session_gone";
        return sendError(res, 404, -32001, "Session not found: it has ended; start a new session with an initialize request");
      }
      if (error instanceof StoreCancelledError) {
        outcome = "cancelled";
        message = { jsonrpc: "2.0", id: call.id, error: { code: REQUEST_CANCELLED_CODE, message: "Request cancelled: nothing was stored" } };
      } else {
        message = { jsonrpc: "2.0", id: call.id, error: errorAnswer(error, options) };
      }
    }
    if (res.destroyed) return;
    if (options.format === "json") {
      res.writeHead(200, { "content-type": "application/json", "mcp-session-id": sessionId });
      res.end(JSON.stringify(message));
    } else {
      res.writeHead(200, { ...SSE_HEADERS, "mcp-session-id": sessionId });
      res.end(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    }
  } finally {
    options.metrics?.toolCall(outcome, (performance.now() - started) / 1000);
  }
}

/** The JSON-RPC error for a handler's failure. */
function errorAnswer(error: unknown, options: DirectAnswerOptions): Record<string, unknown> {
  const thrown = error as { code?: unknown; message?: unknown; data?: unknown };
  // A protocol error is worded for the client.
  if (error instanceof ProtocolError) return { code: thrown.code, message: thrown.message, ...(thrown.data !== undefined ? { data: thrown.data } : {}) };
  if (options.internalErrors === "logged") {
    const correlation = correlationId();
    options.log(`mcp http: [${correlation}] tool call: ${causeText(error)}`);
    options.metrics?.error("internal");
    return { code: ErrorCode.InternalError, message: `Internal error (correlation id ${correlation})` };
  }
  // What the SDK's protocol answers when a handler throws.
  return {
    code: Number.isSafeInteger(thrown.code) ? thrown.code : ErrorCode.InternalError,
    message: typeof thrown.message === "string" ? thrown.message : "Internal error",
    ...(thrown.data !== undefined ? { data: thrown.data } : {}),
  };
}
