#!/usr/bin/env node
// Packs the project as `npm pack` does (the `prepack` build included), installs the tarball into
// an empty project and uses it the way a user would: the CLI through npx, the MCP server over
// stdio, and the library's two entry points. Exits non-zero on the first thing that fails.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "skillport-pack-"));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const npx = process.platform === "win32" ? "npx.cmd" : "npx";

function step(what) {
  process.stderr.write(`pack-test: ${what}\n`);
}
function fail(message) {
  process.stderr.write(`pack-test: FAILED: ${message}\n`);
  process.exit(1);
}
function run(command, args, cwd, { expectFailure = false } = {}) {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, npm_config_update_notifier: "false" } });
  if (result.error) fail(`${command} ${args.join(" ")}: ${result.error.message}`);
  if (!expectFailure && result.status !== 0) fail(`${command} ${args.join(" ")} exited ${result.status}\n${result.stdout}\n${result.stderr}`);
  if (expectFailure && result.status === 0) fail(`${command} ${args.join(" ")} succeeded; it should have failed`);
  return result;
}

try {
  step("npm pack");
  const packed = JSON.parse(run(npm, ["pack", "--json", "--pack-destination", work], repo).stdout.slice(0))[0];
  const files = packed.files.map((f) => f.path);
  const required = ["LICENSE", "README.md", "docs/CLI.md", "docs/DEPLOY.md", "package.json", "dist/cli/skillport.js", "dist/cli/all/parse-worker.js", "dist/cli/list/parse-worker.js", "dist/cli/mcp/parse-worker.js", "dist/cli/THIRD-PARTY-NOTICES.md", "dist/src/index.js", "dist/src/index.d.ts", "dist/src/mcp.js", "dist/src/adapters/ai-sdk.js", "examples/skills/release-notes/SKILL.md"];
  for (const file of required) if (!files.includes(file)) fail(`the tarball lacks ${file}`);
  const stray = files.filter((f) => f.endsWith(".map") || f.endsWith(".ts") && !f.endsWith(".d.ts") || f.startsWith("test/") || f.startsWith("src/") || f === "examples/demo.ts");
  if (stray.length > 0) fail(`the tarball ships files that do not run from it: ${stray.join(", ")}`);

  const project = path.join(work, "project");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "skillport-pack-probe", private: true, type: "module" }));
  step(`npm install ${packed.filename}`);
  const installed = run(npm, ["install", "--no-audit", "--no-fund", "--prefer-offline", path.join(work, packed.filename)], project);
  // The package runs no script when installed: its build happens before packing.
  if (/install-scripts|allowScripts/.test(installed.stderr)) fail(`installing the tarball warns about scripts:\n${installed.stderr}`);

  step("npx skillport --help");
  const help = run(npx, ["--no-install", "skillport", "--help"], project).stdout;
  if (!/Usage: skillport/.test(help)) fail(`--help printed no usage:\n${help}`);

  step("npx skillport list");
  const examples = path.join(project, "node_modules", "skillport", "examples", "skills");
  const list = JSON.parse(run(npx, ["--no-install", "skillport", "list", "--json", "--root", examples], project).stdout);
  const names = list.skills.map((s) => s.name).sort();
  if (names.join(",") !== "commit-message,http-smoke-test,release-notes") fail(`list found ${names.join(", ")}`);

  step("MCP tools/list over stdio, and the library's entry points (skillport, skillport/mcp)");
  fs.writeFileSync(
    path.join(project, "probe.mjs"),
    `
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createSkillRuntime } from "skillport";

const client = new Client({ name: "pack-probe", version: "1.0.0" });
await client.connect(new StdioClientTransport({
  command: process.execPath,
  args: ["node_modules/skillport/dist/cli/skillport.js", "mcp", "--no-log", "--root", ${JSON.stringify(examples)}],
  stderr: "ignore",
}));
const { tools } = await client.listTools();
if (tools.map((t) => t.name).join() !== "skill") throw new Error("tools/list: " + JSON.stringify(tools));
await client.close();

const runtime = await createSkillRuntime({ sources: [{ path: ${JSON.stringify(examples)}, origin: "bundled" }] });
const session = runtime.session({ log: false });
const loaded = await session.call({ name: "release-notes" });
if (!loaded.ok || loaded.data.status !== "loaded") throw new Error("activation: " + JSON.stringify(loaded));
session.close();

// The MCP server as a library (skillport/mcp), with the option that withholds the tool.
const { serveMcpHttp } = await import("skillport/mcp");
const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
const http = await serveMcpHttp(runtime, { session: { log: false }, version: "0.0.0", log: () => {}, hideToolFromExtensionClients: true }, { port: 0 });
const host = new Client({ name: "pack-probe-host", version: "1.0.0" }, { capabilities: { extensions: { "io.modelcontextprotocol/skills": {} } } });
await host.connect(new StreamableHTTPClientTransport(new URL(http.url)));
if ((await host.listTools()).tools.length !== 0) throw new Error("the tool was offered to an extension client");
const resources = (await host.listResources()).resources.map((r) => r.uri);
if (!resources.includes("skill://release-notes/SKILL.md")) throw new Error("resources/list: " + JSON.stringify(resources));
await host.close();
await http.close();
await runtime.close();
console.log("ok");
`,
  );
  const probe = run(process.execPath, ["probe.mjs"], project).stdout;
  if (probe.trim() !== "ok") fail(`probe printed ${probe}`);

  // Node 20.19 loads ES modules through require(): CommonJS callers get the same library.
  step('require("skillport") and require("skillport/mcp") from CommonJS');
  fs.writeFileSync(
    path.join(project, "require-probe.cjs"),
    `
const { createSkillRuntime } = require("skillport");
const { serveMcpStdio } = require("skillport/mcp");
if (typeof serveMcpStdio !== "function") throw new Error("skillport/mcp: " + typeof serveMcpStdio);
(async () => {
  const runtime = await createSkillRuntime({ sources: [{ path: ${JSON.stringify(examples)}, origin: "bundled" }] });
  const session = runtime.session({ log: false });
  const loaded = await session.call({ name: "commit-message" });
  if (!loaded.ok || loaded.data.status !== "loaded") throw new Error("activation: " + JSON.stringify(loaded));
  session.close();
  await runtime.close();
  console.log("ok");
})().catch((error) => { console.error(error); process.exit(1); });
`,
  );
  const viaRequire = run(process.execPath, ["require-probe.cjs"], project);
  if (viaRequire.stdout.trim() !== "ok") fail(`require probe printed ${viaRequire.stdout}${viaRequire.stderr}`);
  if (/ExperimentalWarning/.test(viaRequire.stderr)) process.stderr.write(`pack-test: note: ${viaRequire.stderr.trim().split("\n")[0]}\n`);

  step("skillport/ai-sdk without ai says what to install");
  fs.writeFileSync(
    path.join(project, "ai-probe.mjs"),
    `
const { aiSdkSkillTool } = await import("skillport/ai-sdk");
const { createSkillRuntime } = await import("skillport");
const runtime = await createSkillRuntime({ sources: [{ path: ${JSON.stringify(examples)}, origin: "bundled" }] });
const session = runtime.session({ log: false });
const tool = aiSdkSkillTool(session);
const envelope = await tool.execute({ name: "commit-message" }, { toolCallId: "t1", messages: [] });
if (envelope.data?.status !== "loaded") throw new Error(JSON.stringify(envelope));
session.close();
await runtime.close();
console.log("ok");
`,
  );
  const missing = run(process.execPath, ["ai-probe.mjs"], project, { expectFailure: true }).stderr;
  if (!missing.includes("skillport/ai-sdk needs the Vercel AI SDK") || !missing.includes("npm install ai")) fail(`unclear error without ai:\n${missing}`);

  // `ai` from this checkout's own install (5 as `ai`, 6 as `ai6`), linked in, so no download is needed.
  for (const [label, dir] of [["ai 5", "ai"], ["ai 6", "ai6"]]) {
    step(`skillport/ai-sdk with ${label}`);
    const link = path.join(project, "node_modules", "ai");
    fs.rmSync(link, { force: true, recursive: true });
    fs.symlinkSync(path.join(repo, "node_modules", dir), link, "dir");
    const out = run(process.execPath, ["ai-probe.mjs"], project).stdout;
    if (out.trim() !== "ok") fail(`with ${label}: ${out}`);
  }
  step(`ok (${files.length} files, ${packed.size} bytes packed)`);
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
