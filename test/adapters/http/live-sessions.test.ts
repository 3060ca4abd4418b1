import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import http from "node:http";
import * as path from "node:path";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { LoadedData } from "../../../src/tool/envelope.js";
import { serverCommand, startHttpServer, type HttpServer } from "../../support/mcp-server.js";
import { writeSkill } from "../../support/tmp.js";
import { callSkill, dataOf, readLogs, skillTree, type SkillTree } from "../mcp-fixtures.js";

const tree: SkillTree = skillTree();
let server: HttpServer;
let url: URL;

before(async () => {
  server = await startHttpServer(["--root", tree.root, "--log-dir", tree.logDir, "--dedup", "connection"], { cwd: tree.cwd, env: tree.env });
  url = server.url;
});

after(() => server?.stop());

async function connect(): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(url);
  const client = new Client({ name: "skillport-http-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

function rawRequest(options: { path: string; method: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: options.path, method: options.method, headers: options.headers }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});
const POST_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

test("it binds to 127.0.0.1 by default and serves one tool with the flat schema", async () => {
  assert.equal(url.hostname, "127.0.0.1");
  const { client } = await connect();
  try {
    const { tools } = await client.listTools();
    assert.equal(tools.length, 1);
    assert.equal(tools[0]!.name, "skill");
    assert.deepEqual(Object.keys(tools[0]!.inputSchema.properties ?? {}).sort(), ["file_path", "name"]);
    assert.equal(tools[0]!.annotations?.readOnlyHint, true);
    assert.doesNotMatch(client.getInstructions() ?? "", /<name>alpha<\/name>/, "the catalog rides in the tool description alone");
    const list = await callSkill(client, {});
    assert.equal(dataOf<{ count: number }>(list).count, 2, "alpha and beta; gated's variable is unset, so it is not offered");
    const read = await callSkill(client, { name: "alpha", file_path: "references/guide.md" });
    assert.equal(read.text, "# Guide\n\nThe alpha guide.\n");
    const missing = await callSkill(client, { name: "nope" });
    assert.equal(missing.isError, true);
    assert.equal(missing.envelope.ok === false && missing.envelope.error.code, "skill_not_found");
  } finally {
    await client.close();
  }
});

test("two clients at once keep separate sessions: each gets a fresh load, then (with --dedup connection) already_active", async () => {
  const a = await connect();
  const b = await connect();
  try {
    assert.ok(a.transport.sessionId && b.transport.sessionId);
    assert.notEqual(a.transport.sessionId, b.transport.sessionId);
    assert.equal(dataOf<LoadedData>(await callSkill(a.client, { name: "alpha" })).status, "loaded");
    assert.equal(dataOf<LoadedData>(await callSkill(b.client, { name: "alpha" })).status, "loaded");
    assert.equal(dataOf<{ status: string }>(await callSkill(a.client, { name: "alpha" })).status, "already_active");
    assert.equal(dataOf<{ status: string }>(await callSkill(b.client, { name: "alpha" })).status, "already_active");
    // One log per MCP session, named by its id.
    for (const id of [a.transport.sessionId!, b.transport.sessionId!]) {
      const [log] = readLogs(tree.logDir).filter((l) => path.basename(l.file) === `${id}.jsonl`);
      assert.ok(log, `no log for session ${id}`);
      assert.equal(log.calls.length, 2);
    }
  } finally {
    await a.transport.terminateSession();
    await a.client.close();
    await b.client.close();
  }
});

test("a skill written while the server runs activates on the first call", async () => {
  writeSkill(tree.root, "fresh-one", "name: fresh-one\ndescription: Created during the HTTP test.");
  const { client } = await connect();
  try {
    assert.equal(dataOf<LoadedData>(await callSkill(client, { name: "fresh-one" })).status, "loaded");
  } finally {
    await client.close();
  }
});

test("only /mcp is served, and unknown sessions and non-initialize first requests are refused", async () => {
  assert.equal((await rawRequest({ path: "/other", method: "POST", headers: POST_HEADERS, body: INITIALIZE })).status, 404);
  const unknown = await rawRequest({ path: "/mcp", method: "POST", headers: { ...POST_HEADERS, "mcp-session-id": "no-such-session" }, body: INITIALIZE });
  assert.equal(unknown.status, 404);
  const notInit = await rawRequest({
    path: "/mcp",
    method: "POST",
    headers: POST_HEADERS,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  assert.equal(notInit.status, 400);
  const garbage = await rawRequest({ path: "/mcp", method: "POST", headers: POST_HEADERS, body: "{not json" });
  assert.equal(garbage.status, 400);
  assert.equal(JSON.parse(garbage.body).error.code, -32700);
});

test("a request naming a foreign Host (DNS rebinding) is refused on a loopback bind", async () => {
  const rebound = await rawRequest({ path: "/mcp", method: "POST", headers: { ...POST_HEADERS, host: "attacker.example" }, body: INITIALIZE });
  assert.equal(rebound.status, 403);
  const foreignOrigin = await rawRequest({
    path: "/mcp",
    method: "POST",
    headers: { ...POST_HEADERS, origin: "https://attacker.example" },
    body: INITIALIZE,
  });
  assert.equal(foreignOrigin.status, 403);
  // The opaque origin any page can send from a sandboxed frame.
  const opaque = await rawRequest({ path: "/mcp", method: "POST", headers: { ...POST_HEADERS, origin: "null" }, body: INITIALIZE });
  assert.equal(opaque.status, 403);
});

test("an initialize the transport refuses leaves no session log behind", async () => {
  const logsNow = () => (fs.existsSync(tree.logDir) ? fs.readdirSync(tree.logDir).length : 0);
  const before = logsNow();
  const wrongType = await rawRequest({ path: "/mcp", method: "POST", headers: { ...POST_HEADERS, "content-type": "text/plain" }, body: INITIALIZE });
  assert.equal(wrongType.status, 415);
  const wrongAccept = await rawRequest({ path: "/mcp", method: "POST", headers: { ...POST_HEADERS, accept: "text/html" }, body: INITIALIZE });
  assert.equal(wrongAccept.status, 406);
  assert.equal(logsNow(), before);
});

test("a port already in use is a usage error (exit 2) that says what to do", async () => {
  const { command, args } = serverCommand(["--http", url.port, "--root", tree.root, "--no-log"]);
  const second = spawn(command, args, { cwd: tree.cwd, env: tree.env, stdio: ["ignore", "pipe", "pipe"] });
  let secondErr = "";
  second.stderr!.setEncoding("utf8").on("data", (chunk: string) => (secondErr += chunk));
  const code = await new Promise<number | null>((resolve) => second.once("exit", (c) => resolve(c)));
  assert.equal(code, 2);
  assert.match(secondErr, new RegExp(`port ${url.port} is already in use on 127\\.0\\.0\\.1; pick another with --http PORT`));
});

test("SIGTERM ends every session with its log flushed and exits 0", async () => {
  const { client } = await connect();
  await callSkill(client, { name: "beta" });
  const before = readLogs(tree.logDir).length;
  const exited = new Promise<number | null>((resolve) => server.child.once("exit", (code) => resolve(code)));
  server.child.kill("SIGTERM");
  assert.equal(await exited, 0);
  assert.match(server.stderr(), /shutting down \(SIGTERM\)/);
  const logs = readLogs(tree.logDir);
  assert.equal(logs.length, before);
  for (const log of logs) assert.equal(log.problems, 0);
  assert.ok(logs.some((log) => log.calls.some((c) => c.envelope.ok && (c.envelope.data as { name?: string }).name === "beta")));
  await client.close().catch(() => {});
});
