/**
 * The HTTP server's bearer token (SECURITY.md "Round four"): loopback keeps out other machines,
 * not other users of this one, so a server that can write skills or listens beyond loopback
 * requires a token. Over both ways of keeping sessions, with raw requests; through the real
 * `skillport mcp` with `--authoring`, with the SDK client; and, as root, from a process running
 * as another user (uid 65534), which can neither read the token nor start a session.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { serveMcpHttp } from "../../../src/adapters/http/live-sessions.js";
import { serveMcpHttpReplicated } from "../../../src/adapters/http/stored-sessions.js";
import { runCli } from "../../cli/cli-process.js";
import { startHttpServer } from "../../support/mcp-server.js";
import { freshDatabase } from "../../support/postgres.js";
import { cannotSwitchUser, unprivilegedChild } from "../../support/unprivileged.js";
import { skillTree } from "../mcp-fixtures.js";
import { initialize, POST_HEADERS, rawRequest, runtimesForBothServers } from "./support.js";

const tree = skillTree();
const db = await freshDatabase();
const serverOptions = { session: { log: false as const }, version: "test", log: () => {} };
const runtimes = runtimesForBothServers(tree, db.url);
const TOKEN = "Z3JhbnRlZC10by10aGUtdXNlci1vbmx5LTEyMzQ1Ng";

const servers = [
  { name: "sessions in this process", skip: false as const, runtime: () => runtimes.plain(), serve: () => serveMcpHttp(runtimes.plain(), serverOptions, { port: 0, authToken: TOKEN, registryDigest: () => runtimes.plain().registryDigest() }) },
  {
    name: "sessions in PostgreSQL",
    skip: db.skip ?? (false as const),
    runtime: () => runtimes.stored(),
    serve: () => serveMcpHttpReplicated(runtimes.stored(), serverOptions, { port: 0, authToken: TOKEN, registryDigest: () => runtimes.stored().registryDigest() }),
  },
];

for (const { name, skip, runtime, serve } of servers) {
  describe(`a server given a bearer token, ${name}`, { skip }, () => {
    test("refuses a request without the token or with a wrong one (401, WWW-Authenticate, no digest header), serves one with it, and keeps the probes open", { timeout: 60_000 }, async () => {
      const served = await serve();
      try {
        const url = new URL(served.url);
        const none = await initialize(url);
        assert.equal(none.status, 401);
        assert.equal(none.headers["www-authenticate"], 'Bearer realm="skillport"');
        assert.equal(none.headers["skillport-registry-digest"], undefined);
        assert.equal(none.sessionId, undefined);
        // Same length, last character changed; and one of another length.
        for (const wrong of [`${TOKEN.slice(0, -1)}7`, `${TOKEN}x`, "short"]) {
          const refused = await initialize(url, { authorization: `Bearer ${wrong}` });
          assert.equal(refused.status, 401, wrong);
          assert.equal(refused.headers["www-authenticate"], 'Bearer realm="skillport", error="invalid_token"');
        }
        const basic = await initialize(url, { authorization: `Basic ${Buffer.from(`u:${TOKEN}`).toString("base64")}` });
        assert.equal(basic.status, 401);

        const ok = await initialize(url, { authorization: `Bearer ${TOKEN}` });
        assert.equal(ok.status, 200, ok.body);
        assert.ok(ok.sessionId);
        assert.equal(ok.headers["skillport-registry-digest"], await runtime().registryDigest());
        const call = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
        const headers = { ...POST_HEADERS, "mcp-session-id": ok.sessionId, "mcp-protocol-version": "2025-06-18" };
        // A session id is not a credential: the token is asked for on every request.
        assert.equal((await rawRequest(url, { headers, body: call })).status, 401);
        const listed = await rawRequest(url, { headers: { ...headers, authorization: `Bearer ${TOKEN}` }, body: call });
        assert.equal(listed.status, 200);
        assert.match(listed.body, /"name":"skill"/);

        for (const probe of ["/healthz", "/readyz"]) {
          const answer = await rawRequest(new URL(probe, url), { method: "GET" });
          assert.equal(answer.status, 200, probe);
        }
      } finally {
        await served.close();
      }
    });
  });
}

test("the library refuses to listen beyond loopback without authToken (false says something in front authenticates), and refuses a short token", { timeout: 60_000 }, async () => {
  const listen = { port: 0, host: "0.0.0.0", allowedOrigins: ["https://app.example"] };
  await assert.rejects(serveMcpHttp(runtimes.plain(), serverOptions, listen), /not loopback, needs authToken/);
  await assert.rejects(serveMcpHttp(runtimes.plain(), serverOptions, { port: 0, authToken: "x".repeat(15) }), /at least 16 characters/);
  const served = await serveMcpHttp(runtimes.plain(), serverOptions, { port: 0, authToken: "x".repeat(16) });
  await served.close();
  const open = await serveMcpHttp(runtimes.plain(), serverOptions, { ...listen, authToken: false });
  await open.close();
});

test("skillport mcp --authoring requires a token it keeps 0600 in the state directory, named on stderr; the SDK client works with it and gets 401 without", { timeout: 180_000 }, async () => {
  const authoring = path.join(tree.cwd, "authored");
  const server = await startHttpServer(["--root", tree.root, "--authoring", authoring, "--no-log"], { cwd: tree.cwd, env: tree.env });
  try {
    const file = path.join(tree.env.XDG_STATE_HOME!, "skillport", "mcp-http-token");
    assert.ok(server.stderr().includes(file), server.stderr());
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
    const token = fs.readFileSync(file, "utf8").trim();
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);

    const bare = new Client({ name: "no-token", version: "1" });
    await assert.rejects(bare.connect(new StreamableHTTPClientTransport(server.url)), /401|Unauthorized/);
    const client = new Client({ name: "with-token", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(server.url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ["skill", "skill_manage"]);
    } finally {
      await client.close();
    }
  } finally {
    await server.stop();
  }
  // Kept between runs: a client configured with it keeps working after a restart.
  const again = await startHttpServer(["--root", tree.root, "--authoring", authoring, "--no-log"], { cwd: tree.cwd, env: tree.env });
  try {
    const file = path.join(tree.env.XDG_STATE_HOME!, "skillport", "mcp-http-token");
    const token = fs.readFileSync(file, "utf8").trim();
    assert.equal((await initialize(again.url, { authorization: `Bearer ${token}` })).status, 200);
  } finally {
    await again.stop();
  }
});

test("skillport mcp --auth-token-file requires that file's token even on loopback without --authoring; a bad file is a usage error", { timeout: 180_000 }, async () => {
  const file = path.join(tree.cwd, "token.txt");
  fs.writeFileSync(file, `${TOKEN}\n`);
  const server = await startHttpServer(["--root", tree.root, "--no-log", "--auth-token-file", file], { cwd: tree.cwd, env: tree.env });
  try {
    assert.equal((await initialize(server.url)).status, 401);
    assert.equal((await initialize(server.url, { authorization: `Bearer ${TOKEN}` })).status, 200);
  } finally {
    await server.stop();
  }
  fs.writeFileSync(file, "short\n");
  const short = await runCli(["mcp", "--http", "0", "--root", tree.root, "--auth-token-file", file], { cwd: tree.cwd, env: tree.env });
  assert.equal(short.code, 2);
  assert.match(short.stderr, /--auth-token-file .*token\.txt: a bearer token must be at least 16 characters/);
  const stdio = await runCli(["mcp", "--auth-token-file", file], { cwd: tree.cwd, env: tree.env });
  assert.equal(stdio.code, 2);
  assert.match(stdio.stderr, /--auth-token-file only applies with --http PORT/);
});

test("a writable source named in a config file (not only --authoring) makes the server require the token", { timeout: 180_000 }, async () => {
  const config = path.join(tree.cwd, "team.json");
  fs.writeFileSync(config, JSON.stringify({ sources: [tree.root, { path: "./agent-skills", origin: "agent", agentId: "a1", writable: true }] }));
  const server = await startHttpServer(["--config", config, "--agent", "a1", "--no-log"], { cwd: tree.cwd, env: tree.env });
  try {
    assert.match(server.stderr(), /requiring a bearer token \(clients can write skills/);
    assert.equal((await initialize(server.url)).status, 401);
    const token = fs.readFileSync(path.join(tree.env.XDG_STATE_HOME!, "skillport", "mcp-http-token"), "utf8").trim();
    assert.equal((await initialize(server.url, { authorization: `Bearer ${token}` })).status, 200);
  } finally {
    await server.stop();
  }
});

test("a loopback server without --authoring or --auth-token-file needs no token (it cannot write)", { timeout: 180_000 }, async () => {
  const server = await startHttpServer(["--root", tree.root, "--no-log"], { cwd: tree.cwd, env: tree.env });
  try {
    assert.equal((await initialize(server.url)).status, 200);
  } finally {
    await server.stop();
  }
});

const notRoot = cannotSwitchUser();
test("another local user (uid 65534) can neither read the token of a server with --authoring nor initialize a session", { timeout: 180_000, skip: notRoot ?? false }, async () => {
  // Every folder down to the state directory open to others, as a home often is: only the
  // token file's own protections keep the other user out.
  const home = path.join(tree.cwd, "shared-home");
  const env = { ...tree.env, HOME: home, XDG_STATE_HOME: path.join(home, "state") };
  fs.mkdirSync(env.XDG_STATE_HOME, { recursive: true });
  for (const dir of [tree.cwd, home, env.XDG_STATE_HOME, tree.root]) fs.chmodSync(dir, 0o755);
  const authoring = path.join(tree.cwd, "authored-shared");
  const server = await startHttpServer(["--root", tree.root, "--authoring", authoring, "--no-log"], { cwd: tree.cwd, env });
  try {
    const file = path.join(env.XDG_STATE_HOME, "skillport", "mcp-http-token");
    fs.chmodSync(path.dirname(file), 0o755);
    const child = await unprivilegedChild(path.join(import.meta.dirname, "fixtures", "other-user-client.ts"));
    const run = child.run([server.url.href, file]);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { tokenRead: "EACCES", status: 401 });
    assert.equal(fs.readdirSync(authoring).length, 0);
  } finally {
    await server.stop();
  }
});
