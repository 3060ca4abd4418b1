/**
 * Over MCP a connection is not a conversation (SPEC §5.1): clients keep one server across many
 * chats, `/clear` and `/compact`, and nothing in MCP tells the server that the model's context
 * was reset. A server that answered a second activation `already_active` would tell the model to
 * follow instructions it may no longer have. So by default every activation over MCP answers
 * `loaded` with its content; `connection` dedups within a connection, for clients known to open
 * one connection per conversation. A prompt (a person asking) always answers with the content,
 * whichever is chosen (the session's rule for `userInvoked`).
 */
import type { SessionOptions } from "../session/session.js";

/** `none` (default): no dedup; `connection`: a repeated activation on one connection answers `already_active`. */
export type McpDedup = "none" | "connection";

export const MCP_DEDUP_MODES: readonly McpDedup[] = ["none", "connection"];

/** The session options every MCP session is opened with: the given ones, dedup as the server decides unless they set it. */
export function mcpSessionOptions(session: SessionOptions, dedup: McpDedup | undefined): SessionOptions {
  if (session.dedup !== undefined) return session;
  return { ...session, dedup: dedup === "connection" ? "epoch" : "none" };
}
