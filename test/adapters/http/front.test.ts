/**
 * The one HTTP server's own rules, on both ways of keeping sessions (in this process, and in a
 * PostgreSQL store): the probes a balancer or supervisor reads, and drain — what is in flight
 * finishes, nothing new starts.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { describe, test } from "node:test";
import { serveMcpHttp } from "../../../src/adapters/http/live-sessions.js";
import { createServerMetrics } from "../../../src/adapters/http/metrics.js";
import { serveMcpHttpReplicated } from "../../../src/adapters/http/stored-sessions.js";
import { freshDatabase } from "../../support/postgres.js";
import { skillTree } from "../mcp-fixtures.js";
import { callInSession, INITIALIZE, initialize, POST_HEADERS, rawRequest, runtimesForBothServers } from "./support.js";

const tree = skillTree();
const db = await freshDatabase();
const serverOptions = { session: { log: false as const }, version: "test", log: () => {} };
const runtimes = runtimesForBothServers(tree, db.url);

interface Served {
  url: string;
  drain(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

const servers: Array<{ name: string; skip: string | false; store: string; serve(): Promise<Served> }> = [
  { name: "sessions in this process", skip: false, store: "none", serve: () => serveMcpHttp(runtimes.plain(), serverOptions, { port: 0 }) },
  { name: "sessions in PostgreSQL", skip: db.skip ?? false, store: "ok", serve: () => serveMcpHttpReplicated(runtimes.stored(), serverOptions, { port: 0 }) },
];

/** A tools/call whose body is sent only when `finish` is called: a request the server is still answering. */
function heldCall(url: URL, sessionId: string): { finish(): void; answer: Promise<{ status: number; body: string }> } {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "skill", arguments: { name: "alpha" } } });
  const headers = { ...POST_HEADERS, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18", "content-length": String(Buffer.byteLength(body)) };
  const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
  });
  req.flushHeaders();
  let finished = false;
  const finish = (): void => {
    if (!finished) req.end(body);
    finished = true;
  };
  return { finish, answer };
}

for (const { name, skip, store, serve } of servers) {
  describe(`the HTTP server, ${name}`, { skip }, () => {
    test("/healthz says it serves and /readyz that it is ready, naming the store's state", { timeout: 60_000 }, async () => {
      const served = await serve();
      try {
        const health = await rawRequest(new URL("/healthz", served.url), { method: "GET" });
        assert.equal(health.status, 200);
        assert.deepEqual(JSON.parse(health.body), { status: "serving" });
        const ready = await rawRequest(new URL("/readyz", served.url), { method: "GET" });
        assert.equal(ready.status, 200);
        assert.deepEqual(JSON.parse(ready.body), { status: "ready", store, registry: "loaded" });
      } finally {
        await served.close();
      }
    });

    test("drain finishes the request in flight, refuses a new session and turns /readyz 503 meanwhile, then closes", { timeout: 60_000 }, async () => {
      const served = await serve();
      const url = new URL(served.url);
      const { sessionId } = await initialize(url);
      assert.ok(sessionId);
      const held = heldCall(url, sessionId);
      try {
        // A round trip after the held request's headers were sent: they have reached the server by then.
        await rawRequest(new URL("/healthz", served.url), { method: "GET" });
        const drained = served.drain(30_000);
        const refused = await rawRequest(url, { headers: POST_HEADERS, body: INITIALIZE });
        assert.equal(refused.status, 503, refused.body);
        assert.equal(refused.headers["retry-after"], "1");
        assert.match(refused.body, /draining/);
        const ready = await rawRequest(new URL("/readyz", served.url), { method: "GET" });
        assert.equal(ready.status, 503);
        assert.equal(JSON.parse(ready.body).status, "draining");
        held.finish();
        const answer = await held.answer;
        assert.equal(answer.status, 200, answer.body);
        assert.match(answer.body, /"status":"loaded"/);
        assert.equal(await drained, true);
        await assert.rejects(rawRequest(new URL("/healthz", served.url), { method: "GET" }));
      } finally {
        held.finish();
        await served.close();
      }
    });
  });
}

test("with metrics, the server in one process counts its requests, tool calls and sessions at /metrics", { timeout: 60_000 }, async () => {
  let open = (): number => 0;
  const metrics = await createServerMetrics({ store: null, sessionsOpen: () => open(), streamsOpen: () => 0, registrySkills: () => 2, diagnostics: () => 0 });
  const served = await serveMcpHttp(runtimes.plain(), serverOptions, { port: 0, metrics });
  open = () => served.connections.size;
  try {
    const url = new URL(served.url);
    const { sessionId } = await initialize(url);
    assert.ok(sessionId);
    assert.equal((await callInSession(url, sessionId, { name: "alpha" })).status, 200);
    assert.equal((await callInSession(url, sessionId, { name: "nope" })).status, 200);
    const text = (await rawRequest(new URL("/metrics", served.url), { method: "GET" })).body;
    assert.match(text, /^skillport_tool_calls_total\{outcome="loaded"\} 1$/m);
    assert.match(text, /^skillport_tool_calls_total\{outcome="skill_not_found"\} 1$/m);
    assert.match(text, /^skillport_sessions_open 1$/m);
    assert.match(text, /^skillport_http_requests_total\{method="POST",status="200"\} [3-9]$/m);
  } finally {
    await served.close();
    metrics.close();
  }
});
