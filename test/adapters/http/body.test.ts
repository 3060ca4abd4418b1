/**
 * Request bodies on both HTTP servers (one process, and a replica on a real PostgreSQL store),
 * through a real keep-alive `http.Agent`. (Issue: after a 413 on a kept-alive connection, the
 * client's next request on that socket was never answered.)
 */
import assert from "node:assert/strict";
import http from "node:http";
import { describe, test } from "node:test";
import { serveMcpHttp } from "../../../src/adapters/http/live-sessions.js";
import { MAX_BODY_BYTES } from "../../../src/adapters/http/body.js";
import { serveMcpHttpReplicated } from "../../../src/adapters/http/stored-sessions.js";
import type { SkillRuntime } from "../../../src/runtime.js";
import { freshDatabase } from "../../support/postgres.js";
import { skillTree } from "../mcp-fixtures.js";
import { POST_HEADERS, runtimesForBothServers } from "./support.js";

const tree = skillTree();
const db = await freshDatabase();
const serverOptions = { session: { log: false as const }, version: "test", log: () => {} };
/** Long enough for any answer on a busy machine; a request never answered fails here instead of hanging. */
const ANSWER_TIMEOUT_MS = 20_000;

const runtimes = runtimesForBothServers(tree, db.url);

/**
 * A stateless `tools/list` of exactly `size` bytes, padded inside a string: what is left unread
 * of it on the connection is then text the HTTP parser cannot skip, as in a real request.
 */
function toolsList(size?: number): string {
  const body = (pad: string): string =>
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } } });
  return size === undefined ? body("") : body("x".repeat(size - body("").length));
}

interface Answer {
  status: number;
  connection: string | undefined;
  body: string;
}

/** One POST through `agent`; rejects when no answer comes within ANSWER_TIMEOUT_MS. */
function post(url: URL, agent: http.Agent, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: POST_HEADERS, agent }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: text }));
    });
    req.setTimeout(ANSWER_TIMEOUT_MS, () => req.destroy(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms`)));
    req.on("error", reject);
    req.end(body);
  });
}

const servers: Array<{ name: string; skip: string | false; serve(runtime: SkillRuntime): Promise<{ url: string; close(): Promise<void> }> }> = [
  { name: "the single-process server", skip: false, serve: (runtime) => serveMcpHttp(runtime, serverOptions, { port: 0 }) },
  { name: "a replica on PostgreSQL", skip: db.skip ?? false, serve: (runtime) => serveMcpHttpReplicated(runtime, serverOptions, { port: 0 }) },
];

for (const { name, skip, serve } of servers) {
  describe(`request bodies on ${name}`, { skip }, () => {
    test("a body of exactly the limit is answered; one byte more (or far more) gets 413 closing the connection, and the next request on the same keep-alive agent is answered", { timeout: 120_000 }, async () => {
      const served = await serve(name === "the single-process server" ? runtimes.plain() : runtimes.stored());
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const url = new URL(served.url);
        const atLimit = await post(url, agent, toolsList(MAX_BODY_BYTES));
        assert.equal(atLimit.status, 200, atLimit.body.slice(0, 200));
        assert.equal(atLimit.connection, "keep-alive");

        // One byte over leaves nothing unread; a mebibyte over leaves most of that on the connection.
        for (const size of [MAX_BODY_BYTES + 1, MAX_BODY_BYTES + 1024 * 1024]) {
          const over = await post(url, agent, toolsList(size));
          assert.equal(over.status, 413, `${size} bytes`);
          assert.equal(over.connection, "close", "the rest of the body is never read, so the connection is not reused");
          assert.deepEqual(JSON.parse(over.body), { jsonrpc: "2.0", error: { code: -32600, message: "Request body too large" }, id: null });

          const next = await post(url, agent, toolsList());
          assert.equal(next.status, 200, `after a body of ${size} bytes: ${next.body}`);
          assert.deepEqual((JSON.parse(next.body) as { result: { tools: Array<{ name: string }> } }).result.tools.map((t) => t.name), ["skill"]);
        }
      } finally {
        agent.destroy();
        await served.close();
      }
    });
  });
}
