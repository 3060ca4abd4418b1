/**
 * `skillport mcp --watch` with the default folders picks up a skill `skillport add` installs,
 * without a restart: the install lands as one rename, and the watcher's rescan finds it.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { runCli, sandbox } from "./cli-process.js";
import { eventually } from "../support/eventually.js";
import { commitAll, fileUrl, GIT_ENV, initRepo, writeRepoSkill } from "../support/git-repo.js";
import { serverCommand } from "../support/mcp-server.js";

test("mcp --watch sees a skill installed by add while it runs, and sends tools/list_changed", { timeout: 90_000 }, async (t) => {
  const box = sandbox();
  const cwd = path.join(box.cwd, "project");
  fs.mkdirSync(path.join(cwd, ".git"), { recursive: true });
  const repo = initRepo(path.join(box.cwd, "source"));
  writeRepoSkill(repo, "skills/fresh-skill", "Installed while the server runs.\n");
  commitAll(repo, "one skill");
  const env = { ...(process.env as Record<string, string>), ...box.env, ...GIT_ENV };

  const transport = new StdioClientTransport({ ...serverCommand(["--watch", "--no-log"]), env, cwd, stderr: "pipe" });
  const client = new Client({ name: "skillport-test", version: "1.0.0" });
  await client.connect(transport);
  t.after(() => client.close());
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changed += 1));
  assert.doesNotMatch((await client.listTools()).tools[0]!.description!, /fresh-skill/);

  const added = await runCli(["add", fileUrl(repo)], { cwd, env: { ...box.env, ...GIT_ENV } });
  assert.equal(added.code, 0, added.stderr);
  await eventually(() => changed > 0, "tools/list_changed after the install");
  assert.match((await client.listTools()).tools[0]!.description!, /<name>fresh-skill<\/name>/);
});
