/**
 * What the HTTP server (sessions in one process or in a store alike) does with a request body and an
 * error answer, written once so every request meets the same rules.
 */
import type http from "node:http";

/** A JSON-RPC request larger than this is refused (413) before it is parsed. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export type BodyResult = { ok: true; value: unknown } | { ok: false; status: number; code: number; message: string };

export async function readJsonBody(req: http.IncomingMessage): Promise<BodyResult> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return { ok: false, status: 413, code: -32600, message: "Request body too large" };
    chunks.push(chunk as Buffer);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown };
  } catch {
    return { ok: false, status: 400, code: -32700, message: "Parse error: the request body is not JSON" };
  }
}

/**
 * Refuses a body `readJsonBody` would not take. A body cut off unread leaves the rest of it on the
 * connection, where it would be read as the next request (or wait forever for one): a client that
 * kept the connection alive got no answer to its next request. So a 413 closes the connection,
 * which tells the client to send its next request on a new one.
 */
export function refuseBody(res: http.ServerResponse, body: Extract<BodyResult, { ok: false }>): void {
  sendError(res, body.status, body.code, body.message, body.status === 413 ? { connection: "close" } : {});
}

export function sendError(res: http.ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}
