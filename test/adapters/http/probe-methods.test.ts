/**
 * The health probes answer GET only: a POST (or any other method) to /healthz or /readyz is not a
 * probe, and gets the 404 every path but the MCP endpoint gets. Real server, raw HTTP requests.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { serveMcpHttp } from "../../../src/adapters/http/live-sessions.js";
import { createSkillRuntime } from "../../../src/runtime.js";
import { skillTree } from "../mcp-fixtures.js";
import { POST_HEADERS, rawRequest } from "./support.js";

test("only GET is a probe: POST, PUT and DELETE to /healthz and /readyz get 404 naming the MCP endpoint", { timeout: 60_000 }, async (t) => {
  const tree = skillTree();
  const runtime = await createSkillRuntime({ sources: [{ path: tree.root, origin: "global" }], cwd: tree.cwd, home: tree.home, env: {} });
  t.after(() => runtime.close());
  const served = await serveMcpHttp(runtime, { session: { log: false }, version: "test", log: () => {} }, { port: 0, maxSessions: 10 });
  t.after(() => served.close());
  for (const probe of ["/healthz", "/readyz"]) {
    const url = new URL(probe, served.url);
    assert.equal((await rawRequest(url, { method: "GET" })).status, 200, probe);
    for (const method of ["POST", "PUT", "DELETE"]) {
      const answer = await rawRequest(url, method === "DELETE" ? { method } : { method, headers: POST_HEADERS, body: "{}" });
      assert.equal(answer.status, 404, `${method} ${probe}: ${answer.body}`);
      assert.match(answer.body, /Not found: the MCP endpoint is \/mcp/, `${method} ${probe}`);
    }
  }
});
