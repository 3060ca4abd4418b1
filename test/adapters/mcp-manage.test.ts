// skill_manage over MCP (SPEC §11, §7) with the SDK client against the real `skillport mcp`
// process on stdio: offered beside `skill` only with --authoring, every write live at once, and
// `tools/list_changed` sent before the answer.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Envelope, ListData } from "../../src/tool/envelope.js";
import { runCli } from "../cli/cli-process.js";
import { serverCommand } from "../support/mcp-server.js";
import { callSkill, dataOf, readLogs, skillTree } from "./mcp-fixtures.js";

const T = { timeout: 120_000 };

async function connect(args: string[], tree: ReturnType<typeof skillTree>): Promise<Client> {
  const transport = new StdioClientTransport({ ...serverCommand(args), env: tree.env, cwd: tree.cwd, stderr: "pipe" });
  const client = new Client({ name: "skillport-manage-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

async function manage(client: Client, args: Record<string, unknown>): Promise<{ envelope: Envelope; text: string; isError: boolean }> {
  const result = await client.callTool({ name: "skill_manage", arguments: args });
  const content = result.content as Array<{ type: string; text: string }>;
  return { envelope: result.structuredContent as unknown as Envelope, text: content[0]!.text, isError: result.isError === true };
}

test("without --authoring the server offers only `skill`, and a skill_manage call is an unknown tool", T, async (t) => {
  const tree = skillTree();
  const client = await connect(["--root", tree.root, "--no-log"], tree);
  t.after(() => client.close());
  assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ["skill"]);
  await assert.rejects(client.callTool({ name: "skill_manage", arguments: { action: "delete", name: "alpha" } }), /Unknown tool: skill_manage/);
  assert.equal(fs.existsSync(path.join(tree.root, "alpha", "SKILL.md")), true);
});

test("with --authoring: skill_manage beside `skill`; a created skill is listed, activated and announced with tools/list_changed", T, async (t) => {
  const tree = skillTree();
  const authoring = path.join(tree.cwd, "authored");
  const client = await connect(["--root", tree.root, "--authoring", authoring, "--log-dir", tree.logDir], tree);
  t.after(() => client.close());
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changed += 1));

  const tools = (await client.listTools()).tools;
  assert.deepEqual(tools.map((tool) => tool.name), ["skill", "skill_manage"]);
  const manageTool = tools[1]!;
  assert.deepEqual(Object.keys(manageTool.inputSchema.properties ?? {}).sort(), ["action", "content", "file_path", "name", "new_string", "old_string", "replace_all"]);
  assert.equal(manageTool.annotations?.readOnlyHint, false);

  const created = await manage(client, {
    action: "create",
    name: "release-steps",
    content: "---\nname: release-steps\ndescription: How this team cuts a release.\n---\n\n1. Tag.\n2. Push.\n",
  });
  assert.equal(created.isError, false, created.text);
  assert.deepEqual(created.envelope, { ok: true, error: null, data: { name: "release-steps", status: "created" } });
  assert.match(created.text, /Created skill "release-steps"/);
  // Sent before the answer, so it has arrived by now.
  assert.equal(changed, 1);
  assert.match((await client.listTools()).tools[0]!.description!, /<name>release-steps<\/name>/);
  const names = dataOf<ListData>(await callSkill(client, {})).skill_groups.flatMap((group) => group.skills.map((skill) => skill.name));
  assert.deepEqual(names.sort(), ["alpha", "beta", "release-steps"]);
  const loaded = await callSkill(client, { name: "release-steps" });
  assert.match(loaded.text, /1\. Tag\.\n2\. Push\./);
  assert.equal(fs.existsSync(path.join(authoring, "release-steps", "SKILL.md")), true);

  // A read-only skill answers as error envelopes, with isError and no notification.
  const readOnly = await manage(client, { action: "edit", name: "alpha", content: "---\nname: alpha\ndescription: x\n---\n" });
  assert.equal(readOnly.isError, true);
  assert.equal(readOnly.envelope.ok ? null : readOnly.envelope.error.code, "read_only_skill");
  // The create is the version this connection wrote, so a patch needs no read first.
  const patched = await manage(client, { action: "patch", name: "release-steps", old_string: "Push.", new_string: "Push the tag." });
  assert.equal(patched.isError, false, patched.text);
  assert.equal(changed, 2);
  assert.match((await callSkill(client, { name: "release-steps", file_path: "SKILL.md" })).text, /Push the tag\./);
  // Changed by someone else since: refused until read again.
  fs.appendFileSync(path.join(authoring, "release-steps", "SKILL.md"), "3. Announce.\n");
  const stale = await manage(client, { action: "patch", name: "release-steps", old_string: "Tag.", new_string: "Tag it." });
  assert.equal(stale.envelope.ok ? null : stale.envelope.error.code, "stale_skill");
  assert.equal(changed, 2);

  const deleted = await manage(client, { action: "delete", name: "release-steps" });
  assert.equal(deleted.isError, false);
  assert.equal(changed, 3);
  assert.doesNotMatch((await client.listTools()).tools[0]!.description!, /release-steps/);
  await client.close();

  // Each call is a record of the connection's session log.
  const calls = readLogs(tree.logDir).flatMap((log) => log.calls).filter((call) => call.tool === "skill_manage");
  assert.deepEqual(calls.map((call) => (call.envelope.ok ? (call.envelope.data as { status: string }).status : call.envelope.error.code)), [
    "created",
    "read_only_skill",
    "patched",
    "stale_skill",
    "deleted",
  ]);
});

test("a config file's writable source opens skill_manage, and its trusted flag reaches the skills written there", T, async (t) => {
  const tree = skillTree();
  const config = path.join(tree.cwd, "team.json");
  const writable = { path: "./agent-skills", origin: "agent", agentId: "a1", writable: true, trusted: true };
  fs.writeFileSync(config, JSON.stringify({ sources: [tree.root, writable] }));
  const client = await connect(["--config", config, "--agent", "a1", "--no-log"], tree);
  t.after(() => client.close());
  assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name).sort(), ["skill", "skill_manage"]);
  const content = "---\nname: tokened\ndescription: Runs a script.\nallowed-tools: Bash\n---\n\n# Tokened\n";
  const created = await manage(client, { action: "create", name: "tokened", content });
  assert.equal(created.isError, false, created.text);
  assert.equal(fs.existsSync(path.join(tree.cwd, "agent-skills", "tokened", "SKILL.md")), true);
  // Trusted: the skill's own tool approval stands; the same source not trusted drops it with a warning.
  const ignored = async (): Promise<string[]> => {
    const run = await runCli(["doctor", "--config", config, "--json"], { cwd: tree.cwd, env: tree.env });
    return (JSON.parse(run.stdout) as { diagnostics: Array<{ code: string }> }).diagnostics.map((d) => d.code).filter((code) => code === "authored_grants_ignored");
  };
  assert.deepEqual(await ignored(), []);
  fs.writeFileSync(config, JSON.stringify({ sources: [tree.root, { ...writable, trusted: false }] }));
  assert.deepEqual(await ignored(), ["authored_grants_ignored"]);
});
