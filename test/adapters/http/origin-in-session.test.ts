/**
 * DNS-rebinding protection holds for every request of a session, not only for `initialize`: a
 * page on a foreign origin that learnt a session id (or guessed one) gets 403 for calls, the
 * stream and the session's end, on both HTTP servers (one process, and a replica on a real
 * PostgreSQL store). Real servers, raw HTTP requests with the headers a browser sends.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { serveMcpHttp } from "../../../src/adapters/http/live-sessions.js";
import { serveMcpHttpReplicated } from "../../../src/adapters/http/stored-sessions.js";
import type { SkillRuntime } from "../../../src/runtime.js";
import { freshDatabase } from "../../support/postgres.js";
import { skillTree } from "../mcp-fixtures.js";
import { initialize, POST_HEADERS, rawRequest, runtimesForBothServers, type RawAnswer } from "./support.js";

const tree = skillTree();
const db = await freshDatabase();
const serverOptions = { session: { log: false as const }, version: "test", log: () => {} };
const runtimes = runtimesForBothServers(tree, db.url);

const servers: Array<{ name: string; skip: string | false; runtime(): SkillRuntime; serve(runtime: SkillRuntime): Promise<{ url: string; close(): Promise<void> }> }> = [
  { name: "the single-process server", skip: false, runtime: () => runtimes.plain(), serve: (runtime) => serveMcpHttp(runtime, serverOptions, { port: 0, maxSessions: 100 }) },
  { name: "a replica on PostgreSQL", skip: db.skip ?? false, runtime: () => runtimes.stored(), serve: (runtime) => serveMcpHttpReplicated(runtime, serverOptions, { port: 0 }) },
];

let nextId = 10;

function inSession(url: URL, sessionId: string, method: string, headers: Record<string, string>): Promise<RawAnswer> {
  const base = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18", ...headers };
  if (method !== "POST") return rawRequest(url, { method, headers: { accept: "text/event-stream", ...base } });
  const body = JSON.stringify({ jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { name: "skill", arguments: { name: "alpha" } } });
  return rawRequest(url, { headers: { ...POST_HEADERS, ...base }, body });
}

for (const { name, skip, runtime, serve } of servers) {
  describe(`in-session requests on ${name}`, { skip }, () => {
    test("a call, a stream or a DELETE naming a live session with a foreign Host or Origin gets 403, and the session still serves its own origin", { timeout: 120_000 }, async () => {
      const served = await serve(runtime());
      try {
        const url = new URL(served.url);
        const port = url.port;
        const own = { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` };
        const opened = await initialize(url, own);
        assert.equal(opened.status, 200, opened.body);
        const sessionId = opened.sessionId!;
        assert.ok(sessionId);
        const foreign: Array<Record<string, string>> = [
          { host: `evil.example:${port}` },
          { host: `evil.example:${port}`, origin: "http://evil.example" },
          { host: `127.0.0.1:${port}`, origin: "http://evil.example" },
          { host: `127.0.0.1:${port}`, origin: "null" },
        ];
        for (const headers of foreign) {
          for (const method of ["POST", "GET", "DELETE"]) {
            const answer = await inSession(url, sessionId, method, headers);
            assert.equal(answer.status, 403, `${method} ${JSON.stringify(headers)}: ${answer.body}`);
            assert.doesNotMatch(answer.body, /Alpha|alpha guide/, `${method} ${JSON.stringify(headers)} got the skill's text`);
            assert.match(answer.body, /DNS-rebinding protection/);
          }
        }
        // The refusals ended nothing: the session serves its own origin, the skill's text included.
        const call = await inSession(url, sessionId, "POST", own);
        assert.equal(call.status, 200, call.body);
        assert.match(call.body, /# Alpha/);
      } finally {
        await served.close();
      }
    });
  });
}
