/**
 * The replicated HTTP server as an operator runs it (SPEC §9, "Operating it"): real
 * `skillport mcp --http 0 --store postgres://…` processes on a real PostgreSQL, raw HTTP as a
 * client or a load balancer sends it. A database that freezes or restarts, a cancelled call,
 * retention, draining on SIGTERM, a replica on other skills, metrics, and what a call costs.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";
import postgres from "postgres";
import { CLI_MAIN, REPO, runCli, TSX_LOADER } from "../../cli/cli-process.js";
import { eventually } from "../../support/eventually.js";
import { startHttpServer, type HttpServer } from "../../support/mcp-server.js";
import { databaseOn, freshDatabase, ownServer, type OwnServer } from "../../support/postgres.js";
import { tempDir, writeSkill } from "../../support/tmp.js";
import { skillTree } from "../mcp-fixtures.js";
import { INITIALIZE, POST_HEADERS, rawRequest, type RawAnswer } from "./support.js";

const db = await freshDatabase();

const SESSION_HEADERS = { ...POST_HEADERS, "mcp-protocol-version": "2025-06-18" };

function endpoint(server: HttpServer, path: string): URL {
  return new URL(path, server.url);
}

async function initialize(server: HttpServer): Promise<string> {
  const answer = await rawRequest(server.url, { headers: POST_HEADERS, body: INITIALIZE });
  assert.equal(answer.status, 200, answer.body);
  return String(answer.headers["mcp-session-id"]);
}

interface RpcAnswer extends RawAnswer {
  message: { result?: { structuredContent?: { data?: { status?: string } | null; error?: { code?: string } | null } }; error?: { code: number; message: string; data?: unknown } };
}

async function rpc(server: HttpServer, sessionId: string, body: Record<string, unknown>): Promise<RpcAnswer> {
  const answer = await rawRequest(server.url, { headers: { ...SESSION_HEADERS, "mcp-session-id": sessionId }, body: JSON.stringify({ jsonrpc: "2.0", ...body }) });
  const text = answer.body.trim();
  const data = text.startsWith("{") ? text : (text.split("\n").filter((line) => line.startsWith("data: ")).at(-1)?.slice(6) ?? "{}");
  return { ...answer, message: JSON.parse(data || "{}") as RpcAnswer["message"] };
}

function callSkill(server: HttpServer, sessionId: string, id: number, args: Record<string, unknown>): Promise<RpcAnswer> {
  return rpc(server, sessionId, { id, method: "tools/call", params: { name: "skill", arguments: args } });
}

function statusOf(answer: RpcAnswer): string | undefined {
  return answer.message.result?.structuredContent?.data?.status;
}

async function get(server: HttpServer, path: string): Promise<RawAnswer> {
  return rawRequest(endpoint(server, path), { method: "GET" });
}

/** The call records of a session, as stored. */
async function callsOf(sql: postgres.Sql, sessionId: string): Promise<Array<{ name?: string }>> {
  const rows = await sql<Array<{ name: string | null }>>`
    select record->'args'->>'name' as name from skillport_records where session_id = ${sessionId} and record->>'type' = 'call' order by seq`;
  return rows.map((row) => (row.name !== null ? { name: row.name } : {}));
}

/** Holds an EXCLUSIVE lock on the records table (reads pass, appends wait) until released. */
async function lockRecords(sql: postgres.Sql): Promise<{ waiting(): Promise<number>; release(): Promise<void> }> {
  const reserved = await sql.reserve();
  await reserved`begin`;
  await reserved`lock table skillport_records in exclusive mode`;
  return {
    waiting: async () => (await sql<Array<{ n: number }>>`select count(*)::int as n from pg_locks where relation = 'skillport_records'::regclass and not granted`)[0]!.n,
    async release() {
      await reserved`rollback`;
      reserved.release();
    },
  };
}

async function until(check: () => Promise<boolean>, what: string, boundMs = 20_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Every sample line of a Prometheus text exposition, checked line by line, by `name{labels}`. A
 * value is a float as Go parses one (so `NaN` in any case, which the client library writes `Nan`).
 */
function parsePrometheus(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    if (line.startsWith("# HELP ") || line.startsWith("# TYPE ")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})? (-?[0-9.eE+-]+|[Nn][Aa][Nn]|[+-]Inf)$/.exec(line);
    assert.ok(match, `not a Prometheus sample line: ${JSON.stringify(line)}`);
    samples.set(`${match[1]}${match[2] ?? ""}`, Number(match[3]));
  }
  return samples;
}

function sum(samples: Map<string, number>, name: string): number {
  let total = 0;
  for (const [key, value] of samples) if (key === name || key.startsWith(`${name}{`)) total += value;
  return total;
}

const DRIVER_TEXT = /postgres|ECONN|CONNECT_TIMEOUT|statement|canceling|57014|select|insert|skillport_records/i;

describe("a replica whose database freezes or restarts", { timeout: 240_000 }, () => {
  let pg: OwnServer | null = null;
  let skip: string | false = false;
  let replica: HttpServer;
  let sql: postgres.Sql;

  before(async () => {
    const own = await ownServer();
    if ("skip" in own) {
      skip = own.skip;
      return;
    }
    pg = own;
    const url = await databaseOn(own);
    const tree = skillTree();
    sql = postgres(url, { max: 1, onnotice: () => {} });
    replica = await startHttpServer(["--root", tree.root, "--store", url, "--store-timeout", "1"], { cwd: tree.cwd, env: tree.env });
  });

  after(async () => {
    pg?.thaw();
    await replica?.stop();
    await sql?.end({ timeout: 1 }).catch(() => {});
    await pg?.stop();
  });

  it("answers 503 with Retry-After while the database is frozen, /readyz 503, and serves again after it resumes", { timeout: 90_000 }, async (t) => {
    if (skip) return t.skip(skip);
    const id = await initialize(replica);
    assert.equal(statusOf(await callSkill(replica, id, 2, { name: "alpha" })), "loaded");
    assert.equal((await get(replica, "/readyz")).status, 200);
    pg!.freeze();
    try {
      const frozen = await callSkill(replica, id, 3, { name: "beta" });
      assert.equal(frozen.status, 503);
      assert.equal(frozen.headers["retry-after"], "1");
      assert.equal(frozen.message.error?.code, -32003);
      assert.match(frozen.message.error!.message, /^Session store unavailable: .*correlation id ([0-9a-f]{12})\)$/);
      assert.doesNotMatch(frozen.message.error!.message, DRIVER_TEXT);
      const correlation = /correlation id ([0-9a-f]{12})/.exec(frozen.message.error!.message)![1]!;
      // The driver's words are in the server's log, under the id the client was given.
      assert.match(replica.stderr(), new RegExp(`\\[${correlation}\\] session store unavailable: `));
      const ready = await get(replica, "/readyz");
      assert.equal(ready.status, 503);
      assert.equal(JSON.parse(ready.body).store, "unavailable");
      assert.equal((await get(replica, "/healthz")).status, 200);
    } finally {
      pg!.thaw();
    }
    await until(async () => (await get(replica, "/readyz")).status === 200, "/readyz 200 after the database resumed");
    const resumed = await callSkill(replica, id, 4, { name: "beta" });
    assert.equal(resumed.status, 200);
    // The call that got 503 was not stored behind the client's back: beta loads fresh now.
    assert.equal(statusOf(resumed), "loaded");
    assert.deepEqual((await callsOf(sql, id)).map((c) => c.name), ["alpha", "beta"]);
  });

  it("serves again soon after a restarted database is back, not after a growing backoff", { timeout: 90_000 }, async (t) => {
    if (skip) return t.skip(skip);
    const id = await initialize(replica);
    // Several restarts in a row: the driver's own backoff grows with each failed attempt.
    for (let round = 0; round < 3; round += 1) {
      await pg!.restart();
      const back = Date.now();
      let answered: RpcAnswer | null = null;
      for (let attempt = 0; attempt < 200; attempt += 1) {
        const call = await callSkill(replica, id, 10 + round * 1000 + attempt, { name: round === 0 ? "alpha" : "beta" });
        assert.ok(call.status === 200 || call.status === 503, `answered ${call.status}: ${call.body}`);
        if (call.status === 200) {
          answered = call;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.ok(answered, "never served after the restart");
      // Generous: the capped backoff makes it about 1 s; the driver's own curve took 16–20 s.
      assert.ok(Date.now() - back < 8000, `served ${Date.now() - back} ms after the database was back`);
    }
  });
});

describe("operating replicas on a shared store", { skip: db.skip ?? false, timeout: 300_000 }, () => {
  const tree = skillTree();
  let sql: postgres.Sql;
  let a: HttpServer;
  let b: HttpServer;

  before(async () => {
    sql = postgres(db.url!, { max: 3, onnotice: () => {} });
    const common = ["--root", tree.root, "--store", db.url!, "--store-timeout", "20", "--metrics", "--dedup", "connection"];
    [a, b] = await Promise.all([startHttpServer(common, { cwd: tree.cwd, env: tree.env }), startHttpServer(common, { cwd: tree.cwd, env: tree.env })]);
  });

  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await sql?.end();
  });

  it("does not store a call cancelled before it commits, whichever replica the cancellation reaches", { timeout: 60_000 }, async () => {
    const id = await initialize(a);
    const lock = await lockRecords(sql);
    try {
      const local = callSkill(a, id, 7, { name: "alpha" });
      await until(async () => (await lock.waiting()) > 0, "the call's append waiting on the lock");
      const cancel = await rpc(a, id, { method: "notifications/cancelled", params: { requestId: 7, reason: "client timeout" } });
      assert.equal(cancel.status, 202);
      const cancelled = await local;
      assert.equal(cancelled.status, 200);
      assert.equal(cancelled.message.error?.code, -32800);
      await until(async () => (await lock.waiting()) === 0, "the cancelled append to leave the lock queue");
      // Sent to the other replica: it passes the cancellation on through the store.
      const remote = callSkill(a, id, 8, { name: "beta" });
      await until(async () => (await lock.waiting()) > 0, "the second call's append waiting on the lock");
      assert.equal((await rpc(b, id, { method: "notifications/cancelled", params: { requestId: 8 } })).status, 202);
      assert.equal((await remote).message.error?.code, -32800);
    } finally {
      await lock.release();
    }
    assert.deepEqual(await callsOf(sql, id), []);
    // Never stored, so never active: the next activation loads it (no `already_active` for instructions never received).
    assert.equal(statusOf(await callSkill(b, id, 9, { name: "alpha" })), "loaded");
  });

  it("counts what it did in /metrics, in the Prometheus text format", { timeout: 60_000 }, async () => {
    const before = parsePrometheus((await get(a, "/metrics")).body);
    const id = await initialize(a);
    assert.equal(statusOf(await callSkill(a, id, 2, { name: "alpha" })), "loaded");
    assert.equal(statusOf(await callSkill(a, id, 3, { name: "alpha" })), "already_active");
    const first = await callSkill(a, id, 4, { name: "beta" });
    const replayed = await callSkill(a, id, 4, { name: "beta" });
    assert.deepEqual(replayed.message, first.message);
    const page = await get(a, "/metrics");
    assert.equal(page.status, 200);
    assert.match(String(page.headers["content-type"]), /^text\/plain; version=0\.0\.4/);
    const samples = parsePrometheus(page.body);
    const delta = (key: string): number => (samples.get(key) ?? 0) - (before.get(key) ?? 0);
    assert.equal(delta('skillport_tool_calls_total{outcome="loaded"}'), 2);
    assert.equal(delta('skillport_tool_calls_total{outcome="already_active"}'), 1);
    assert.equal(delta('skillport_tool_calls_total{outcome="replayed"}'), 1);
    assert.equal(delta("skillport_idempotent_replays_total"), 1);
    assert.equal(delta("skillport_tool_call_duration_seconds_count"), 4);
    assert.ok(delta('skillport_http_requests_total{method="POST",status="200"}') >= 5);
    assert.ok(sum(samples, "skillport_store_queries_total") > sum(before, "skillport_store_queries_total"));
    assert.ok((samples.get('skillport_store_query_duration_seconds_count{operation="append"}') ?? 0) >= 3);
    assert.equal(samples.get("skillport_registry_skills"), 3);
    assert.ok((samples.get("skillport_sessions_open") ?? 0) >= 1);
    for (const name of ["skillport_store_pool_in_use", "skillport_append_conflicts_total", "skillport_registry_diagnostics", "skillport_registry_refreshes_total", "skillport_errors_total"]) {
      assert.ok(page.body.includes(`# TYPE ${name} `), `${name} is exposed`);
    }
  });

  it("sends at most 2 statements to the store per tool call, and 1 read per tools/list", { timeout: 60_000 }, async () => {
    const id = await initialize(a);
    await callSkill(a, id, 2, { name: "alpha" });
    // What requests send: the replica's own timers (idle sweep, prune) are labelled apart, and a
    // heartbeat (a read and an append like any other) is seen in the store and the window retried.
    const perRequest = new Set(["read", "append", "touch", "forget", "publish"]);
    const queries = async (): Promise<number> => {
      let total = 0;
      for (const [key, value] of parsePrometheus((await get(a, "/metrics")).body)) {
        const operation = /^skillport_store_queries_total\{operation="([a-z_]+)"/.exec(key)?.[1];
        if (operation !== undefined && perRequest.has(operation)) total += value;
      }
      return total;
    };
    const beats = async (): Promise<number> => (await sql<Array<{ n: number }>>`select count(*)::int as n from skillport_records where principal = 'skillport:replicas'`)[0]!.n;
    const measure = async (requests: number, send: (index: number) => Promise<void>): Promise<number> => {
      for (let attempt = 0; ; attempt += 1) {
        const [startBeats, start] = [await beats(), await queries()];
        for (let index = 0; index < requests; index += 1) await send(attempt * 1000 + index);
        const sent = (await queries()) - start;
        if ((await beats()) === startBeats || attempt === 3) return sent;
      }
    };
    const calls = 12;
    const forCalls = await measure(calls, async (index) => {
      const args = index % 3 === 0 ? { name: "beta" } : { name: "alpha", file: "references/guide.md" };
      assert.equal((await callSkill(a, id, 100 + index, args)).status, 200);
    });
    assert.ok(forCalls <= 2 * calls, `${forCalls} statements for ${calls} tool calls`);
    const lists = 12;
    const forLists = await measure(lists, async (index) => {
      assert.equal((await rpc(a, id, { id: 50_000 + index, method: "tools/list" })).status, 200);
    });
    // One read each; the session's activity reaches the store at most once every 5 s on its own.
    assert.ok(forLists <= lists + 1, `${forLists} statements for ${lists} tools/list requests`);
  });
});

describe("a replica serving other skills than a session was started on", { skip: db.skip ?? false, timeout: 120_000 }, () => {
  it("answers 409 naming both registry digests, and stores nothing", { timeout: 90_000 }, async () => {
    const v1 = skillTree();
    const v2 = skillTree();
    writeSkill(v2.root, "gamma", "name: gamma\ndescription: Gamma only exists in the second version.");
    const sql = postgres(db.url!, { max: 1, onnotice: () => {} });
    const [old, next] = await Promise.all([
      startHttpServer(["--root", v1.root, "--store", db.url!], { cwd: v1.cwd, env: v1.env }),
      startHttpServer(["--root", v2.root, "--store", db.url!], { cwd: v2.cwd, env: v2.env }),
    ]);
    try {
      const id = await initialize(old);
      // Read from an MCP answer: probes carry no digest.
      const pinned = String((await get(old, "/mcp")).headers["skillport-registry-digest"]);
      const serving = String((await get(next, "/mcp")).headers["skillport-registry-digest"]);
      assert.notEqual(pinned, serving);
      const refused = await callSkill(next, id, 2, { name: "alpha" });
      assert.equal(refused.status, 409);
      assert.ok(refused.message.error!.message.includes(pinned) && refused.message.error!.message.includes(serving), refused.message.error!.message);
      assert.deepEqual(refused.message.error!.data, { sessionDigest: pinned, replicaDigest: serving });
      const stream = await rawRequest(next.url, { method: "GET", headers: { accept: "text/event-stream", "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" } });
      assert.equal(stream.status, 409);
      assert.equal((await rpc(next, id, { id: 3, method: "tools/list" })).status, 409);
      assert.deepEqual(await callsOf(sql, id), []);
      // The replica on the session's skills serves it as ever.
      assert.equal(statusOf(await callSkill(old, id, 4, { name: "alpha" })), "loaded");
    } finally {
      await sql.end();
      await Promise.all([old.stop(), next.stop()]);
    }
  });
});

describe("draining on SIGTERM", { skip: db.skip ?? false, timeout: 120_000 }, () => {
  it("refuses new sessions and turns /readyz 503, finishes the call in flight, then exits 0", { timeout: 90_000 }, async () => {
    const tree = skillTree();
    const sql = postgres(db.url!, { max: 3, onnotice: () => {} });
    const replica = await startHttpServer(["--root", tree.root, "--store", db.url!, "--store-timeout", "30", "--drain-timeout", "60"], { cwd: tree.cwd, env: tree.env });
    const exited = new Promise<number | null>((resolve) => replica.child.once("exit", (code) => resolve(code)));
    try {
      const id = await initialize(replica);
      const lock = await lockRecords(sql);
      let inFlight: Promise<RpcAnswer>;
      try {
        inFlight = callSkill(replica, id, 2, { name: "alpha" });
        await until(async () => (await lock.waiting()) > 0, "the call's append waiting on the lock");
        replica.child.kill("SIGTERM");
        await eventually(() => replica.stderr().includes("draining:"), "the drain to begin");
        const ready = await get(replica, "/readyz");
        assert.equal(ready.status, 503);
        assert.equal(JSON.parse(ready.body).status, "draining");
        const refused = await rawRequest(replica.url, { headers: POST_HEADERS, body: INITIALIZE });
        assert.equal(refused.status, 503);
        assert.equal(refused.headers["mcp-session-id"], undefined);
      } finally {
        await lock.release();
      }
      const answered = await inFlight;
      assert.equal(answered.status, 200);
      assert.equal(statusOf(answered), "loaded");
      assert.equal(await exited, 0);
      assert.match(replica.stderr(), /drained: every request in flight was answered/);
      assert.deepEqual((await callsOf(sql, id)).map((c) => c.name), ["alpha"]);
    } finally {
      await sql.end();
      await replica.stop();
    }
  });
});

describe("retention on a shared store", { skip: db.skip ?? false, timeout: 180_000 }, () => {
  const rowCounts = async (sql: postgres.Sql, sessionIds: readonly string[]): Promise<number> => {
    const [row] = await sql<Array<{ n: number }>>`
      select ((select count(*) from skillport_records where session_id = any(${sessionIds}))
            + (select count(*) from skillport_answers where session_id = any(${sessionIds}))
            + (select count(*) from skillport_activity where session_id = any(${sessionIds})))::int as n`;
    return row!.n;
  };

  it("deletes ended and idle sessions after --session-ttl, so the tables stay flat under churn", { timeout: 150_000 }, async () => {
    const tree = skillTree();
    const sql = postgres(db.url!, { max: 1, onnotice: () => {} });
    const replica = await startHttpServer(["--root", tree.root, "--store", db.url!, "--session-ttl", "1", "--idle-timeout", "1"], { cwd: tree.cwd, env: tree.env });
    try {
      const total = async (): Promise<number> =>
        (await sql<Array<{ n: number }>>`select ((select count(*) from skillport_records where principal <> 'skillport:replicas') + (select count(*) from skillport_answers) + (select count(*) from skillport_activity))::int as n`)[0]!.n;
      for (let round = 0; round < 3; round += 1) {
        const ids: string[] = [];
        for (let index = 0; index < 6; index += 1) {
          const id = await initialize(replica);
          ids.push(id);
          assert.equal((await callSkill(replica, id, 2, { name: "alpha" })).status, 200);
          // Half end with DELETE; the others are left to expire.
          if (index % 2 === 0) assert.equal((await rawRequest(replica.url, { method: "DELETE", headers: { "mcp-session-id": id } })).status, 200);
        }
        assert.ok((await rowCounts(sql, ids)) > 0);
        await until(async () => (await rowCounts(sql, ids)) === 0, `round ${round}'s sessions deleted`, 60_000);
        // Nothing of any conversation is left once the churn has been pruned.
        await until(async () => (await total()) === 0, "no rows of any conversation", 30_000);
      }
    } finally {
      await sql.end();
      await replica.stop();
    }
  });

  it("`store prune` deletes sessions past the age and old heartbeats, and keeps the rest", { timeout: 90_000 }, async () => {
    const tree = skillTree();
    const sql = postgres(db.url!, { max: 1, onnotice: () => {} });
    const replica = await startHttpServer(["--root", tree.root, "--store", db.url!, "--session-ttl", "0"], { cwd: tree.cwd, env: tree.env });
    let ended: string;
    let live: string;
    try {
      ended = await initialize(replica);
      live = await initialize(replica);
      await callSkill(replica, ended, 2, { name: "alpha" });
      await callSkill(replica, live, 2, { name: "alpha" });
      assert.equal((await rawRequest(replica.url, { method: "DELETE", headers: { "mcp-session-id": ended } })).status, 200);
    } finally {
      await replica.stop();
    }
    try {
      // Two hours old: the ended session and this hour's heartbeats (the age is the only thing changed).
      await sql`update skillport_records set written_at = now() - interval '2 hours' where session_id = ${ended}`;
      await sql`update skillport_records set written_at = now() - interval '3 hours' where principal = 'skillport:replicas'`;
      const heartbeatStreams = (await sql<Array<{ n: number }>>`select count(distinct session_id)::int as n from skillport_records where principal = 'skillport:replicas'`)[0]!.n;
      const run = await runCli(["store", "prune", db.url!, "--older-than", "3600", "--json"], { cwd: tree.cwd, env: tree.env });
      assert.equal(run.code, 0, run.stderr);
      const report = JSON.parse(run.stdout) as { sessions: number; heartbeats: number; olderThanSeconds: number };
      assert.equal(report.olderThanSeconds, 3600);
      assert.ok(report.sessions >= 1);
      assert.equal(report.heartbeats, heartbeatStreams);
      assert.equal(await rowCounts(sql, [ended]), 0);
      assert.ok((await rowCounts(sql, [live])) > 0);
      assert.equal((await sql`select 1 from skillport_records where principal = 'skillport:replicas'`).length, 0);
      const usage = await runCli(["store", "prune", "memory"], { cwd: tree.cwd, env: tree.env });
      assert.equal(usage.code, 2);
    } finally {
      await sql.end();
    }
  });
});

describe("the metrics library", { skip: db.skip ?? false, timeout: 400_000 }, () => {
  /** The modules a replica loaded from start to a SIGTERM exit. */
  const modulesOf = async (extra: string[]): Promise<string[]> => {
    const tree = skillTree();
    const file = path.join(tempDir("skillport-trace-"), "modules.txt");
    const child = spawn(
      process.execPath,
      ["--import", TSX_LOADER, "--import", pathToFileURL(path.join(REPO, "test/support/module-trace.mjs")).href, CLI_MAIN, "mcp", "--http", "0", "--root", tree.root, "--store", db.url!, ...extra],
      { cwd: tree.cwd, env: { ...tree.env, MODULE_TRACE_FILE: file }, stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      // A bound against a hang: a replica's start through tsx took over 20 s on a loaded machine.
      await eventually(() => /listening on /.test(stderr) || child.exitCode !== null, "the listening line", 90_000);
      child.kill("SIGTERM");
      assert.equal(await exited, 0, stderr);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
    return fs.readFileSync(file, "utf8").split("\n").filter(Boolean);
  };
  const promClient = (url: string): boolean => url.includes("/node_modules/prom-client/");

  it("is loaded only with --metrics", { timeout: 300_000 }, async () => {
    const without = await modulesOf([]);
    assert.ok(without.some((url) => url.endsWith("/src/cli/main.ts")), "the trace saw the run");
    assert.deepEqual(without.filter(promClient), []);
    assert.ok((await modulesOf(["--metrics"])).some(promClient), "--metrics ran without prom-client in the trace");
  });
});
