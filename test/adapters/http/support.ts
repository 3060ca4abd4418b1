/**
 * Raw HTTP requests to an MCP endpoint, with headers the test chooses (a browser's Host and
 * Origin, no keep-alive), for the transport's own rules: DNS-rebinding checks and the session cap.
 */
import http from "node:http";
import { after, before } from "node:test";
import { createSkillRuntime, type SkillRuntime } from "../../../src/runtime.js";

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

export const POST_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** One request on its own connection, closed after the answer (`agent: false`). */
export function rawRequest(
  url: URL,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname.replace(/^\[|\]$/g, ""),
        port: url.port,
        path: url.pathname,
        method: options.method ?? "POST",
        headers: { connection: "close", ...(options.headers ?? {}) },
        agent: false,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

/** An initialize POST; returns the answer and the session id the server chose, if any. */
export async function initialize(url: URL, headers: Record<string, string> = {}): Promise<RawAnswer & { sessionId: string | undefined }> {
  const answer = await rawRequest(url, { headers: { ...POST_HEADERS, ...headers }, body: INITIALIZE });
  const id = answer.headers["mcp-session-id"];
  return { ...answer, sessionId: typeof id === "string" ? id : undefined };
}

let nextId = 2;

/** A `tools/call` of `skill` in session `sessionId`; returns the JSON-RPC result of the SSE answer. */
export async function callInSession(url: URL, sessionId: string, args: Record<string, unknown>): Promise<{ status: number; result: unknown }> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { name: "skill", arguments: args } });
  const answer = await rawRequest(url, {
    headers: { ...POST_HEADERS, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" },
    body,
  });
  const data = answer.body
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)) as { result?: unknown; error?: unknown });
  const message = data.at(-1) ?? (answer.body.startsWith("{") ? (JSON.parse(answer.body) as { result?: unknown }) : undefined);
  return { status: answer.status, result: message?.result ?? message };
}

/**
 * One runtime over `root` for the single-process server and one on the PostgreSQL store at
 * `storeUrl` (when there is one) for a replica, opened before the file's tests and closed after.
 */
export function runtimesForBothServers(
  tree: { root: string; cwd: string; home: string },
  storeUrl: string | undefined,
): { plain(): SkillRuntime; stored(): SkillRuntime } {
  let plain: SkillRuntime | undefined;
  let stored: SkillRuntime | undefined;
  const options = { sources: [{ path: tree.root, origin: "global" as const }], cwd: tree.cwd, home: tree.home, env: {} };
  before(async () => {
    plain = await createSkillRuntime(options);
    if (storeUrl) stored = await createSkillRuntime({ ...options, store: storeUrl });
  });
  after(async () => {
    await plain?.close();
    await stored?.close();
  });
  return { plain: () => plain!, stored: () => stored! };
}
