/**
 * The `Skillport-Registry-Digest` header goes on answers to requests that passed the server's
 * checks, never on a probe or a 403: a page that rebinds its own name to 127.0.0.1 can read the
 * headers of any answer it gets, and the digest says which skills a machine serves.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { serveMcpHttp } from "../../../src/adapters/http/live-sessions.js";
import { serveMcpHttpReplicated } from "../../../src/adapters/http/stored-sessions.js";
import { freshDatabase } from "../../support/postgres.js";
import { skillTree } from "../mcp-fixtures.js";
import { initialize, rawRequest, runtimesForBothServers } from "./support.js";

const tree = skillTree();
const db = await freshDatabase();
const serverOptions = { session: { log: false as const }, version: "test", log: () => {} };
const runtimes = runtimesForBothServers(tree, db.url);
const HEADER = "skillport-registry-digest";

const servers = [
  { name: "sessions in this process", skip: false as const, runtime: () => runtimes.plain(), serve: () => serveMcpHttp(runtimes.plain(), serverOptions, { port: 0, registryDigest: () => runtimes.plain().registryDigest() }) },
  {
    name: "sessions in PostgreSQL",
    skip: db.skip ?? (false as const),
    runtime: () => runtimes.stored(),
    serve: () => serveMcpHttpReplicated(runtimes.stored(), serverOptions, { port: 0, registryDigest: () => runtimes.stored().registryDigest() }),
  },
];

for (const { name, skip, runtime, serve } of servers) {
  describe(`the registry digest header, ${name}`, { skip }, () => {
    test("is on an MCP answer, and not on a 403 (a rebinding page's Host or Origin) nor on /healthz or /readyz", { timeout: 60_000 }, async () => {
      const served = await serve();
      try {
        const url = new URL(served.url);
        const digest = await runtime().registryDigest();
        const ok = await initialize(url);
        assert.equal(ok.status, 200);
        assert.equal(ok.headers[HEADER], digest);
        for (const headers of [{ host: "evil.example:80" }, { origin: "https://evil.example" }] as Array<Record<string, string>>) {
          const refused = await initialize(url, headers);
          assert.equal(refused.status, 403);
          assert.equal(refused.headers[HEADER], undefined, JSON.stringify(headers));
        }
        for (const probe of ["/healthz", "/readyz"]) {
          const answer = await rawRequest(new URL(probe, url), { method: "GET" });
          assert.equal(answer.status, 200);
          assert.equal(answer.headers[HEADER], undefined, probe);
        }
      } finally {
        await served.close();
      }
    });
  });
}
