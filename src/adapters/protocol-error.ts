/**
 * JSON-RPC errors this server answers with. The SDK's `McpError` puts `MCP error <code>: ` in
 * front of its message, the server sends that message as it is, and the client's `McpError`
 * adds the prefix again, so clients read `MCP error -32602: MCP error -32602: ...`. The base
 * protocol sends any thrown error's numeric `code` and `message`, so an error carrying the code
 * with the bare message reaches the client worded once.
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "ProtocolError";
  }
}
