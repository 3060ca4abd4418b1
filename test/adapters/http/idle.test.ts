import assert from "node:assert/strict";
import * as path from "node:path";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { LoadedData } from "../../../src/tool/envelope.js";
import { eventually } from "../../support/eventually.js";
import { startHttpServer, type HttpServer } from "../../support/mcp-server.js";
import { callSkill, dataOf, readLogs, skillTree, type SkillTree } from "../mcp-fixtures.js";

const tree: SkillTree = skillTree();
let server: HttpServer;

before(async () => {
  server = await startHttpServer(["--root", tree.root, "--log-dir", tree.logDir, "--idle-timeout", "1"], { cwd: tree.cwd, env: tree.env });
});

after(() => server?.stop());

test("a client that vanishes without DELETE has its session ended after the idle timeout, log flushed", async () => {
  const transport = new StreamableHTTPClientTransport(server.url);
  const client = new Client({ name: "skillport-idle-test", version: "1.0.0" });
  await client.connect(transport);
  const id = transport.sessionId;
  assert.ok(id);
  assert.equal(dataOf<LoadedData>(await callSkill(client, { name: "alpha" })).status, "loaded");
  // close() drops the connection (and its open SSE stream) without DELETE, as a crashed client would.
  await client.close();

  await eventually(() => server.stderr().includes(`session ${id} idle`), "the idle expiry line");

  const [log] = readLogs(tree.logDir).filter((l) => path.basename(l.file) === `${id}.jsonl`);
  assert.ok(log, `no log for session ${id}`);
  assert.equal(log.problems, 0);
  assert.equal(log.calls.length, 1);
  assert.equal(log.calls[0]!.envelope.ok && (log.calls[0]!.envelope.data as { name?: string }).name, "alpha");

  // A client resuming the old session id is answered like any unknown session: 404.
  const stale = new Client({ name: "skillport-idle-test", version: "1.0.0" });
  await stale.connect(new StreamableHTTPClientTransport(server.url, { sessionId: id }));
  try {
    await assert.rejects(callSkill(stale, { name: "alpha" }), /404|Session not found/);
  } finally {
    await stale.close();
  }
  assert.equal(server.child.exitCode, null, "the server keeps running after expiring a session");
});
