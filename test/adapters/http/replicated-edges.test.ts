/**
 * Edges of the replicated server (sessions in PostgreSQL): pruning agrees with `--session-ttl`
 * about what 0 means (never; a prune of "everything older than 0" is refused, since it would
 * delete the live sessions too), a session pruned from under a replica that still holds it
 * answers 404 like any session gone, and a cancellation naming no session is refused rather than
 * passed on to every replica.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import postgres from "postgres";
import { serveMcpHttpReplicated } from "../../../src/adapters/http/stored-sessions.js";
import { postgresStore } from "../../../src/session/store-postgres.js";
import { runCli } from "../../cli/cli-process.js";
import { freshDatabase } from "../../support/postgres.js";
import { skillTree } from "../mcp-fixtures.js";
import { callInSession, initialize, POST_HEADERS, rawRequest, runtimesForBothServers } from "./support.js";

const db = await freshDatabase();
const tree = skillTree();
const runtimes = runtimesForBothServers(tree, db.url);
const serverOptions = { session: { log: false as const }, version: "test", log: () => {} };

describe("the replicated server's edges", { skip: db.skip ?? false }, () => {
  let sql: postgres.Sql;
  before(() => {
    sql = postgres(db.url!, { max: 1, onnotice: () => {} });
  });
  after(async () => {
    await sql?.end();
  });

  test("store prune --older-than 0 is a usage error that deletes nothing, as --session-ttl 0 means never; 1 is the least it takes", { timeout: 90_000 }, async () => {
    const served = await serveMcpHttpReplicated(runtimes.stored(), serverOptions, { port: 0, sessionTtlMs: 0 });
    try {
      const { sessionId } = await initialize(new URL(served.url));
      assert.ok(sessionId);
      const run = await runCli(["store", "prune", db.url!, "--older-than", "0"], { cwd: tree.cwd, env: tree.env });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /--older-than 0 would delete every session, live ones included/);
      assert.ok((await sql`select 1 from skillport_records where session_id = ${sessionId}`).length > 0, "the live session is kept");
      const store = await postgresStore(db.url!, { maxConnections: 1 });
      try {
        await assert.rejects(store.prune(0), /olderThanMs must be more than 0/);
        assert.ok((await sql`select 1 from skillport_records where session_id = ${sessionId}`).length > 0);
      } finally {
        await store.close();
      }
      const one = await runCli(["store", "prune", db.url!, "--older-than", "1", "--json"], { cwd: tree.cwd, env: tree.env });
      assert.equal(one.code, 0, one.stderr);
    } finally {
      await served.close();
    }
  });

  test("a session pruned while a replica holds it answers 404 (not 200 with an internal error) to a call, a list and a stream", { timeout: 90_000 }, async () => {
    const served = await serveMcpHttpReplicated(runtimes.stored(), serverOptions, { port: 0, sessionTtlMs: 0 });
    try {
      const url = new URL(served.url);
      const { sessionId } = await initialize(url);
      assert.ok(sessionId);
      assert.equal((await callInSession(url, sessionId, { name: "alpha" })).status, 200);
      await sql`update skillport_records set written_at = now() - interval '2 hours' where session_id = ${sessionId}`;
      await sql`update skillport_activity set last_active = now() - interval '2 hours' where session_id = ${sessionId}`;
      const run = await runCli(["store", "prune", db.url!, "--older-than", "3600", "--json"], { cwd: tree.cwd, env: tree.env });
      assert.equal(run.code, 0, run.stderr);
      assert.equal((await sql`select 1 from skillport_records where session_id = ${sessionId}`).length, 0, "pruned");

      const call = await callInSession(url, sessionId, { name: "beta" });
      assert.equal(call.status, 404, JSON.stringify(call.result));
      const headers = { ...POST_HEADERS, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" };
      const list = await rawRequest(url, { headers, body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list", params: {} }) });
      assert.equal(list.status, 404, list.body);
      const stream = await rawRequest(url, { method: "GET", headers: { accept: "text/event-stream", "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" } });
      assert.equal(stream.status, 404, stream.body);
    } finally {
      await served.close();
    }
  });

  test("notifications/cancelled for a session that does not exist is answered 404 and reaches no replica", { timeout: 90_000 }, async () => {
    const served = await serveMcpHttpReplicated(runtimes.stored(), serverOptions, { port: 0 });
    const heard: string[] = [];
    try {
      const url = new URL(served.url);
      const cancel = (sessionId: string) =>
        rawRequest(url, {
          headers: { ...POST_HEADERS, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" },
          body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5, reason: "x" } }),
        });
      const store = await postgresStore(db.url!, { maxConnections: 1 });
      const subscription = await store.subscribe((message) => void heard.push(JSON.stringify(message)), () => {});
      try {
        const unknown = await cancel("00000000-0000-4000-8000-000000000000");
        assert.equal(unknown.status, 404, unknown.body);
        const { sessionId } = await initialize(url);
        assert.ok(sessionId);
        const known = await cancel(sessionId);
        assert.equal(known.status, 202);
        // The known session's cancellation is published; once it has arrived, the unknown one would have too.
        const deadline = Date.now() + 20_000;
        while (!heard.some((message) => message.includes(sessionId)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
        assert.ok(heard.some((message) => message.includes(sessionId)), "the known session's cancellation was published");
        assert.equal(heard.filter((message) => message.includes("00000000-0000-4000-8000-000000000000")).length, 0, heard.join("\n"));
      } finally {
        await subscription.close();
        await store.close();
      }
    } finally {
      await served.close();
    }
  });
});
