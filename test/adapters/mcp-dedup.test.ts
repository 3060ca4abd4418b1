/**
 * Over MCP a connection is not a conversation (SPEC §5.1, revised): the real server, the SDK's
 * own client, over stdio and over HTTP (sessions in the process and sessions in a store). By
 * default two prompts and two activations on one connection each answer with the content; with
 * `--dedup connection` a repeated activation answers the stub, and a prompt still the content.
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { LoadedData } from "../../src/tool/envelope.js";
import { serverCommand, startHttpServer } from "../support/mcp-server.js";
import { freshDatabase } from "../support/postgres.js";
import { callSkill, dataOf, skillTree } from "./mcp-fixtures.js";

const tree = skillTree();
const db = await freshDatabase();

type Transport = "stdio" | "http" | "http --store";

async function connect(transport: Transport, extra: string[]): Promise<{ client: Client; stop(): Promise<void> }> {
  const client = new Client({ name: "dedup-test", version: "1.0.0" });
  if (transport === "stdio") {
    await client.connect(new StdioClientTransport({ ...serverCommand(["--root", tree.root, "--no-log", ...extra]), env: tree.env, cwd: tree.cwd, stderr: "pipe" }));
    return { client, stop: () => client.close() };
  }
  const store = transport === "http --store" ? ["--store", db.url!] : ["--no-log"];
  const server = await startHttpServer(["--root", tree.root, ...store, ...extra], { cwd: tree.cwd, env: tree.env });
  try {
    await client.connect(new StreamableHTTPClientTransport(server.url));
  } catch (error) {
    await server.stop();
    throw error;
  }
  return {
    client,
    async stop() {
      await client.close();
      await server.stop();
    },
  };
}

/** Two prompts, then two activations, of one skill on one connection: the text of each prompt and each envelope's data. */
async function twiceEach(client: Client): Promise<{ prompts: string[]; activations: Array<{ status: string; content?: string }> }> {
  const prompts: string[] = [];
  for (let i = 0; i < 2; i++) prompts.push(((await client.getPrompt({ name: "alpha" })).messages[0]!.content as { text: string }).text);
  const activations: Array<{ status: string; content?: string }> = [];
  for (let i = 0; i < 2; i++) activations.push(dataOf<{ status: string; content?: string }>(await callSkill(client, { name: "alpha" })));
  return { prompts, activations };
}

for (const transport of ["stdio", "http", "http --store"] as const) {
  describe(`over ${transport}`, { skip: transport === "http --store" ? (db.skip ?? false) : false }, () => {
    const open: Array<() => Promise<void>> = [];
    after(async () => {
      for (const stop of open) await stop();
    });

    test("by default every prompt and every activation on one connection answers with the content", async () => {
      const { client, stop } = await connect(transport, []);
      open.push(stop);
      const { prompts, activations } = await twiceEach(client);
      for (const text of prompts) assert.match(text, /^<skill_content name="alpha">[\s\S]*Run \S+\/scripts\/run\.sh/);
      assert.equal(prompts[1], prompts[0]);
      assert.deepEqual(activations.map((a) => a.status), ["loaded", "loaded"]);
      assert.match((activations[1] as LoadedData).content, /^# Alpha/);
      assert.equal(activations[1]!.content, activations[0]!.content);
    });

    test("with --dedup connection a repeated activation answers already_active; a prompt still answers with the content", async () => {
      const { client, stop } = await connect(transport, ["--dedup", "connection"]);
      open.push(stop);
      const { prompts, activations } = await twiceEach(client);
      for (const text of prompts) assert.match(text, /^<skill_content name="alpha">[\s\S]*# Alpha/);
      assert.deepEqual(activations.map((a) => a.status), ["already_active", "already_active"], "the prompts activated it on this connection");
      assert.equal(activations[0]!.content, undefined);
    });
  });
}

test("mcp --dedup takes none or connection; anything else is a usage error", async () => {
  const { spawnSync } = await import("node:child_process");
  const { command, args } = serverCommand(["--root", tree.root, "--no-log", "--dedup", "conversation"]);
  const run = spawnSync(command, args, { env: tree.env, cwd: tree.cwd, encoding: "utf8", timeout: 120_000, input: "" });
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /--dedup/);
});
