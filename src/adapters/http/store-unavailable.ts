/**
 * The one answer to a request the session store could not serve in time (SPEC §9, "Operating
 * it"): HTTP 503 with `Retry-After`, a JSON-RPC error that names the store as unavailable and
 * carries a correlation id, and nothing of what the database or its driver said. That text goes
 * to the server's log under the same correlation id, so an operator can find the line a client
 * quotes.
 */
import { randomBytes } from "node:crypto";
import type http from "node:http";
import { StoreUnavailableError } from "../../session/store.js";

/** JSON-RPC error code of a request the session store could not serve: in the server-defined range, apart from -32001 (session not found). */
export const STORE_UNAVAILABLE_CODE = -32003;
/** How long a client is told to wait: the client's reconnect backoff is capped at 1 s, so a store back by then serves the retry. */
export const STORE_RETRY_AFTER_SECONDS = 1;

export function isStoreUnavailable(error: unknown): error is StoreUnavailableError {
  return error instanceof StoreUnavailableError;
}

/** A short id that names one failure in the log and in the answer alike. */
export function correlationId(): string {
  return randomBytes(6).toString("hex");
}

/** The cause chain's messages, for the log only. */
export function causeText(error: unknown): string {
  const parts: string[] = [];
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth += 1) {
    const code = (current as { code?: unknown }).code;
    parts.push(`${current.message}${typeof code === "string" && !current.message.includes(code) ? ` (${code})` : ""}`);
  }
  return parts.join(": ") || String(error);
}

/** Answers 503 for `error` and logs its cause; returns the correlation id. */
export function answerStoreUnavailable(
  res: http.ServerResponse,
  error: StoreUnavailableError,
  log: (line: string) => void,
  requestId: unknown = null,
): string {
  const id = correlationId();
  log(`mcp http: [${id}] session store unavailable: ${causeText(error)}`);
  if (res.headersSent) {
    res.end();
    return id;
  }
  res.writeHead(503, { "content-type": "application/json", "retry-after": String(STORE_RETRY_AFTER_SECONDS) });
  res.end(
    JSON.stringify({
      jsonrpc: "2.0",
      id: typeof requestId === "string" || typeof requestId === "number" ? requestId : null,
      error: {
        code: STORE_UNAVAILABLE_CODE,
        message: `Session store unavailable: ${error.reason === "timeout" ? "it did not answer in time" : "it cannot be reached"}; retry in ${STORE_RETRY_AFTER_SECONDS} s (correlation id ${id})`,
        data: { correlationId: id, retryAfterSeconds: STORE_RETRY_AFTER_SECONDS },
      },
    }),
  );
  return id;
}
