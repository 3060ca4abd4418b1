/**
 * MCP `tools/call` round trips over stdio: the real `skillport mcp` server, as built,
 * driven by the MCP SDK's own client, timed from the client's side (request out, result parsed).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { BenchTree } from "./bench-tree.js";
import { timeCalls } from "./measure.js";

const REPO = path.resolve(import.meta.dirname, "..");
const WARMUP_CALLS = 10;

export interface McpRoundTrips {
  /** From spawning the server to a connected client with the tool list read. */
  startMs: number;
  activate: number[];
  read: number[];
}

async function call(client: Client, args: Record<string, unknown>, status: string): Promise<void> {
  const result = await client.callTool({ name: "skill", arguments: args });
  const envelope = result.structuredContent as { ok?: boolean; data?: { status?: string } } | undefined;
  if (result.isError || envelope?.ok !== true || envelope.data?.status !== status) {
    throw new Error(`MCP call ${JSON.stringify(args)} failed: ${JSON.stringify(result).slice(0, 300)}`);
  }
}

export async function measureMcpRoundTrips(tree: BenchTree, samples: number): Promise<McpRoundTrips> {
  const start = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    // The built CLI under plain Node, as `npx skillport mcp` runs it.
    args: [path.join(REPO, "dist/cli/skillport.js"), "mcp", ...tree.groups.flatMap((g) => ["--root", g])],
    cwd: tree.root,
    env: { ...process.env, HOME: tree.root } as Record<string, string>,
    stderr: "ignore",
  });
  const client = new Client({ name: "skillport-bench", version: "1.0.0" });
  await client.connect(transport);
  try {
    await client.listTools();
    const startMs = performance.now() - start;
    const names = tree.skillDirs.map((dir) => path.basename(dir));
    const withReferences = tree.skillDirs.filter((dir) => fs.existsSync(path.join(dir, "references"))).map((dir) => path.basename(dir));
    const activations = Math.min(samples, names.length - WARMUP_CALLS);
    const activate = await timeCalls(activations, WARMUP_CALLS, (i) => call(client, { name: names[i]! }, "loaded"));
    const read = await timeCalls(samples, WARMUP_CALLS, (i) =>
      call(client, { name: withReferences[i % withReferences.length]!, file_path: "references/guide.md" }, "file_loaded"),
    );
    return { startMs, activate, read };
  } finally {
    await client.close();
  }
}
