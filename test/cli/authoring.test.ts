// `--authoring DIR` and writable sources in a config file: what the CLI refuses, with exit 2.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { runCli, sandbox } from "./cli-process.js";

const T = { timeout: 60_000 };

test("mcp --authoring with --bundle or --store is a usage error naming why", T, async () => {
  const { cwd, env } = sandbox();
  const bundle = await runCli(["mcp", "--authoring", "authored", "--bundle", cwd], { cwd, env });
  assert.equal(bundle.code, 2, bundle.stderr);
  assert.match(bundle.stderr, /--authoring and --bundle cannot be given together/);
  const store = await runCli(["mcp", "--authoring", "authored", "--http", "0", "--store", "postgres://nobody@127.0.0.1:1/none"], { cwd, env });
  assert.equal(store.code, 2, store.stderr);
  assert.match(store.stderr, /--authoring does not apply with --store/);
  assert.equal(fs.existsSync(path.join(cwd, "authored")), false, "nothing created for a refused command");
});

test("a config file making a global source writable, or a source trusted but not writable, is refused", T, async () => {
  const { cwd, env } = sandbox();
  fs.mkdirSync(path.join(cwd, "skills"));
  fs.writeFileSync(path.join(cwd, "skillport.config.json"), JSON.stringify({ sources: [{ path: "./skills", origin: "global", writable: true }] }));
  const global = await runCli(["list"], { cwd, env });
  assert.equal(global.code, 2, global.stderr);
  assert.match(global.stderr, /sources\[0\]\.writable: writable applies to agent and project sources only/);
  fs.writeFileSync(path.join(cwd, "skillport.config.json"), JSON.stringify({ sources: [{ path: "./skills", origin: "project", projectId: "p", trusted: true }] }));
  const trusted = await runCli(["list"], { cwd, env });
  assert.equal(trusted.code, 2, trusted.stderr);
  assert.match(trusted.stderr, /trusted applies only to a writable source/);
});
