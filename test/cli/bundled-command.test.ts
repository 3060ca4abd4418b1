/**
 * The bundled command (`dist/cli/`, what `skillport` runs once built or installed) against the
 * command run from source: the same output on real skills, an MCP server a real client talks to,
 * and a parse worker that starts from the bundle and walks a source. Needs the build
 * (`npm run build`, which CI runs before the tests); skipped without it.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { Worker } from "node:worker_threads";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { OWN_BUNDLE_COMMANDS } from "../../src/cli/command-name.js";
import { DEFAULT_WALK_OPTIONS } from "../../src/registry/discover.js";
import type { ParseWorkerMessage } from "../../src/registry/parse-protocol.js";
import { startHttpServer } from "../support/mcp-server.js";
import { CORPUS, EXAMPLES, writeSkill } from "../support/tmp.js";
import { collectBounded, homeEnv, REPO, runCli, sandbox, type CliRun } from "./cli-process.js";

const BUNDLE = path.join(REPO, "dist", "cli");
const COMMAND = path.join(BUNDLE, "skillport.js");
const built = fs.existsSync(COMMAND);
const skipUnbuilt = built ? false : "needs the built command (`npm run build`, which CI runs before the tests)";

function runBundled(args: string[], env: Record<string, string>, cwd: string): Promise<CliRun> {
  const child = spawn(process.execPath, [COMMAND, ...args], { cwd, env: { ...process.env, NO_COLOR: "1", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  return collectBounded(child, `bundled skillport ${args.join(" ")}`, 180_000);
}

test("the bundled command prints what the source prints, byte for byte, on the corpus and the examples", { skip: skipUnbuilt }, async () => {
  const box = sandbox();
  const roots = ["--root", CORPUS, "--root", EXAMPLES];
  const commands = [
    ["list", "--json", ...roots],
    ["list", ...roots],
    ["doctor", "--json", ...roots],
    ["prompt", ...roots],
    ["prompt", "--skills-ref", ...fs.readdirSync(CORPUS).map((name) => path.join(CORPUS, name))],
    ["validate", "--json", ...fs.readdirSync(CORPUS).map((name) => path.join(CORPUS, name))],
    ["show", "release-notes", "--json", ...roots],
    ["list", "--root", path.join(box.cwd, "missing")],
    ["no-such-command"],
  ];
  for (const args of commands) {
    const bundled = await runBundled(args, box.env, box.cwd);
    const source = await runCli(args, { cwd: box.cwd, env: box.env });
    assert.deepEqual(bundled, source, `skillport ${args.slice(0, 2).join(" ")}`);
  }
});

test("the bundled command loads the CommonJS packages it uses only when needed: a skill whose metadata is not text, and --metrics", { skip: skipUnbuilt }, async () => {
  const box = sandbox();
  const root = path.join(box.cwd, "skills");
  // Metadata that is not text is left out of the extension's entry, whose SKILL.md is then
  // written again with `yaml`'s stringify: an import of it once gave the bundle no such function.
  writeSkill(root, "mapped", "name: mapped\ndescription: Keeps a map in metadata.\nmetadata:\n  author: ops\n  limits:\n    runs: 3");
  writeSkill(root, "plain", "name: plain\ndescription: Nothing unusual.");
  for (const args of [["list", "--json", "--root", root], ["list", "--root", root]]) {
    const bundled = await runBundled(args, box.env, box.cwd);
    assert.equal(bundled.code, 0, bundled.stderr);
    assert.deepEqual(bundled, await runCli(args, { cwd: box.cwd, env: box.env }), `skillport ${args.join(" ")}`);
  }
  assert.match((await runBundled(["list", "--root", root], box.env, box.cwd)).stdout, /mapped +\[Skills Extension entry leaves out metadata\.limits \(not text\)\]/);

  const server = await startHttpServer(["--metrics", "--no-log", "--root", root], { cwd: box.cwd, env: { ...process.env, ...box.env } as Record<string, string>, command: COMMAND });
  try {
    const metrics = await fetch(new URL("/metrics", server.url));
    assert.equal(metrics.status, 200, server.stderr());
    assert.match(await metrics.text(), /^skillport_registry_skills\b.* 2$/m);
  } finally {
    await server.stop();
  }
});

test("the bundled command serves MCP over stdio to the SDK's client", { skip: skipUnbuilt }, async () => {
  const box = sandbox();
  const client = new Client({ name: "bundle-probe", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [COMMAND, "mcp", "--no-log", "--root", EXAMPLES], cwd: box.cwd, env: { ...process.env, ...homeEnv(box.home) } as Record<string, string>, stderr: "ignore" }),
  );
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ["skill"],
    );
    const activated = await client.callTool({ name: "skill", arguments: { name: "release-notes" } });
    const text = (activated.content as Array<{ type: string; text: string }>)[0]!.text;
    assert.match(text, /release-notes/);
    assert.equal(activated.isError ?? false, false);
    const prompts = await client.listPrompts();
    assert.ok(prompts.prompts.some((p) => p.name === "release-notes"));
  } finally {
    await client.close();
  }
});

for (const bundle of ["all", ...OWN_BUNDLE_COMMANDS]) test(`the parse worker of the ${bundle} bundle starts beside it and walks a source`, { skip: skipUnbuilt }, async () => {
  const worker = new Worker(path.join(BUNDLE, bundle, "parse-worker.js"));
  try {
    const messages: ParseWorkerMessage[] = [];
    const done = new Promise<void>((resolve, reject) => {
      worker.on("error", reject);
      worker.on("exit", (code) => reject(new Error(`the worker exited with code ${code}`)));
      worker.on("message", (message: ParseWorkerMessage) => {
        messages.push(message);
        if (message.kind === "ready") worker.postMessage({ id: 1, kind: "walk", source: EXAMPLES, known: { dirs: [], stamps: new Float64Array(0) }, options: DEFAULT_WALK_OPTIONS });
        if (message.kind === "done") resolve();
      });
    });
    await done;
    const found = messages.flatMap((m) => (m.kind === "found" ? m.found : []));
    const names = found.map((f) => (typeof f === "number" ? String(f) : JSON.stringify(f))).join("\n");
    for (const name of fs.readdirSync(EXAMPLES)) assert.match(names, new RegExp(`"${name}"`), `the walk found ${name}`);
  } finally {
    await worker.terminate();
  }
});

test("the bundle ships the licence of every package it copies code from", { skip: skipUnbuilt }, () => {
  const notices = fs.readFileSync(path.join(BUNDLE, "THIRD-PARTY-NOTICES.md"), "utf8");
  for (const name of ["@modelcontextprotocol/sdk", "commander", "zod"]) {
    const version = (JSON.parse(fs.readFileSync(path.join(REPO, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
    assert.match(notices, new RegExp(`^## ${name.replace(/[/@]/g, "\\$&")} ${version.replace(/\./g, "\\.")} `, "m"));
  }
  assert.match(notices, /Permission is hereby granted/);
});

/** The bundle files a run loaded, from Node's own trace of the modules it stored. */
function filesLoaded(stderr: string): Set<string> {
  return new Set([...stderr.matchAll(/Storing (file:\/\/\S+\.js) /g)].map((match) => new URL(match[1]!).pathname));
}

/** The source modules (`session/session.js`, …) a bundled run loaded, from the chunk files it loaded. */
function modulesLoaded(stderr: string): string[] {
  const chunks = filesLoaded(stderr);
  return [...new Set([...chunks].flatMap((chunk) => [...fs.readFileSync(chunk, "utf8").matchAll(/^\/\/ dist\/src\/(\S+\.js)$/gm)].map((match) => match[1]!)))].sort();
}

/** A conversation's machinery: the session, the tool it answers with, the catalog it prompts with, its log. */
const CONVERSATION_MODULES = ["session/session.js", "session/log.js", "tool/skill-tool.js", "tool/activate.js", "prompt/catalog.js"];

test("each command loads what it uses: list, doctor and show load none of a conversation's modules, list from its own bundle; read does", { skip: skipUnbuilt }, async () => {
  const box = sandbox();
  const roots = ["--root", EXAMPLES];
  const trace = { ...box.env, NODE_DEBUG: "esm" };
  for (const args of [["list", "--json", ...roots], ["doctor", "--json", ...roots], ["show", "release-notes", ...roots]]) {
    const run = await runBundled(args, trace, box.cwd);
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    const loaded = modulesLoaded(run.stderr);
    assert.ok(loaded.includes("registry/discover.js"), `${args[0]}: the trace names the modules loaded`);
    assert.deepEqual(loaded.filter((module) => CONVERSATION_MODULES.includes(module)), [], args[0]);
  }
  // list has a bundle of its own: the entry, then nothing from the shared one.
  const list = await runBundled(["list", ...roots], trace, box.cwd);
  const files = [...filesLoaded(list.stderr)].map((file) => path.relative(BUNDLE, file));
  assert.deepEqual(files.filter((file) => file !== "skillport.js" && !file.startsWith(`list${path.sep}`)), [], files.join(" "));
  assert.ok(files.length < 20, `${files.length} files`);
  const read = await runBundled(["read", "release-notes", ...roots], trace, box.cwd);
  assert.equal(read.code, 0, read.stderr.slice(-2000));
  assert.deepEqual(modulesLoaded(read.stderr).filter((module) => CONVERSATION_MODULES.includes(module)), [...CONVERSATION_MODULES].sort(), "read starts a session");
});
