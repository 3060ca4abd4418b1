/**
 * `skillport/mcp`: the MCP server for hosts that run it themselves (what `skillport mcp` runs).
 * A separate entry point, so `import "skillport"` never loads the MCP SDK.
 *
 * ```ts
 * const runtime = await createSkillRuntime({ sources: [...] });
 * const http = await serveMcpHttp(runtime, {
 *   session: { log: false }, version: "1.0.0", log: console.error,
 *   hideToolFromExtensionClients: true,
 * }, { port: 8765 });
 * ```
 *
 * Many replicas on one PostgreSQL: open the runtime with `store: "postgres://…"` and serve it
 * with `serveMcpHttpReplicated(runtime, options, { port })`.
 */
export { createMcpConnection, mcpServerCapabilities, type McpConnection, type McpServerOptions, type McpSessionFactory } from "./adapters/mcp.js";
export { serveMcpStdio, type McpStdioServing } from "./adapters/mcp-stdio.js";
export { serveMcpHttp, MCP_HTTP_PATH, type McpHttpListen, type McpHttpServing } from "./adapters/http/live-sessions.js";
export {
  serveMcpHttpReplicated,
  type McpHttpReplicatedListen,
  type McpHttpReplicatedServing,
  type McpStoreRuntime,
} from "./adapters/http/stored-sessions.js";
export { SKILLS_EXTENSION_ID } from "./adapters/mcp-skills-extension.js";
export { createServerMetrics, type MetricsSources, type ServerMetrics } from "./adapters/http/metrics.js";
