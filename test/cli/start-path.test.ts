// What a command loads on its way to its answer: the MCP SDK (and the zod and ajv it brings) is
// for `mcp` alone, and zod for reading a config file; a command or a library user that needs
// neither must not pay their start-up. Each run traces every module its process loads.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import { CLI_MAIN, homeEnv, REPO, TSX_LOADER } from "./cli-process.js";
import { cliTree } from "./skill-fixtures.js";
import { tempDir } from "../support/tmp.js";

const TRACE = path.join(REPO, "test/support/module-trace.mjs");
const tree = cliTree();

interface TracedRun {
  code: number | null;
  stderr: string;
  /** Every module URL the process loaded. */
  modules: string[];
}

/** Runs node with the module trace preloaded; `args` follow the loaders. */
function traced(args: string[]): Promise<TracedRun> {
  const file = path.join(tempDir("skillport-trace-"), "modules.txt");
  const child = spawn(process.execPath, ["--import", TSX_LOADER, "--import", pathToFileURL(TRACE).href, ...args], {
    cwd: tree.cwd,
    env: { ...process.env, ...homeEnv(tree.env.HOME!), MODULE_TRACE_FILE: file },
    stdio: ["pipe", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  // End of input: `mcp` over stdio shuts down once it has started.
  child.stdin.end();
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr, modules: fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean) : [] }));
  });
}

const isPackage = (name: string) => (url: string) => url.includes(`/node_modules/${name}/`);
const mcpSdk = isPackage("@modelcontextprotocol/sdk");
const zod = isPackage("zod");

function assertNotLoaded(run: TracedRun, what: string): void {
  // The trace must have seen the run at all, or "nothing loaded" proves nothing.
  assert.ok(run.modules.some((url) => url.endsWith("/src/cli/main.ts") || url.endsWith("/src/index.ts")), `no trace of ${what}: ${run.stderr}`);
  assert.deepEqual(run.modules.filter(mcpSdk), [], `${what} loaded the MCP SDK`);
  assert.deepEqual(run.modules.filter(zod), [], `${what} loaded zod`);
}

const commands: Array<[string, string[]]> = [
  ["list", ["list", "--json", "--root", tree.root]],
  ["show", ["show", "alpha", "--root", tree.root]],
  ["read", ["read", "alpha", "references/guide.md", "--root", tree.root]],
  ["validate", ["validate", tree.alphaDir]],
  ["prompt", ["prompt", "--root", tree.root]],
  ["doctor", ["doctor", "--root", tree.root]],
];

for (const [name, args] of commands) {
  test(`${name} loads neither the MCP SDK nor zod`, async () => {
    const run = await traced([CLI_MAIN, ...args]);
    assert.ok(run.code === 0 || run.code === 1, `${name} failed to run (${run.code}): ${run.stderr}`);
    assertNotLoaded(run, name);
  });
}

test("the trace sees what it is there to catch: mcp loads the SDK, a config file loads zod", async () => {
  const mcp = await traced([CLI_MAIN, "mcp", "--root", tree.root, "--no-log"]);
  assert.equal(mcp.code, 0, mcp.stderr);
  assert.ok(mcp.modules.some(mcpSdk), "mcp ran without the SDK in the trace");
  const config = path.join(tempDir("skillport-config-"), "skillport.config.json");
  fs.writeFileSync(config, JSON.stringify({ sources: [tree.root] }));
  const configured = await traced([CLI_MAIN, "list", "--json", "--config", config]);
  assert.equal(configured.code, 0, configured.stderr);
  assert.ok(configured.modules.some(zod), "a config file was read without zod in the trace");
});

test("a library user who loads skills and calls the tool in a session loads neither the MCP SDK nor zod", async () => {
  const index = pathToFileURL(path.join(REPO, "src/index.ts")).href;
  const script = `
    const { createSkillRuntime } = await import(${JSON.stringify(index)});
    const runtime = await createSkillRuntime({ sources: [{ path: ${JSON.stringify(tree.root)}, origin: "global" }] });
    const session = runtime.session();
    const listed = await session.call({});
    const loaded = await session.call({ name: "alpha" });
    await runtime.close();
    if (!JSON.stringify(listed).includes("alpha") || !JSON.stringify(loaded).includes("Run ")) process.exit(3);
  `;
  const run = await traced(["--input-type=module", "--eval", script]);
  assert.equal(run.code, 0, run.stderr);
  assertNotLoaded(run, "the library");
});
