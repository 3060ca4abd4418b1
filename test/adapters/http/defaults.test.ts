import assert from "node:assert/strict";
import { test } from "node:test";
import {
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_MCP_HTTP_IDLE_TIMEOUT_MS,
  DEFAULT_SESSION_TTL_MS,
  DEFAULT_STATELESS_DEADLINE_MS,
  SESSION_CAP_RETRY_AFTER_SECONDS,
} from "../../../src/adapters/http/defaults.js";

// A default's effect takes its whole length to show (a stateless request answered 503 after 30 s),
// which no test can wait for on a shared machine; the behaviour is tested with small configured
// values (test/adapters/http/stateless.test.ts), and here each default is held to what the docs say.
test("the HTTP defaults are the documented ones: 30 s stateless deadline, 30 s drain, a day's session TTL, 30 min idle, Retry-After 30", () => {
  assert.equal(DEFAULT_STATELESS_DEADLINE_MS, 30_000);
  assert.equal(DEFAULT_DRAIN_TIMEOUT_MS, 30_000);
  assert.equal(DEFAULT_SESSION_TTL_MS, 24 * 60 * 60 * 1000);
  assert.equal(DEFAULT_MCP_HTTP_IDLE_TIMEOUT_MS, 30 * 60 * 1000);
  assert.equal(SESSION_CAP_RETRY_AFTER_SECONDS, 30);
});
