// The floor for an MCP server: the SDK's stdio server with one `skill` tool whose description
// names every skill, built from reading every SKILL.md one level below each directory given
// (readFileSync, no parse, no validation). What a server that serves the same files must at
// least do before it can answer `tools/list`.
import * as fs from "node:fs";
import * as path from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const files = new Map();
for (const root of process.argv.slice(2)) {
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const file = path.join(root, entry.name, "SKILL.md");
    try {
      fs.readFileSync(file, "utf8");
      files.set(entry.name, file);
    } catch {
      // not a skill
    }
  }
}
const description = `Load a skill. Skills: ${[...files.keys()].join(", ")}`.slice(0, 8000);
const server = new Server({ name: "minimal", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{ name: "skill", description, inputSchema: { type: "object", properties: { name: { type: "string" } } } }],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const file = files.get(String(request.params.arguments?.name));
  return { content: [{ type: "text", text: file ? fs.readFileSync(file, "utf8") : "not found" }] };
});
await server.connect(new StdioServerTransport());
