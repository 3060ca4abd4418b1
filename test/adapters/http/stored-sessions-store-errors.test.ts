/**
 * A replica on a real PostgreSQL store, and what a client learns of the store: long JSON-RPC ids
 * work (and their retries get the stored answer), and a failing store's own text never reaches a
 * client. (Issue: an id over ~2.7 KB broke the call with `index row size 3096 exceeds btree
 * version 4 maximum 2704 for index "skillport_answers_pkey"`, sent to the client as it was.)
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { serveMcpHttpReplicated, type McpHttpReplicatedServing } from "../../../src/adapters/http/stored-sessions.js";
import { createSkillRuntime, type SkillRuntime } from "../../../src/runtime.js";
import { freshDatabase } from "../../support/postgres.js";
import { skillTree } from "../mcp-fixtures.js";
import { initialize, POST_HEADERS, rawRequest, type RawAnswer } from "./support.js";

const db = await freshDatabase();

describe("a replica's store, as a client sees it", { skip: db.skip ?? false }, () => {
  const tree = skillTree();
  const logged: string[] = [];
  let runtime: SkillRuntime;
  let serving: McpHttpReplicatedServing;
  let url: URL;

  before(async () => {
    runtime = await createSkillRuntime({ sources: [{ path: tree.root, origin: "global" }], cwd: tree.cwd, home: tree.home, env: {}, store: db.url! });
    serving = await serveMcpHttpReplicated(runtime, { session: { log: false }, version: "test", log: (line) => logged.push(line) }, { port: 0 });
    url = new URL(serving.url);
  });
  after(async () => {
    await serving?.close();
    await runtime?.close();
  });

  const call = (sessionId: string, id: unknown, skill: string): Promise<RawAnswer> =>
    rawRequest(url, {
      headers: { ...POST_HEADERS, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" },
      body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "skill", arguments: { name: skill } } }),
    });

  const statusOf = (answer: RawAnswer): unknown =>
    (JSON.parse(answer.body) as { result?: { structuredContent?: { data?: { status?: unknown } } } }).result?.structuredContent?.data?.status;

  test("a JSON-RPC id of any length is answered, and its retry gets the stored answer", { timeout: 120_000 }, async () => {
    const { sessionId } = await initialize(url);
    assert.ok(sessionId);
    // Random text does not compress: 3,000 characters are over the 2,704 bytes an index entry holds.
    const ids = [{ id: randomBytes(1500).toString("hex"), skill: "alpha" }, { id: randomBytes(512 * 1024).toString("hex"), skill: "beta" }];
    for (const { id, skill } of ids) {
      const first = await call(sessionId, id, skill);
      assert.equal(first.status, 200, first.body.slice(-300));
      assert.equal(statusOf(first), "loaded", `${id.length}-character id: ${first.body.slice(-300)}`);
      // A load balancer's retry: the stored answer, not a second load (`already_active`).
      const retry = await call(sessionId, id, skill);
      assert.equal(retry.body, first.body, `${id.length}-character id`);
    }
  });

  test("a failing store's text never reaches the client: it gets a correlation id, which the server log holds beside that text", { timeout: 60_000 }, async () => {
    const sql = (runtime.store as unknown as { sql: import("postgres").Sql }).sql;
    const { sessionId } = await initialize(url);
    assert.ok(sessionId);
    const correlationIdIn = (text: string): string => {
      const match = /correlation id ([0-9a-f-]+)/.exec(text);
      assert.ok(match, `a correlation id in ${text}`);
      return match[1]!;
    };
    /** The answer names a correlation id (in its message and its data) and none of the database's text; the log has that id beside the text. */
    const concealed = (answer: RawAnswer, databaseText: RegExp): void => {
      assert.doesNotMatch(answer.body, databaseText);
      const error = (JSON.parse(answer.body) as { error: { code: number; message: string; data: { correlationId: string } } }).error;
      const id = correlationIdIn(error.message);
      assert.equal(error.data.correlationId, id);
      assert.ok(logged.some((line) => line.includes(id) && databaseText.test(line)), logged.join("\n"));
    };

    // The store fails while the call appends its answer: the error comes back inside the MCP server.
    await sql.unsafe(`
      create or replace function refuse_answer() returns trigger language plpgsql as $$
      begin raise exception 'secret-database-text in skillport_answers'; end $$;
      create trigger refuse_answer before insert on skillport_answers for each row execute function refuse_answer();`);
    try {
      concealed(await call(sessionId, "call-1", "alpha"), /secret-database-text/);
    } finally {
      await sql.unsafe("drop trigger refuse_answer on skillport_answers");
    }

    // The store fails while the request catches up, before any MCP server exists.
    await sql.unsafe("alter table skillport_records rename to skillport_records_away");
    try {
      concealed(await call(sessionId, "call-2", "beta"), /skillport_records/);
    } finally {
      await sql.unsafe("alter table skillport_records_away rename to skillport_records");
    }
  });

  test("a store too slow to take a call's answer gets 503 with Retry-After, whether the call went through the SDK's transport or not", { timeout: 120_000 }, async () => {
    const sql = (runtime.store as unknown as { sql: import("postgres").Sql }).sql;
    const { sessionId } = await initialize(url);
    assert.ok(sessionId);
    const request = (body: Record<string, unknown>): Promise<RawAnswer> =>
      rawRequest(url, {
        headers: { ...POST_HEADERS, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" },
        body: JSON.stringify({ jsonrpc: "2.0", ...body }),
      });
    // Reading the session still works; only storing what a call did outlasts the deadline, so the
    // failure comes from inside the MCP server's handler, where the transport would wrap it in a 200.
    await sql.unsafe(`
      create or replace function slow_record() returns trigger language plpgsql as $$
      begin perform pg_sleep(30); return new; end $$;
      create trigger slow_record before insert on skillport_records for each row execute function slow_record();`);
    try {
      const answers = {
        "a prompt": await request({ id: "p-1", method: "prompts/get", params: { name: "alpha" } }),
        "a call carrying _meta": await request({ id: "m-1", method: "tools/call", params: { name: "skill", arguments: { name: "alpha" }, _meta: { progressToken: 1 } } }),
        "a plain call": await request({ id: "c-1", method: "tools/call", params: { name: "skill", arguments: { name: "beta" } } }),
      };
      for (const [what, answer] of Object.entries(answers)) {
        assert.equal(answer.status, 503, `${what}: ${answer.body}`);
        assert.equal(answer.headers["retry-after"], "1", what);
        const error = (JSON.parse(answer.body) as { id: unknown; error: { code: number; message: string } }).error;
        assert.equal(error.code, -32003, what);
        assert.match(error.message, /^Session store unavailable: it did not answer in time; retry in 1 s \(correlation id [0-9a-f]{12}\)$/, what);
        assert.doesNotMatch(answer.body, /pg_sleep|slow_record|skillport_records|canceling/, what);
      }
    } finally {
      await sql.unsafe("drop trigger slow_record on skillport_records");
    }
    // Nothing was stored behind the client's back: the call that got 503 loads its skill fresh now.
    const again = await request({ id: "m-2", method: "tools/call", params: { name: "skill", arguments: { name: "alpha" }, _meta: { progressToken: 2 } } });
    assert.equal(again.status, 200, again.body);
    assert.equal(statusOf(again), "loaded");
  });
});
