/**
 * Two real `skillport mcp --http 0 --store postgres://…` processes on one real PostgreSQL, and
 * real MCP SDK clients: any replica serves any session.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import postgres from "postgres";
import { serveMcpHttpReplicated } from "../../../src/adapters/http/stored-sessions.js";
import type { Envelope } from "../../../src/tool/envelope.js";
import { eventually } from "../../support/eventually.js";
import { startHttpServer, type HttpServer } from "../../support/mcp-server.js";
import { freshDatabase } from "../../support/postgres.js";
import { writeSkill } from "../../support/tmp.js";
import { callSkill, skillTree } from "../mcp-fixtures.js";
import { callInSession, initialize, INITIALIZE, POST_HEADERS, rawRequest, runtimesForBothServers } from "./support.js";

const db = await freshDatabase();

async function connect(url: URL): Promise<Client> {
  const client = new Client({ name: "replica-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

/** A client that continues `sessionId` through another replica, as a load balancer would send it. */
async function resume(url: URL, sessionId: string): Promise<Client> {
  const client = new Client({ name: "replica-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url, { sessionId }));
  return client;
}

function statusOf(envelope: Envelope): string | undefined {
  return (envelope.data as { status?: string } | null)?.status;
}

function sessionIdOf(client: Client): string {
  const id = (client.transport as StreamableHTTPClientTransport).sessionId;
  assert.ok(id);
  return id;
}

describe("MCP over HTTP on a shared store", { skip: db.skip ?? false }, () => {
  const tree = skillTree();
  let sql: postgres.Sql;
  let a: HttpServer;
  let b: HttpServer;

  const recordsOf = async (sessionId: string): Promise<Array<{ seq: number; type: string; record: Record<string, unknown> }>> => {
    const rows = await sql<Array<{ seq: number; record: Record<string, unknown> }>>`
      select seq, record from skillport_records where session_id = ${sessionId} order by seq`;
    return rows.map((row) => ({ seq: row.seq, type: String(row.record.type), record: row.record }));
  };

  before(async () => {
    sql = postgres(db.url!, { max: 2, onnotice: () => {} });
    const common = ["--root", tree.root, "--store", db.url!, "--dedup", "connection"];
    // Only B watches the skills: a change reaches A's streams through the store alone.
    [a, b] = await Promise.all([
      startHttpServer(common, { cwd: tree.cwd, env: tree.env }),
      startHttpServer([...common, "--watch"], { cwd: tree.cwd, env: tree.env }),
    ]);
  });

  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await sql?.end();
  });

  it("continues a session initialized on one replica on the other, with dedup intact", async () => {
    const onA = await connect(a.url);
    const id = sessionIdOf(onA);
    // The header and the pinned catalog were stored before initialize was answered.
    assert.deepEqual((await recordsOf(id)).map((r) => r.type), ["session", "catalog"]);
    assert.equal(statusOf((await callSkill(onA, { name: "alpha" })).envelope), "loaded");
    const onB = await resume(b.url, id);
    assert.equal(statusOf((await callSkill(onB, { name: "alpha" })).envelope), "already_active");
    assert.equal(statusOf((await callSkill(onA, { name: "alpha" })).envelope), "already_active");
    // Both replicas describe the tool from the session's pinned catalog.
    const [toolsA, toolsB] = await Promise.all([onA.listTools(), onB.listTools()]);
    assert.deepEqual(toolsB, toolsA);
    assert.match(toolsA.tools[0]!.description ?? "", /<name>alpha<\/name>/);
    const calls = (await recordsOf(id)).filter((r) => r.type === "call");
    assert.deepEqual(calls.map((r) => r.record.seq), [0, 1, 2]);
    await onA.close();
    await onB.close();
  });

  it("answers a retried request once, whichever replica the retry reaches", async () => {
    const init = await rawRequest(a.url, { headers: POST_HEADERS, body: INITIALIZE });
    const id = String(init.headers["mcp-session-id"]);
    const call = JSON.stringify({ jsonrpc: "2.0", id: 41, method: "tools/call", params: { name: "skill", arguments: { name: "beta" } } });
    const headers = { ...POST_HEADERS, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" };
    const first = await rawRequest(a.url, { headers, body: call });
    const retried = await rawRequest(b.url, { headers, body: call });
    assert.equal(first.status, 200);
    assert.equal(retried.status, 200);
    assert.deepEqual(JSON.parse(retried.body), JSON.parse(first.body));
    assert.equal(JSON.parse(first.body).result.structuredContent.data.status, "loaded");
    assert.equal((await recordsOf(id)).filter((r) => r.type === "call").length, 1);
    // Another request id is another call: this one is a repeat.
    const next = await rawRequest(b.url, { headers, body: call.replace('"id":41', '"id":42') });
    assert.equal(JSON.parse(next.body).result.structuredContent.data.status, "already_active");
  });

  it("ends a session everywhere with DELETE, with one durable end record", async () => {
    const onA = await connect(a.url);
    const id = sessionIdOf(onA);
    await callSkill(onA, { name: "alpha" });
    const headers = { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" };
    assert.equal((await rawRequest(b.url, { method: "DELETE", headers })).status, 200);
    const call = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "skill", arguments: { name: "beta" } } });
    const afterEnd = await rawRequest(a.url, { headers: { ...POST_HEADERS, ...headers }, body: call });
    assert.equal(afterEnd.status, 404);
    assert.equal((await rawRequest(a.url, { method: "DELETE", headers })).status, 404);
    assert.equal((await rawRequest(a.url, { method: "GET", headers: { ...headers, accept: "text/event-stream" } })).status, 404);
    const ends = (await recordsOf(id)).filter((r) => r.type === "end");
    assert.deepEqual(ends.map((r) => r.record.reason), ["deleted"]);
    await onA.close().catch(() => {});
  });

  it("refuses requests that are not part of a session it knows", async () => {
    const unknown = await rawRequest(a.url, {
      headers: { ...POST_HEADERS, "mcp-session-id": "no-such-session" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    assert.equal(unknown.status, 404);
    const noInit = await rawRequest(a.url, { headers: POST_HEADERS, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    assert.equal(noInit.status, 400);
  });

  it("opens a stream with a priming event id, and tells a resumed stream the lists may have changed", async () => {
    const init = await rawRequest(a.url, { headers: POST_HEADERS, body: INITIALIZE });
    const id = String(init.headers["mcp-session-id"]);
    const firstEvents = async (url: URL, headers: Record<string, string>, until: RegExp): Promise<string> =>
      new Promise((resolve, reject) => {
        const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: "GET", headers }, (res) => {
          let text = "";
          res.setEncoding("utf8").on("data", (chunk: string) => {
            text += chunk;
            if (until.test(text)) {
              req.destroy();
              resolve(text);
            }
          });
        });
        req.on("error", (error) => (until.test("") ? resolve("") : reject(error)));
        req.end();
      });
    const headers = { accept: "text/event-stream", "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" };
    const fresh = await firstEvents(b.url, headers, /data: \n\n/);
    assert.match(fresh, /^retry: 1000\nid: [0-9a-f-]+-\d+\ndata: \n\n/);
    assert.doesNotMatch(fresh, /list_changed/);
    const resumed = await firstEvents(b.url, { ...headers, "last-event-id": "gone-replica-7" }, /prompts\/list_changed/);
    for (const method of ["tools", "resources", "prompts"]) assert.match(resumed, new RegExp(`"method":"notifications/${method}/list_changed"`));
  });

  it("fans a change out to a stream held by the other replica", async () => {
    const onA = await connect(a.url);
    let changed = 0;
    onA.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed += 1;
    });
    // The client opens its GET stream on its own after initialize, at a moment this test cannot
    // see: a change made before that would reach no stream, so changes keep coming until one arrives.
    for (let index = 0; changed === 0 && index < 40; index += 1) {
      writeSkill(tree.root, `delta-${index}`, `name: delta-${index}\ndescription: Delta number ${index} arrived later.`);
      await eventually(() => changed > 0, "tools/list_changed on replica A's stream", 500).catch(() => {});
    }
    assert.ok(changed > 0, "no tools/list_changed reached replica A's stream");
    await onA.close();
  });
});

describe("idle sessions on a shared store", { skip: db.skip ?? false }, () => {
  it("are ended by exactly one replica", async () => {
    const tree = skillTree();
    const common = ["--root", tree.root, "--store", db.url!, "--idle-timeout", "1"];
    const [a, b] = await Promise.all([startHttpServer(common, { cwd: tree.cwd, env: tree.env }), startHttpServer(common, { cwd: tree.cwd, env: tree.env })]);
    const sql = postgres(db.url!, { max: 1, onnotice: () => {} });
    try {
      const init = await rawRequest(a.url, { headers: POST_HEADERS, body: INITIALIZE });
      const id = String(init.headers["mcp-session-id"]);
      const ends = async (): Promise<number> =>
        (await sql`select count(*)::int as n from skillport_records where session_id = ${id} and record->>'type' = 'end'`)[0]!.n as number;
      let count = 0;
      const deadline = Date.now() + 20_000;
      while (count === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        count = await ends();
      }
      // Both replicas sweep every 250 ms; give the loser time to have tried too.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.equal(await ends(), 1);
      const answer = await rawRequest(b.url, {
        headers: { ...POST_HEADERS, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
      });
      assert.equal(answer.status, 404);
    } finally {
      await sql.end();
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});

describe("a replica's memory of sessions", { skip: db.skip ?? false }, () => {
  const runtimes = runtimesForBothServers(skillTree(), db.url);

  it("holds exactly maxSessions sessions; one more evicts the least recently used, which is read back from the store on its next request", { timeout: 60_000 }, async () => {
    const served = await serveMcpHttpReplicated(runtimes.stored(), { session: { log: false }, version: "test", log: () => {} }, { port: 0, maxSessions: 2 });
    try {
      const url = new URL(served.url);
      const ids: string[] = [];
      for (let i = 0; i < 2; i++) ids.push((await initialize(url)).sessionId!);
      assert.equal(served.sessionsOpen(), 2);
      ids.push((await initialize(url)).sessionId!);
      assert.equal(served.sessionsOpen(), 2, "the first session was let go");
      const first = await callInSession(url, ids[0]!, { name: "alpha" });
      assert.equal(first.status, 200);
      assert.equal((first.result as { structuredContent: Envelope }).structuredContent.ok, true);
      assert.equal(served.sessionsOpen(), 2);
    } finally {
      await served.close();
    }
  });
});
