/**
 * The stateless 2026-07-28 wire on both HTTP servers (one process, and a replica on a real
 * PostgreSQL store): every request is answered, malformed ones at once; requests being answered
 * are bounded as sessions are; each has a deadline. (Issue: a request with an id of `{}`, `[]`,
 * `true`, `1.5` or `null` was never answered, and 3,000 of them took the server from 74 to 150
 * MiB, which stayed after the clients left.)
 */
import assert from "node:assert/strict";
import http from "node:http";
import { describe, test } from "node:test";
import { serveMcpHttp } from "../../../src/adapters/http/live-sessions.js";
import { serveMcpHttpReplicated } from "../../../src/adapters/http/stored-sessions.js";
import type { SkillRuntime } from "../../../src/runtime.js";
import type { Session } from "../../../src/session/session.js";
import { freshDatabase } from "../../support/postgres.js";
import { skillTree } from "../mcp-fixtures.js";
import { initialize, POST_HEADERS, rawRequest, runtimesForBothServers, type RawAnswer } from "./support.js";

const PROTOCOL = "2026-07-28";
const tree = skillTree();
const db = await freshDatabase();
const serverOptions = { session: { log: false as const }, version: "test", log: () => {} };

const runtimes = runtimesForBothServers(tree, db.url);

/** A stateless request: the protocol version in `_meta` and nothing else, as the clients sent. */
function statelessBody(id: unknown, method = "tools/list", params: Record<string, unknown> = {}): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: { "io.modelcontextprotocol/protocolVersion": PROTOCOL } } });
}

function post(url: URL, body: string): Promise<RawAnswer> {
  return rawRequest(url, { headers: POST_HEADERS, body });
}

function errorOf(answer: RawAnswer): { code: number; message: string } {
  return (JSON.parse(answer.body) as { error: { code: number; message: string } }).error;
}

/**
 * Calls of `skill` wait until `release()`: requests still being answered, for as long as the test
 * needs. `arrived(n)` resolves once n calls are waiting.
 */
function heldCalls<T extends { session(options: object): Session }>(runtime: T): { runtime: T; release(): void; arrived(n: number): Promise<void> } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let waiting = 0;
  const watchers: Array<{ n: number; resolve(): void }> = [];
  const session = (options: object): Session => {
    const inner = runtime.session(options);
    return {
      ...inner,
      invoke: async (args, callOptions) => {
        waiting += 1;
        for (const watcher of watchers) if (watcher.n === waiting) watcher.resolve();
        await released;
        return inner.invoke(args, callOptions);
      },
    };
  };
  const arrived = (n: number): Promise<void> => (waiting >= n ? Promise.resolve() : new Promise((resolve) => watchers.push({ n, resolve })));
  return { runtime: { ...runtime, session }, release, arrived };
}

const CALL = statelessBody(9, "tools/call", { name: "skill", arguments: { name: "alpha" } });

interface Served {
  url: URL;
  close(): Promise<void>;
}

type Serve = (runtime: SkillRuntime, listen: { maxSessions?: number; statelessDeadlineMs?: number }) => Promise<Served>;

const servers: Array<{ name: string; skip: string | false; serve: Serve }> = [
  {
    name: "the single-process server",
    skip: false,
    serve: async (runtime, listen) => {
      const serving = await serveMcpHttp(runtime, serverOptions, { port: 0, ...listen });
      return { url: new URL(serving.url), close: () => serving.close() };
    },
  },
  {
    name: "a replica on PostgreSQL",
    skip: db.skip ?? false,
    serve: async (runtime, listen) => {
      const serving = await serveMcpHttpReplicated(runtime, serverOptions, { port: 0, ...listen });
      return { url: new URL(serving.url), close: () => serving.close() };
    },
  },
];

for (const { name, skip, serve } of servers) {
  const runtimeFor = (): SkillRuntime => (name === "the single-process server" ? runtimes.plain() : runtimes.stored());

  describe(`stateless requests on ${name}`, { skip }, () => {
    test("an id that is not a string or an integer is answered -32600 at once; strings and integers up to 2^53-1 are answered", { timeout: 60_000 }, async () => {
      const served = await serve(runtimeFor(), {});
      try {
        for (const id of [{}, [], true, 1.5, null, 9007199254740992, -9007199254740992]) {
          const answer = await post(served.url, statelessBody(id));
          assert.equal(answer.status, 400, `id ${JSON.stringify(id)}: ${answer.body}`);
          const error = errorOf(answer);
          assert.equal(error.code, -32600, `id ${JSON.stringify(id)}`);
          assert.match(error.message, /id that is a string or an integer/);
          assert.equal((JSON.parse(answer.body) as { id: unknown }).id, null);
        }
        // Params that are not an object: the SDK would not read it as a request either.
        const badParams = await rawRequest(served.url, { headers: { ...POST_HEADERS, "mcp-protocol-version": PROTOCOL }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: 5 }) });
        assert.equal(badParams.status, 400, badParams.body);
        assert.equal(errorOf(badParams).code, -32600);

        for (const id of ["", "x", 0, -1, 9007199254740991, -9007199254740991]) {
          const answer = await post(served.url, statelessBody(id));
          assert.equal(answer.status, 200, `id ${JSON.stringify(id)}: ${answer.body}`);
          const message = JSON.parse(answer.body) as { id: unknown; result: { tools: Array<{ name: string }> } };
          assert.equal(message.id, id);
          assert.deepEqual(message.result.tools.map((t) => t.name), ["skill"]);
        }
      } finally {
        await served.close();
      }
    });

    test("exactly maxSessions stateless requests are answered at once; one more gets 503 with Retry-After; the held ones are then answered", { timeout: 60_000 }, async () => {
      const N = 2;
      const held = heldCalls(runtimeFor());
      const served = await serve(held.runtime, { maxSessions: N });
      try {
        const pending = Array.from({ length: N }, () => post(served.url, CALL));
        await held.arrived(N);
        const refused = await post(served.url, CALL);
        assert.equal(refused.status, 503, refused.body);
        assert.equal(refused.headers["retry-after"], "30");
        assert.match(errorOf(refused).message, /Server busy/);
        held.release();
        for (const answer of await Promise.all(pending)) {
          assert.equal(answer.status, 200, answer.body);
          assert.equal((JSON.parse(answer.body) as { result: { isError?: boolean } }).result.isError, undefined);
        }
        assert.equal((await post(served.url, CALL)).status, 200, "room again once they were answered");
      } finally {
        held.release();
        await served.close();
      }
    });

    test("a stateless request not answered by its deadline gets 503 with Retry-After, and frees its place", { timeout: 60_000 }, async () => {
      const held = heldCalls(runtimeFor());
      const served = await serve(held.runtime, { maxSessions: 1, statelessDeadlineMs: 300 });
      try {
        const late = await post(served.url, CALL);
        assert.equal(late.status, 503, late.body);
        assert.equal(late.headers["retry-after"], "1");
        assert.match(errorOf(late).message, /no answer within 300 ms/);
        held.release();
        assert.equal((await post(served.url, statelessBody(1))).status, 200, "its place is free again");
      } finally {
        held.release();
        await served.close();
      }
    });

    test("a client that leaves before its stateless answer frees its place", { timeout: 60_000 }, async () => {
      const held = heldCalls(runtimeFor());
      // A deadline far past the test's own timeout: only the client's leaving can free the place.
      const served = await serve(held.runtime, { maxSessions: 1, statelessDeadlineMs: 10 * 60_000 });
      try {
        const req = http.request({ host: served.url.hostname, port: served.url.port, path: served.url.pathname, method: "POST", headers: POST_HEADERS, agent: false });
        req.on("error", () => {});
        req.end(CALL);
        await held.arrived(1);
        req.destroy();
        await waitFor(async () => (await post(served.url, statelessBody(1))).status === 200);
      } finally {
        held.release();
        await served.close();
      }
    });
  });
}

test("on the single-process server, stateless requests being answered count toward the session cap", { timeout: 60_000 }, async () => {
  const held = heldCalls(runtimes.plain());
  const serving = await serveMcpHttp(held.runtime, serverOptions, { port: 0, maxSessions: 2 });
  try {
    const url = new URL(serving.url);
    assert.equal((await initialize(url)).status, 200);
    const pending = post(url, CALL);
    await held.arrived(1);
    const refused = await initialize(url);
    assert.equal(refused.status, 503, refused.body);
    held.release();
    assert.equal((await pending).status, 200);
    assert.equal((await initialize(url)).status, 200, "room again once the stateless request was answered");
  } finally {
    held.release();
    await serving.close();
  }
});

/**
 * Asks again until `check` holds: the server frees a place when it sees the client go, which
 * nothing outside it can await. The test's own timeout bounds it.
 */
async function waitFor(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}
