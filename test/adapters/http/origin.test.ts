/**
 * DNS-rebinding protection of the HTTP transport (SPEC §7; MCP: servers must validate Origin):
 * every spelling of loopback is loopback, and a server other machines can reach must be told
 * which web origins it serves. Real servers, real HTTP requests with the headers a browser sends.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, it, test } from "node:test";
import { serveMcpHttp, type McpHttpServing } from "../../../src/adapters/http/live-sessions.js";
import { isLoopback, parseBindAddress } from "../../../src/adapters/http/address.js";
import { createSkillRuntime, type SkillRuntime } from "../../../src/runtime.js";
import { runCli } from "../../cli/cli-process.js";
import { initialize } from "./support.js";
import { skillTree } from "../mcp-fixtures.js";

const tree = skillTree();
let runtime: SkillRuntime;

before(async () => {
  runtime = await createSkillRuntime({ sources: [{ path: tree.root, origin: "global" }], cwd: tree.cwd, home: tree.home, env: {} });
});
after(() => runtime?.close());

const SERVER_OPTIONS = { session: { log: false as const }, version: "test", log: () => {} };

/** Whether this machine can listen on `host` at all (IPv6 may be off). */
function canListen(host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = http.createServer();
    server.once("error", () => resolve(false));
    server.listen(0, host, () => server.close(() => resolve(true)));
  });
}

const LOOPBACK_SPELLINGS = ["127.0.0.1", "127.1", "127.0.0.2", "LOCALHOST", "localhost.", "::1", "[::1]", "::ffff:127.0.0.1", "0:0:0:0:0:0:0:1"];

test("every spelling of loopback reads as loopback, and nothing else does", () => {
  for (const host of LOOPBACK_SPELLINGS) assert.equal(isLoopback(host), true, host);
  for (const host of ["0.0.0.0", "::", "10.0.0.1", "128.0.0.1", "::ffff:10.0.0.1", "localhost.evil.example", "example.com", "::2"]) {
    assert.equal(isLoopback(host), false, host);
  }
  assert.equal(parseBindAddress("127.1").listenHost, "127.0.0.1");
  assert.equal(parseBindAddress("[::1]").urlHost, "[::1]");
  for (const value of ["127.0.0.1:80", "127.0.0.1:8080", "[::1]:80", "", "a/b"]) assert.throws(() => parseBindAddress(value), /not a host name or IP address/, value);
});

describe("bound to loopback in any spelling, foreign Host and Origin are refused", () => {
  for (const spelling of LOOPBACK_SPELLINGS) {
    it(`--host ${spelling}`, async (t) => {
      const listenHost = parseBindAddress(spelling).listenHost;
      if (!(await canListen(listenHost))) {
        t.skip(`this machine cannot listen on ${listenHost}`);
        return;
      }
      const serving: McpHttpServing = await serveMcpHttp(runtime, SERVER_OPTIONS, { port: 0, host: spelling, maxSessions: 100 });
      try {
        const url = new URL(serving.url);
        const port = url.port;
        const refused: Array<Record<string, string>> = [{ host: `evil.example:${port}` }, { origin: "http://evil.example" }, { origin: "null" }, { host: `127.0.0.1.evil.example:${port}` }];
        for (const headers of refused) {
          const answer = await initialize(url, headers);
          assert.equal(answer.status, 403, `${spelling} ${JSON.stringify(headers)}: ${answer.body}`);
          assert.equal(answer.sessionId, undefined);
        }
        const served: Array<Record<string, string>> = [
          {},
          { host: `localhost:${port}`, origin: `http://localhost:${port}` },
          { host: `LOCALHOST.:${port}`, origin: `http://127.0.0.1:${port}` },
          { host: `127.1:${port}`, origin: `http://[::1]:${port}` },
          { host: `[::1]:${port}` },
        ];
        for (const headers of served) {
          const answer = await initialize(url, headers);
          assert.equal(answer.status, 200, `${spelling} ${JSON.stringify(headers)}: ${answer.body}`);
        }
      } finally {
        await serving.close();
      }
    });
  }
});

test("off loopback, the library refuses to serve without allowed origins", async () => {
  await assert.rejects(serveMcpHttp(runtime, SERVER_OPTIONS, { port: 0, host: "0.0.0.0" }), /not loopback, needs allowedOrigins/);
});

test("off loopback with --allowed-origin, only listed origins (or none, as non-browser clients send) are served", async () => {
  const serving = await serveMcpHttp(runtime, SERVER_OPTIONS, { port: 0, host: "0.0.0.0", allowedOrigins: ["https://app.example"], maxSessions: 100, authToken: false });
  try {
    const url = new URL(serving.url.replace("0.0.0.0", "127.0.0.1"));
    assert.equal((await initialize(url, { origin: "https://app.example" })).status, 200);
    assert.equal((await initialize(url, { host: "skills.example:443" })).status, 200, "no Origin: a client that is not a browser");
    for (const origin of ["https://evil.example", "http://app.example", "https://app.example:8443", "null", "http://localhost"]) {
      assert.equal((await initialize(url, { origin })).status, 403, origin);
    }
  } finally {
    await serving.close();
  }
});

test("skillport mcp --host off loopback without --allowed-origin is a usage error (exit 2) that says what to add", async () => {
  const env = { HOME: tree.home, XDG_STATE_HOME: tree.env.XDG_STATE_HOME! };
  const run = await runCli(["mcp", "--http", "0", "--host", "0.0.0.0", "--root", tree.root], { cwd: tree.cwd, env });
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /--host 0\.0\.0\.0 is not a loopback address.*--allowed-origin ORIGIN/);
  const bad = await runCli(["mcp", "--http", "0", "--host", "0.0.0.0", "--allowed-origin", "https://app.example/path", "--root", tree.root], { cwd: tree.cwd, env });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /not an origin/);
  const noHttp = await runCli(["mcp", "--allowed-origin", "https://app.example", "--root", tree.root], { cwd: tree.cwd, env });
  assert.equal(noHttp.code, 2);
  assert.match(noHttp.stderr, /--allowed-origin only applies with --http PORT/);
});
