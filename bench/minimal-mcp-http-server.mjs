// The floor for an MCP server over Streamable HTTP, built with the same SDK as skillport: one
// transport and one SDK `Server` per session (as the SDK's own example does), one `skill` tool.
// `{}` answers a list of names and descriptions (parsed with `yaml` once, at start), `{name}` `readFileSync`s that skill's SKILL.md
// and returns it, `{name, file_path}` `readFileSync`s that file of the skill (no confinement, no
// checks: a floor, not a server anyone should run). Skills are the directories holding a
// SKILL.md one level below each directory given. Prints `listening on URL` on stderr.
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import http from "node:http";
import * as path from "node:path";
import { parse as parseYaml } from "yaml";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, isInitializeRequest, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const dirs = new Map();
const lines = [];
for (const root of process.argv.slice(2)) {
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = path.join(root, entry.name);
    try {
      const text = fs.readFileSync(path.join(dir, "SKILL.md"), "utf8");
      dirs.set(entry.name, dir);
      // Parsed once at start, so the listing carries what skillport's carries: names and descriptions.
      const end = text.indexOf("\n---", 3);
      const description = String(parseYaml(text.slice(text.indexOf("\n") + 1, end))?.description ?? "").trim();
      lines.push(`- ${entry.name}: ${description.replace(/\s+/g, " ")}`);
    } catch {
      // not a skill
    }
  }
}
const names = [...dirs.keys()];
const description = `Load a skill. Skills: ${names.join(", ")}`.slice(0, 8000);
const listText = lines.join("\n");

function newServer() {
  const server = new Server({ name: "minimal", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{ name: "skill", description, inputSchema: { type: "object", properties: { name: { type: "string" }, file_path: { type: "string" } } } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = request.params.arguments ?? {};
    if (typeof args.name !== "string") return { content: [{ type: "text", text: listText }] };
    const dir = dirs.get(args.name);
    if (!dir) return { content: [{ type: "text", text: "not found" }], isError: true };
    const file = typeof args.file_path === "string" ? path.join(dir, args.file_path) : path.join(dir, "SKILL.md");
    return { content: [{ type: "text", text: fs.readFileSync(file, "utf8") }] };
  });
  return server;
}

const transports = new Map();

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
}

const httpServer = http.createServer(async (req, res) => {
  try {
    const body = req.method === "POST" ? await readBody(req) : undefined;
    const id = req.headers["mcp-session-id"];
    if (typeof id === "string") {
      const transport = transports.get(id);
      if (!transport) {
        res.writeHead(404).end();
        return;
      }
      await transport.handleRequest(req, res, body);
      return;
    }
    if (req.method !== "POST" || !isInitializeRequest(body)) {
      res.writeHead(400).end();
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => transports.set(sid, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
    };
    await newServer().connect(transport);
    await transport.handleRequest(req, res, body);
  } catch (error) {
    if (!res.headersSent) res.writeHead(500);
    res.end(String(error));
  }
});
// Ends cleanly on SIGTERM, so a profile asked for with --cpu-prof is written.
process.on("SIGTERM", () => process.exit(0));
httpServer.listen(0, "127.0.0.1", () => {
  process.stderr.write(`listening on http://127.0.0.1:${httpServer.address().port}/mcp\n`);
});
