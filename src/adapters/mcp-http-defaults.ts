/**
 * The HTTP transport's defaults and its loopback test, apart from the transport itself, so the
 * CLI can describe its options without loading the MCP SDK: a command that is not `mcp` then
 * never pays for it.
 */
export const DEFAULT_MCP_HTTP_HOST = "127.0.0.1";
export const DEFAULT_MCP_HTTP_IDLE_TIMEOUT_MS = 30 * 60 * 1000;

export const LOOPBACK_NAMES: ReadonlySet<string> = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

export function isLoopback(host: string): boolean {
  return LOOPBACK_NAMES.has(host);
}
