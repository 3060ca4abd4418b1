/**
 * The quick-start demo: starts `skillport mcp` over the bundled example skills as a child
 * process, connects the MCP SDK's own client to it over stdio, and walks through what a model
 * would do — see the one tool, list the catalog, activate a skill, activate it again (over MCP
 * a connection is not a conversation, so the content comes again), read a file, ask for a skill that cannot run here, and ask for one that does not exist. Run with `npm run demo`.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const skills = path.join(repo, "examples", "skills");

const transport = new StdioClientTransport({
  command: process.execPath,
  args: ["--import", "tsx", path.join(repo, "src", "cli", "main.ts"), "mcp", "--root", skills, "--no-log"],
  cwd: repo,
  stderr: "inherit",
});
const client = new Client({ name: "skillport-demo", version: "1.0.0" });
await client.connect(transport);

const show = (title: string, value: unknown) => {
  process.stdout.write(`\n== ${title}\n${typeof value === "string" ? value : JSON.stringify(value, null, 2)}\n`);
};

const { tools } = await client.listTools();
show("tools/list: one tool", tools.map((t) => ({ name: t.name, inputSchema: t.inputSchema, annotations: t.annotations })));

const call = async (title: string, args: Record<string, string>) => {
  const result = await client.callTool({ name: "skill", arguments: args });
  const text = (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? "").join("\n");
  show(`${title} ${JSON.stringify(args)}${result.isError ? "  (isError)" : ""}`, text);
  return result;
};

await call("list", {});
await call("activate", { name: "release-notes" });
await call("activate again (same connection: no dedup over MCP, so the content again)", { name: "release-notes" });
await call("read a reference", { name: "release-notes", file_path: "references/style.md" });
await call("hostile path", { name: "release-notes", file_path: "../commit-message/SKILL.md" });
// Not in the list above: it needs SMOKE_BASE_URL, so it is not offered, and asking for it says why.
await call("a skill whose requirements are unmet here", { name: "http-smoke-test" });
const missing = await call("unknown skill", { name: "release-note" });
show("the envelope behind that answer (structuredContent)", missing.structuredContent);

await client.close();
