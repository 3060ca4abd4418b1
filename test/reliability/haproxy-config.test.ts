/**
 * docs/DEPLOY.md shows the HAProxy config the multi-replica test runs, and a sticky variant: the
 * page must show exactly what the test generates, and HAProxy itself must accept both.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { HAPROXY, haproxyConfig, haproxyMissing } from "../support/haproxy.js";
import { tempDir } from "../support/tmp.js";

const DEPLOY = fs.readFileSync(path.resolve(import.meta.dirname, "../../docs/DEPLOY.md"), "utf8");
const blocks = [...DEPLOY.matchAll(/```haproxy\n([\s\S]*?)```/g)].map((match) => match[1]!);
const documented = haproxyConfig("*:8080", [
  { name: "r1", address: "10.0.0.11:8080" },
  { name: "r2", address: "10.0.0.12:8080" },
  { name: "r3", address: "10.0.0.13:8080" },
]);
const missing = haproxyMissing();
const skip = missing !== null && process.env.SKILLPORT_REQUIRE_POSTGRES !== "1" ? missing : false;

function check(config: string): { status: number | null; output: string } {
  const file = path.join(tempDir("skillport-haproxy-check-"), "haproxy.cfg");
  fs.writeFileSync(file, config);
  const run = spawnSync(HAPROXY, ["-c", "-f", file], { encoding: "utf8" });
  return { status: run.status, output: `${run.stdout}${run.stderr}${run.error?.message ?? ""}` };
}

test("DEPLOY.md shows the round-robin config the multi-replica test generates, byte for byte", () => {
  assert.equal(blocks[0], documented);
});

test("HAProxy accepts the documented configs, round robin and sticky on Mcp-Session-Id", { skip }, () => {
  const roundRobin = check(documented);
  assert.equal(roundRobin.status, 0, roundRobin.output);
  const sticky = blocks.find((block) => block.includes("stick on req.hdr(mcp-session-id)"));
  assert.ok(sticky, "the sticky variant is on the page");
  const withSticky = documented.slice(0, documented.indexOf("\nbackend replicas") + 1) + sticky;
  const stickyCheck = check(withSticky);
  assert.equal(stickyCheck.status, 0, stickyCheck.output);
  // A config HAProxy refuses is refused here too, so the checks above can fail.
  assert.notEqual(check(documented.replace("retry-on conn-failure", "retry-on conn-flailure")).status, 0);
});
