/**
 * `skillport mcp` over stdio: one client, one connection, one session. The client owns the
 * process's lifetime: when it closes stdin, the session log is flushed and serving ends.
 */
import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpConnection, type McpConnection, type McpServerOptions, type McpSessionFactory } from "./mcp.js";

export interface McpStdioServing {
  readonly connection: McpConnection;
  /** Settles once serving has ended, for whatever reason. */
  readonly done: Promise<void>;
  notifyToolsChanged(): Promise<void>;
  close(): Promise<void>;
}

export async function serveMcpStdio(
  runtime: McpSessionFactory,
  options: McpServerOptions,
  stdio: { stdin: Readable; stdout: Writable } = { stdin: process.stdin, stdout: process.stdout },
): Promise<McpStdioServing> {
  const connection = createMcpConnection(runtime, options);
  const transport = new StdioServerTransport(stdio.stdin, stdio.stdout);
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= connection.close().finally(finish);
    return closing;
  };
  connection.server.onclose = () => void close();
  // The SDK's stdio transport does not watch for end of input; a client that exits must still end the session.
  stdio.stdin.once("end", () => void close());
  stdio.stdin.once("close", () => void close());
  // A client that stopped reading makes writes fail with EPIPE: nobody is left to serve.
  stdio.stdout.once("error", () => void close());
  await connection.server.connect(transport);
  options.log(`skillport MCP server on stdio (session ${connection.session.id}${connection.session.logPath ? `, log ${connection.session.logPath}` : ""})`);
  return { connection, done, notifyToolsChanged: () => connection.notifyToolsChanged(), close };
}
