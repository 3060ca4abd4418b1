import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ListData, LoadedData } from "../../src/tool/envelope.js";
import { eventually } from "../support/eventually.js";
import { serverCommand } from "../support/mcp-server.js";
import { writeSkill } from "../support/tmp.js";
import { callSkill, dataOf, processGone, readLogs, skillTree, type SkillTree } from "./mcp-fixtures.js";

const tree: SkillTree = skillTree();
let client: Client;
let transport: StdioClientTransport;

async function connect(args: string[], env: Record<string, string>, cwd: string): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const t = new StdioClientTransport({ ...serverCommand(args), env, cwd, stderr: "pipe" });
  let stderr = "";
  t.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const c = new Client({ name: "skillport-test", version: "1.0.0" });
  await c.connect(t);
  return { client: c, transport: t, stderr: () => stderr };
}

before(async () => {
  const connected = await connect(["--root", tree.root, "--log-dir", tree.logDir], tree.env, tree.cwd);
  client = connected.client;
  transport = connected.transport;
  after(() => {
    if (process.env.SKILLPORT_TEST_VERBOSE) process.stderr.write(connected.stderr());
  });
});

after(async () => {
  await client?.close();
});

test("tools/list shows exactly one tool, `skill`, with the flat schema and read-only annotations", async () => {
  const { tools } = await client.listTools();
  assert.equal(tools.length, 1);
  const [tool] = tools;
  assert.equal(tool!.name, "skill");
  assert.deepEqual(Object.keys(tool!.inputSchema).sort(), ["properties", "type"]);
  assert.equal(tool!.inputSchema.type, "object");
  const properties = tool!.inputSchema.properties as Record<string, { type: string; description: string }>;
  assert.deepEqual(Object.keys(properties).sort(), ["file_path", "name"]);
  assert.equal(properties.name!.type, "string");
  assert.equal(properties.file_path!.type, "string");
  assert.ok(properties.name!.description.length > 0 && properties.file_path!.description.length > 0);
  assert.equal(tool!.annotations?.readOnlyHint, true);
  assert.equal(tool!.annotations?.idempotentHint, true);
  assert.equal(tool!.annotations?.openWorldHint, false);
  assert.match(tool!.description!, /<available_skills>/);
  assert.match(tool!.description!, /<name>alpha<\/name>/);
  assert.match(tool!.description!, /<name>beta<\/name>/);
  assert.doesNotMatch(client.getInstructions() ?? "", /<name>|available_skills/, "the catalog is sent once, in the description; the instructions point there");
  assert.doesNotMatch(tool!.description!, /gated/, "a skill whose requirements are unmet is not offered in the description");
  assert.equal(client.getServerCapabilities()?.tools?.listChanged, true);
});

test("{} lists the usable skills: the envelope is the structured content, the text is for the model", async () => {
  const call = await callSkill(client, {});
  assert.equal(call.isError, false);
  const data = dataOf<ListData>(call);
  assert.equal(data.count, 2, "gated, whose variable is unset, is not offered");
  assert.deepEqual(
    data.skill_groups.flatMap((g) => g.skills.map((s) => s.name)),
    ["alpha", "beta"],
  );
  assert.match(call.text, /alpha/);
});

test("{name} activates with {baseDir} resolved; a second call on the connection is loaded again, with the content", async () => {
  const first = await callSkill(client, { name: "alpha" });
  const loaded = dataOf<LoadedData>(first);
  assert.equal(loaded.status, "loaded");
  assert.match(loaded.content, new RegExp(`Run ${tree.alphaDir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/scripts/run\\.sh`));
  assert.ok(loaded.resource_files?.files.includes("references/guide.md"));
  assert.match(first.text, /^<skill_content name="alpha">/);
  const second = await callSkill(client, { name: "alpha" });
  assert.equal(second.isError, false);
  assert.deepEqual(dataOf<LoadedData>(second), loaded, "a connection is not a conversation: no dedup by default");
});

test("{name, file_path} reads a file without activating", async () => {
  const call = await callSkill(client, { name: "beta", file_path: "SKILL.md" });
  assert.equal(dataOf<{ status: string }>(call).status, "file_loaded");
  assert.match(call.text, /^---\nname: beta/);
  const guide = await callSkill(client, { name: "alpha", file_path: "references/guide.md" });
  assert.equal(guide.text, "# Guide\n\nThe alpha guide.\n");
  // Reading beta's SKILL.md did not activate beta: activating it now is fresh.
  assert.equal(dataOf<{ status: string }>(await callSkill(client, { name: "beta" })).status, "loaded");
});

test("every failure sets isError and carries its code", async () => {
  const cases: Array<[Record<string, unknown>, string, RegExp]> = [
    [{ bogus: 1 }, "invalid_arguments", /bogus/],
    [{ file_path: "SKILL.md" }, "invalid_arguments", /name/],
    [{ name: "alpah" }, "skill_not_found", /alpha/],
    [{ name: "gated" }, "skill_unavailable", /SKILLPORT_TEST_NEVER_SET/],
    [{ name: "alpha", file_path: "../beta/SKILL.md" }, "skill_read_error", /./],
    [{ name: "alpha", file_path: "references/missing.md" }, "skill_read_error", /./],
  ];
  for (const [args, code, message] of cases) {
    const call = await callSkill(client, args);
    assert.equal(call.isError, true, JSON.stringify(args));
    assert.equal(call.envelope.ok, false);
    if (call.envelope.ok) continue;
    assert.equal(call.envelope.error.code, code, JSON.stringify(args));
    assert.match(call.envelope.error.message, message);
    assert.equal(call.text, call.envelope.error.message);
  }
  const illegal = await callSkill(client, { name: "alpha", file_path: "../beta/SKILL.md" });
  assert.equal(illegal.envelope.ok === false && illegal.envelope.error.reason, "illegal_path");
  const missing = await callSkill(client, { name: "alpha", file_path: "references/missing.md" });
  assert.equal(missing.envelope.ok === false && missing.envelope.error.reason, "not_found");
});

test("arguments that are not an object get the invalid_arguments envelope, as the library gives", async () => {
  for (const args of [["alpha"], "alpha", 7, true]) {
    // Sent raw: the SDK client would not send these, but a client is free to.
    const result = await client.request({ method: "tools/call", params: { name: "skill", arguments: args } }, CallToolResultSchema);
    const envelope = result.structuredContent as { ok: boolean; error?: { code: string } };
    assert.equal(result.isError, true, JSON.stringify(args));
    assert.equal(envelope.ok, false);
    assert.equal(envelope.error?.code, "invalid_arguments", JSON.stringify(args));
  }
  // No arguments at all, or null, is the empty call: it lists.
  for (const params of [{ name: "skill" }, { name: "skill", arguments: null }]) {
    const result = await client.request({ method: "tools/call", params }, CallToolResultSchema);
    assert.equal((result.structuredContent as { ok: boolean }).ok, true, JSON.stringify(params));
  }
});

test("a tool other than `skill` is a protocol error, not a tool result", async () => {
  await assert.rejects(client.callTool({ name: "shell", arguments: {} }), /Unknown tool: shell/);
});

test("arguments nested 5,000 deep (and 100,000 deep) answer invalid_arguments, and each call is logged", async () => {
  // Written as raw JSON-RPC: the SDK client's own JSON.stringify cannot send such arguments.
  const logDir = path.join(tree.cwd, "deep-logs");
  const { command, args } = serverCommand(["--root", tree.root, "--log-dir", logDir]);
  const child = spawn(command, args, { cwd: tree.cwd, env: tree.env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.resume();
  const send = (text: string): void => void child.stdin!.write(`${text}\n`);
  send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }));
  await eventually(() => stdout.includes('"id":1'), "the initialize response");
  send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  const deepArray = (depth: number) => `${"[".repeat(depth)}"x"${"]".repeat(depth)}`;
  send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"skill","arguments":${deepArray(5_000)}}}`);
  send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"skill","arguments":{"name":${deepArray(5_000)}}}}`);
  send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"skill","arguments":{"name":${deepArray(100_000)}}}}`);
  const responses = () => stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line) as { id?: number; result?: { isError?: boolean; structuredContent?: { error?: { code: string } } } });
  await eventually(() => [2, 3, 4].every((id) => responses().some((r) => r.id === id)), "the three tools/call responses");
  for (const id of [2, 3, 4]) {
    const response = responses().find((r) => r.id === id)!;
    assert.equal(response.result?.isError, true, JSON.stringify(response).slice(0, 300));
    assert.equal(response.result?.structuredContent?.error?.code, "invalid_arguments");
  }
  child.stdin!.end();
  await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once("exit", resolve)));
  const logs = readLogs(logDir);
  assert.equal(logs.reduce((sum, log) => sum + log.calls.length, 0), 3);
  assert.equal(logs[0]!.problems, 0);
});

test("the unknown-tool error reaches the client with its code said once", async () => {
  const error = await client.callTool({ name: "shell", arguments: {} }).then(
    () => assert.fail("the call should be refused"),
    (e: unknown) => e as { code?: number; message: string },
  );
  assert.equal(error.code, -32602);
  assert.equal(error.message, "MCP error -32602: Unknown tool: shell. This server has one tool, `skill`.");
});

test("a skill created on disk while the server runs activates on the first call", async () => {
  writeSkill(tree.root, "late-arrival", "name: late-arrival\ndescription: Written after the server started.");
  const call = await callSkill(client, { name: "late-arrival" });
  assert.equal(call.isError, false, call.text);
  assert.equal(dataOf<LoadedData>(call).status, "loaded");
});

test("closing the client ends the server and leaves a readable session log of every call", async () => {
  const pid = transport.pid!;
  await client.close();
  await eventually(() => processGone(pid), "the server to exit");
  const logs = readLogs(tree.logDir);
  assert.equal(logs.length, 1);
  const [log] = logs;
  assert.equal(log!.problems, 0);
  const statuses = log!.calls.map((c) => (c.envelope.ok ? (c.envelope.data as { status?: string }).status ?? "list" : c.envelope.error.code));
  assert.deepEqual(statuses.slice(0, 3), ["list", "loaded", "loaded"]);
  assert.ok(statuses.includes("skill_unavailable"));
  assert.equal(statuses.at(-1), "loaded");
});

test("tool policy: a scope that may not use `skill` is offered no tool, and a call says tool_unavailable", async () => {
  const config = path.join(tree.cwd, "locked.config.json");
  fs.writeFileSync(config, JSON.stringify({ sources: [tree.root], agents: { locked: { deniedTools: ["skill"] } } }));
  const locked = await connect(["--config", config, "--agent", "locked", "--no-log"], tree.env, tree.cwd);
  try {
    assert.deepEqual((await locked.client.listTools()).tools, []);
    assert.equal(locked.client.getInstructions(), undefined);
    const call = await callSkill(locked.client, {});
    assert.equal(call.isError, true);
    assert.equal(call.envelope.ok === false && call.envelope.error.code, "tool_unavailable");
  } finally {
    await locked.client.close();
  }
});

test("with no skills there is no catalog: no instructions, and the description has no empty block", async () => {
  const empty = path.join(tree.cwd, "empty");
  fs.mkdirSync(empty);
  const bare = await connect(["--root", empty, "--no-log"], tree.env, tree.cwd);
  try {
    assert.equal(bare.client.getInstructions(), undefined);
    const { tools } = await bare.client.listTools();
    assert.equal(tools.length, 1);
    assert.doesNotMatch(tools[0]!.description!, /available_skills/);
    assert.equal(dataOf<ListData>(await callSkill(bare.client, {})).count, 0);
  } finally {
    await bare.client.close();
  }
});

test("--watch: a new skill on disk sends tools/list_changed and the next tools/list shows it", async () => {
  const watched = path.join(tree.cwd, "watched");
  writeSkill(watched, "first", "name: first\ndescription: Present from the start.");
  const live = await connect(["--root", watched, "--watch", "--no-log"], tree.env, tree.cwd);
  try {
    let changed = 0;
    live.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changed += 1));
    assert.doesNotMatch((await live.client.listTools()).tools[0]!.description!, /second-skill/);
    writeSkill(watched, "second-skill", "name: second-skill\ndescription: Dropped in while watching.");
    await eventually(() => changed > 0, "tools/list_changed");
    assert.match((await live.client.listTools()).tools[0]!.description!, /<name>second-skill<\/name>/);
  } finally {
    await live.client.close();
  }
});

test("--watch with the default folders: a folder created after start is watched, and tools/list_changed is sent", async () => {
  // A repository with no skill folder anywhere yet, and a HOME with none either.
  const repo = path.join(tree.cwd, "defaults-repo");
  const cwd = path.join(repo, "pkg");
  const home = path.join(tree.cwd, "defaults-home");
  fs.mkdirSync(path.join(repo, ".git"), { recursive: true });
  fs.mkdirSync(cwd, { recursive: true });
  fs.mkdirSync(home);
  const live = await connect(["--watch", "--no-log"], { ...tree.env, HOME: home }, cwd);
  try {
    let changed = 0;
    live.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changed += 1));
    assert.deepEqual(dataOf<ListData>(await callSkill(live.client, {})).count, 0);
    assert.match(live.stderr(), /No skills found\. Folders searched:/);

    writeSkill(path.join(home, ".codex", "skills"), "late-global", "name: late-global\ndescription: In a global folder made after start.");
    await eventually(() => changed > 0, "tools/list_changed for the new global folder");
    assert.match((await live.client.listTools()).tools[0]!.description!, /<name>late-global<\/name>/);

    const seen = changed;
    writeSkill(path.join(repo, ".claude", "skills"), "late-project", "name: late-project\ndescription: In the repository root's folder, made after start.");
    await eventually(() => changed > seen, "tools/list_changed for the new project folder");
    const listed = dataOf<ListData>(await callSkill(live.client, {}));
    assert.deepEqual(listed.skill_groups.map((g) => [g.origin, g.skills.map((s) => s.name)]), [["project", ["late-project"]], ["global", ["late-global"]]]);
  } finally {
    await live.client.close();
  }
});

test("mcp --root with a folder that does not exist yet and --watch starts with a warning, and serves skills created there later", { timeout: 120_000 }, async () => {
  const missing = path.join(tree.cwd, "workspace-without-skills", ".agents", "skills");
  const live = await connect(["--root", missing, "--watch", "--no-log"], tree.env, tree.cwd);
  try {
    let changed = 0;
    live.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changed += 1));
    assert.equal(dataOf<ListData>(await callSkill(live.client, {})).count, 0);
    assert.match(live.stderr(), /^warning: --root .*: directory does not exist \(.*\); watching for it/m);

    writeSkill(missing, "arrived-later", "name: arrived-later\ndescription: Written after the server started, into a folder that did not exist.");
    await eventually(() => changed > 0, "tools/list_changed once the folder and its skill exist");
    const listed = dataOf<ListData>(await callSkill(live.client, {}));
    assert.deepEqual(listed.skill_groups.flatMap((g) => g.skills.map((skill) => skill.name)), ["arrived-later"]);
  } finally {
    await live.client.close();
  }
});

test("mcp --root with a folder that does not exist, without --watch, is a usage error (exit 2)", { timeout: 60_000 }, async () => {
  const missing = path.join(tree.cwd, "no-such-folder");
  const { command, args } = serverCommand(["--root", missing, "--no-log"]);
  const child = spawn(command, args, { cwd: tree.cwd, env: tree.env, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  assert.equal(code, 2);
  assert.match(stderr, /^error: --root .*no-such-folder: directory does not exist/m);
});

test("a killed client (its end of the pipe gone) still leaves the server's log readable", async () => {
  const logDir = path.join(tree.cwd, "killed-logs");
  const { command, args } = serverCommand(["--root", tree.root, "--log-dir", logDir]);
  // A separate client process, so it can die with SIGKILL the way a crashed editor does.
  const script = `
    import { Client } from ${JSON.stringify(import.meta.resolve("@modelcontextprotocol/sdk/client/index.js"))};
    import { StdioClientTransport } from ${JSON.stringify(import.meta.resolve("@modelcontextprotocol/sdk/client/stdio.js"))};
    const transport = new StdioClientTransport({ command: ${JSON.stringify(command)}, args: ${JSON.stringify(args)}, cwd: ${JSON.stringify(tree.cwd)}, env: ${JSON.stringify(tree.env)}, stderr: "ignore" });
    const client = new Client({ name: "doomed", version: "1.0.0" });
    await client.connect(transport);
    await client.callTool({ name: "skill", arguments: { name: "alpha" } });
    process.stdout.write("ready " + transport.pid + "\\n");
    setInterval(() => {}, 1000);
  `;
  const doomed = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  doomed.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  await eventually(() => /ready \d+/.test(out) || doomed.exitCode !== null, "the client to activate a skill");
  const serverPid = Number(/ready (\d+)/.exec(out)?.[1]);
  assert.ok(serverPid > 0, `client did not start: ${out}`);
  doomed.kill("SIGKILL");
  await eventually(() => processGone(serverPid), "the orphaned server to notice and exit");
  const logs = readLogs(logDir);
  assert.equal(logs.length, 1);
  assert.equal(logs[0]!.problems, 0);
  assert.equal(logs[0]!.calls.length, 1);
  assert.equal(logs[0]!.calls[0]!.envelope.ok && (logs[0]!.calls[0]!.envelope.data as LoadedData).status, "loaded");
});

/** Starts the server as a plain child and speaks just enough JSON-RPC to make one call. */
async function rawServerWithOneCall(logDir: string): Promise<{ child: ReturnType<typeof spawn>; stdout: () => string; stderr: () => string }> {
  const { command, args } = serverCommand(["--root", tree.root, "--log-dir", logDir]);
  const child = spawn(command, args, { cwd: tree.cwd, env: tree.env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const send = (message: object): void => void child.stdin!.write(`${JSON.stringify(message)}\n`);
  send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
  await eventually(() => stdout.includes('"id":1'), "the initialize response");
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "skill", arguments: { name: "beta" } } });
  await eventually(() => stdout.includes('"id":2'), "the tools/call response");
  return { child, stdout: () => stdout, stderr: () => stderr };
}

function exitOf(child: ReturnType<typeof spawn>): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once("exit", (code, signal) => resolve({ code, signal }));
  });
}

test("SIGTERM shuts the server down cleanly (exit 0) with the log flushed", async () => {
  const logDir = path.join(tree.cwd, "term-logs");
  const server = await rawServerWithOneCall(logDir);
  server.child.kill("SIGTERM");
  assert.deepEqual(await exitOf(server.child), { code: 0, signal: null });
  assert.match(server.stderr(), /shutting down \(SIGTERM\)/);
  const logs = readLogs(logDir);
  assert.equal(logs[0]!.calls.length, 1);
  assert.equal(logs[0]!.problems, 0);
});

test("end of stdin shuts the server down cleanly (exit 0), stdout carrying only protocol messages", async () => {
  const logDir = path.join(tree.cwd, "eof-logs");
  const server = await rawServerWithOneCall(logDir);
  server.child.stdin!.end();
  assert.deepEqual(await exitOf(server.child), { code: 0, signal: null });
  assert.match(server.stderr(), /shutting down \(end of input\)/);
  const lines = server.stdout().split("\n").filter(Boolean);
  assert.equal(lines.length, 2);
  for (const line of lines) assert.equal(JSON.parse(line).jsonrpc, "2.0");
  assert.equal(readLogs(logDir)[0]!.calls.length, 1);
});
