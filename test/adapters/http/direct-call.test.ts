/**
 * A plain `tools/call` of `skill` is answered without the SDK's transport (src/adapters/
 * mcp-http-direct-call.ts). The rule it must keep: a client cannot tell. Each call here is made
 * twice, in two sessions of the real server: once plain (the direct path) and once with an empty
 * `_meta` in its params, which the direct path leaves to the transport; the answers must match
 * in status, headers and message. Every request the transport would treat differently must
 * still reach it, and be answered as it answers.
 */
import assert from "node:assert/strict";
import type http from "node:http";
import { after, before, test } from "node:test";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { createMcpConnection, type McpConnection, type McpSessionFactory } from "../../../src/adapters/mcp.js";
import { serveMcpHttp } from "../../../src/adapters/http/live-sessions.js";
import { directToolCall } from "../../../src/adapters/http/direct-call.js";
import { createSkillRuntime, type SkillRuntime } from "../../../src/runtime.js";
import { startHttpServer, type HttpServer } from "../../support/mcp-server.js";
import { skillTree, type SkillTree } from "../mcp-fixtures.js";
import { initialize, POST_HEADERS, rawRequest, type RawAnswer } from "./support.js";

const tree: SkillTree = skillTree();
let server: HttpServer;
let runtime: SkillRuntime;
let connection: McpConnection;

before(async () => {
  server = await startHttpServer(["--root", tree.root, "--no-log", "--dedup", "connection"], { cwd: tree.cwd, env: tree.env });
  runtime = await createSkillRuntime({ sources: [{ path: tree.root, origin: "global" }], cwd: tree.cwd, home: tree.home });
  connection = createMcpConnection(runtime, { session: { log: false }, version: "0.0.0", log: () => {} });
});

after(async () => {
  await server?.stop();
  await connection?.close();
  await runtime?.close();
});

const SESSION_HEADERS = { ...POST_HEADERS, "mcp-protocol-version": "2025-06-18" };

async function session(url: URL = server.url): Promise<string> {
  const answer = await initialize(url);
  assert.ok(answer.sessionId, `initialize answered ${answer.status}`);
  await rawRequest(url, {
    headers: { ...SESSION_HEADERS, "mcp-session-id": answer.sessionId },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  return answer.sessionId;
}

function post(sessionId: string, body: unknown, headers: Record<string, string> = SESSION_HEADERS, url: URL = server.url): Promise<RawAnswer> {
  return rawRequest(url, { headers: { ...headers, "mcp-session-id": sessionId }, body: JSON.stringify(body) });
}

/** The JSON-RPC messages of an SSE answer (or of a JSON one). */
function messagesOf(answer: RawAnswer): unknown[] {
  if (answer.headers["content-type"]?.startsWith("application/json")) return [JSON.parse(answer.body)];
  return answer.body
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)) as unknown);
}

/** What a client sees of an answer: status, the headers that describe it, and its messages. */
function seen(answer: RawAnswer, sessionId: string): unknown {
  const { "content-type": contentType, "cache-control": cacheControl, "mcp-session-id": id } = answer.headers;
  return {
    status: answer.status,
    contentType,
    cacheControl,
    sessionHeader: id === sessionId ? "this session" : id,
    digestHeader: typeof answer.headers["skillport-registry-digest"],
    messages: messagesOf(answer),
  };
}

const CALLS: Array<Record<string, unknown> | unknown[] | undefined> = [
  {},
  { name: "alpha" },
  { name: "alpha" },
  { name: "alpha", file_path: "references/guide.md" },
  { name: "alpha", file_path: "../outside.md" },
  { name: "nope" },
  ["alpha"],
  undefined,
  { name: 7 },
];

test("a plain tools/call and the same call through the SDK's transport get the same answer, headers and all", async () => {
  const direct = await session();
  const viaSdk = await session();
  for (const [i, args] of CALLS.entries()) {
    const params = args === undefined ? { name: "skill" } : { name: "skill", arguments: args };
    const plain = await post(direct, { jsonrpc: "2.0", id: 100 + i, method: "tools/call", params });
    const throughSdk = await post(viaSdk, { jsonrpc: "2.0", id: 100 + i, method: "tools/call", params: { ...params, _meta: {} } });
    assert.deepEqual(seen(plain, direct), seen(throughSdk, viaSdk), `arguments ${JSON.stringify(args)}`);
  }
  // String ids too, as the SDK's message schema allows.
  const plain = await post(direct, { jsonrpc: "2.0", id: "call-1", method: "tools/call", params: { name: "skill", arguments: { name: "beta" } } });
  const throughSdk = await post(viaSdk, { jsonrpc: "2.0", id: "call-1", method: "tools/call", params: { name: "skill", arguments: { name: "beta" }, _meta: {} } });
  assert.deepEqual(seen(plain, direct), seen(throughSdk, viaSdk));
  assert.equal((messagesOf(plain)[0] as { id: unknown }).id, "call-1");
});

test("an error a session throws reaches the client the same on the direct path and through the transport: its code, message and data", { timeout: 60_000 }, async () => {
  // A library user's session factory (serveMcpHttp takes any), whose sessions refuse some calls
  // by throwing, as a host enforcing its own rules would: the SDK's McpError with a JSON-RPC
  // code and data, an error whose code is not a number, and a plain error.
  const refusing: McpSessionFactory = {
    registry: (scope) => runtime.registry(scope),
    session: (options) => {
      const real = runtime.session(options);
      return {
        ...real,
        invoke: async (args, callOptions) => {
          const name = (args as { name?: unknown } | undefined)?.name;
          if (name === "refused") throw new McpError(-32602, "refused by the host's policy", { rule: "no-refused" });
          if (name === "forbidden") throw new McpError(-32001, "not allowed in this workspace");
          if (name === "gone") throw Object.assign(new Error("the session has ended"), { code: "session_gone" });
          if (name === "broken") throw new Error("the store is unreachable");
          return real.invoke(args, callOptions);
        },
      };
    },
  };
  const serving = await serveMcpHttp(refusing, { session: { log: false }, version: "0.0.0", log: () => {} }, { port: 0 });
  try {
    const url = new URL(serving.url);
    const direct = await session(url);
    const viaSdk = await session(url);
    const errors: Array<{ code: number; message: string; data?: unknown }> = [];
    for (const [i, name] of ["refused", "forbidden", "gone", "broken", "alpha"].entries()) {
      const params = { name: "skill", arguments: { name } };
      const plain = await post(direct, { jsonrpc: "2.0", id: 200 + i, method: "tools/call", params }, SESSION_HEADERS, url);
      const throughSdk = await post(viaSdk, { jsonrpc: "2.0", id: 200 + i, method: "tools/call", params: { ...params, _meta: {} } }, SESSION_HEADERS, url);
      assert.deepEqual(seen(plain, direct), seen(throughSdk, viaSdk), name);
      const { error } = messagesOf(plain)[0] as { error?: { code: number; message: string; data?: unknown } };
      if (error) errors.push(error);
    }
    assert.deepEqual(errors, [
      { code: -32602, message: "MCP error -32602: refused by the host's policy", data: { rule: "no-refused" } },
      { code: -32001, message: "MCP error -32001: not allowed in this workspace" },
      { code: -32603, message: "the session has ended" },
      { code: -32603, message: "the store is unreachable" },
    ]);
  } finally {
    await serving.close();
  }
});

test("the direct path keeps the session: with --dedup connection a repeated activation is already_active, whichever path loaded it", async () => {
  const id = await session();
  const first = await post(id, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "skill", arguments: { name: "alpha" }, _meta: {} } });
  const again = await post(id, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "skill", arguments: { name: "alpha" } } });
  const status = (answer: RawAnswer): unknown =>
    (messagesOf(answer)[0] as { result: { structuredContent: { data: { status: string } } } }).result.structuredContent.data.status;
  assert.equal(status(first), "loaded");
  assert.equal(status(again), "already_active");
});

test("requests the transport treats differently still reach it: another tool, no or an unknown protocol version, a narrow Accept, a batch", async () => {
  const id = await session();
  const call = (n: number, extra: Record<string, unknown> = {}) => ({ jsonrpc: "2.0", id: n, method: "tools/call", params: { name: "skill", arguments: { name: "beta" }, ...extra } });

  const otherTool = messagesOf(await post(id, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "shell", arguments: {} } }));
  assert.equal((otherTool[0] as { error: { code: number } }).error.code, -32602);

  const { "mcp-protocol-version": _version, ...noVersion } = SESSION_HEADERS;
  const unversioned = await post(id, call(2), noVersion);
  assert.equal(unversioned.status, 200, "the transport lets a missing version header through");
  assert.equal((messagesOf(unversioned)[0] as { result: { isError?: boolean } }).result.isError, undefined);

  const unknownVersion = await post(id, call(3), { ...SESSION_HEADERS, "mcp-protocol-version": "1999-01-01" });
  assert.equal(unknownVersion.status, 400);
  assert.match(unknownVersion.body, /Unsupported protocol version/);

  const narrowAccept = await post(id, call(4), { ...SESSION_HEADERS, accept: "application/json" });
  assert.equal(narrowAccept.status, 406);

  const batch = messagesOf(await post(id, [call(5), call(6)]));
  assert.deepEqual(batch.map((m) => (m as { id: number }).id).sort(), [5, 6]);
});

/** The headers a request of the SDK's client carries, as Node hands them to the server. */
function request(headers: Record<string, string> = SESSION_HEADERS): http.IncomingMessage {
  return { headers } as unknown as http.IncomingMessage;
}

test("only a single plain tools/call of the offered tool takes the direct path", () => {
  const plain = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "skill", arguments: { name: "alpha" } } };
  assert.deepEqual(directToolCall(request(), plain, connection), { id: 1, args: { name: "alpha" } });
  assert.deepEqual(directToolCall(request(), { ...plain, id: "x" }, connection), { id: "x", args: { name: "alpha" } });
  assert.deepEqual(directToolCall(request(), { ...plain, params: { name: "skill" } }, connection), { id: 1, args: undefined });
  const declined: Array<[string, unknown, Record<string, string>?]> = [
    ["a batch", [plain]],
    ["another method", { ...plain, method: "tools/list" }],
    ["another tool", { ...plain, params: { name: "shell", arguments: {} } }],
    ["_meta in params", { ...plain, params: { ...plain.params, _meta: {} } }],
    ["a field the request schema does not know", { ...plain, extra: true }],
    ["a fractional id", { ...plain, id: 1.5 }],
    ["an id past the safe integers", { ...plain, id: 2 ** 53 }],
    ["no id (a notification)", { jsonrpc: "2.0", method: "tools/call", params: plain.params }],
    ["JSON-RPC 1.0", { ...plain, jsonrpc: "1.0" }],
    ["params as an array", { ...plain, params: ["skill"] }],
    ["no protocol version header", plain, { ...POST_HEADERS }],
    ["an unknown protocol version", plain, { ...SESSION_HEADERS, "mcp-protocol-version": "1999-01-01" }],
    ["an Accept without event streams", plain, { ...SESSION_HEADERS, accept: "application/json" }],
    ["a content type that is not JSON", plain, { ...SESSION_HEADERS, "content-type": "text/plain; x=application/json" }],
  ];
  for (const [what, body, headers] of declined) assert.equal(directToolCall(request(headers), body, connection), null, what);
});
