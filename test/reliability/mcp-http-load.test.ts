/**
 * Load over Streamable HTTP: 20 MCP clients connect to one `skillport mcp --http 0` server
 * (loopback only) at once and work through the same call sequence concurrently. Every call
 * must be answered with a well-formed envelope, each client must have its own session (its
 * first activation is always fresh, its log holds only its own calls), and the test process
 * sees no unhandled rejection.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Envelope, LoadedData } from "../../src/tool/envelope.js";
import { readLogs } from "../adapters/mcp-fixtures.js";
import { eventually } from "../support/eventually.js";
import { startHttpServer, type HttpServer } from "../support/mcp-server.js";
import { realTempDir } from "../support/tmp.js";
import { assertEnvelope, childEnv, recordUnhandledRejections, withinBound, writeSkillDir } from "./support.js";

const CLIENTS = 20;
const unhandled = recordUnhandledRejections();
const root = realTempDir("skillport-mcp-http-load");
const skills = path.join(root, "skills");
const logDir = path.join(root, "logs");
writeSkillDir(skills, "shared", { body: "# shared\n\nEvery client loads this one." });
for (let i = 0; i < CLIENTS; i++) writeSkillDir(skills, `own-${String(i).padStart(2, "0")}`);

let server: HttpServer;
let url: URL;

before(async () => {
  server = await startHttpServer(["--root", skills, "--log-dir", logDir, "--dedup", "connection"], { cwd: root, env: childEnv(root) });
  url = server.url;
});

after(() => server?.stop());

async function call(client: Client, args: Record<string, unknown>): Promise<Envelope> {
  const result = await withinBound(client.callTool({ name: "skill", arguments: args }), `tools/call ${JSON.stringify(args)}`);
  const envelope = result.structuredContent as unknown;
  assertEnvelope(envelope, JSON.stringify(args));
  assert.equal(result.isError === true, !envelope.ok, "isError mirrors the envelope");
  return envelope;
}

const statusOf = (envelope: Envelope) => (envelope.ok ? (envelope.data as { status?: string }).status ?? "list" : envelope.error!.code);

/** One client's conversation; returns its session id and the status of each call in order. */
async function conversation(index: number): Promise<{ sessionId: string; statuses: string[]; ownName: string }> {
  const ownName = `own-${String(index).padStart(2, "0")}`;
  const transport = new StreamableHTTPClientTransport(url);
  const client = new Client({ name: `load-client-${index}`, version: "1.0.0" });
  await withinBound(client.connect(transport), `client ${index} connecting`);
  try {
    const statuses: string[] = [];
    const list = await call(client, {});
    assert.equal((list.data as { count: number }).count, CLIENTS + 1);
    statuses.push(statusOf(list));
    const first = await call(client, { name: "shared" });
    assert.match((first.data as LoadedData).content ?? "", /Every client loads this one/);
    statuses.push(statusOf(first));
    statuses.push(statusOf(await call(client, { name: "shared" })));
    statuses.push(statusOf(await call(client, { name: ownName })));
    statuses.push(statusOf(await call(client, { name: ownName, file_path: "SKILL.md" })));
    statuses.push(statusOf(await call(client, { name: "missing-everywhere" })));
    statuses.push(statusOf(await call(client, { name: ownName, file_path: "../../etc/passwd" })));
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    return { sessionId, statuses, ownName };
  } finally {
    await client.close();
  }
}

test(`${CLIENTS} concurrent MCP clients over HTTP each get their own session and a well-formed answer to every call`, async () => {
  const results = await withinBound(Promise.all(Array.from({ length: CLIENTS }, (_, i) => conversation(i))), `${CLIENTS} conversations`);
  const expected = ["list", "loaded", "already_active", "loaded", "file_loaded", "skill_not_found", "skill_read_error"];
  for (const [index, result] of results.entries()) assert.deepEqual(result.statuses, expected, `client ${index}`);
  assert.equal(new Set(results.map((r) => r.sessionId)).size, CLIENTS, "one MCP session per client");

  // Terminated sessions flush their logs; each log holds exactly its own client's calls.
  await eventually(() => readLogs(logDir).length === CLIENTS, "one log per session");
  const logs = readLogs(logDir);
  for (const result of results) {
    const log = logs.find((l) => path.basename(l.file) === `${result.sessionId}.jsonl`);
    assert.ok(log, `no log for session ${result.sessionId}`);
    assert.equal(log.problems, 0);
    assert.equal(log.calls.length, expected.length, `session ${result.sessionId} logged ${log.calls.length} calls`);
    const named = new Set(log.calls.map((c) => (c.args as { name?: string }).name).filter((n): n is string => typeof n === "string"));
    for (const name of named) assert.ok(["shared", result.ownName, "missing-everywhere"].includes(name), `${name} crossed into ${result.ownName}'s session`);
  }
  assert.deepEqual(unhandled, [], "no unhandled rejection in the clients");
  assert.equal(server.child.exitCode, null, "the server is still up");
  assert.doesNotMatch(server.stderr(), /unhandled|TypeError|ReferenceError/i, "the server logged no crash");
});
