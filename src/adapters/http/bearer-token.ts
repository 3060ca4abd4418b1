/**
 * The HTTP server's bearer token (`Authorization: Bearer <token>`), checked on every MCP request
 * and on `/metrics` when the server was given one. Loopback keeps other machines out, not other
 * users of this one: any local account can connect to 127.0.0.1, so a server that can write
 * (`--authoring`) or that listens beyond loopback needs a secret only its user can read.
 *
 * The comparison is over SHA-256 digests of equal length with `timingSafeEqual`: comparing the
 * strings themselves would stop at the first differing character (its time says how much of a
 * guess was right) and `timingSafeEqual` throws on unequal lengths (which says the length).
 * No MCP SDK import: the CLI checks a token with this before loading the SDK.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type http from "node:http";
import { sendError } from "./body.js";

/** Shorter than this is guessable; a generated token is 43 characters (32 random bytes, base64url). */
export const MIN_TOKEN_LENGTH = 16;

/** Why `token` cannot serve as a bearer token, or null. */
export function bearerTokenProblem(token: string): string | null {
  if (token.length < MIN_TOKEN_LENGTH) return `a bearer token must be at least ${MIN_TOKEN_LENGTH} characters`;
  // RFC 6750's token68 characters: anything else cannot be sent in the header as written.
  if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(token)) return "a bearer token holds only letters, digits and - . _ ~ + / (then = padding)";
  return null;
}

/** A check of the `Authorization` header against `token` (already checked by `bearerTokenProblem`). */
export function bearerCheck(token: string): (authorization: string | string[] | undefined) => boolean {
  const expected = digest(token);
  return (authorization) => {
    if (typeof authorization !== "string") return false;
    const match = /^Bearer +(\S+) *$/i.exec(authorization);
    // Digested even when absent, so a request without the header costs what one with it does.
    const given = digest(match?.[1] ?? "");
    return timingSafeEqual(given, expected) && match !== null;
  };
}

/** 401 with the challenge RFC 6750 asks for; `invalid_token` when a token was sent and is wrong. */
export function refuseUnauthorized(res: http.ServerResponse, sentOne: boolean): void {
  const challenge = `Bearer realm="skillport"${sentOne ? ', error="invalid_token"' : ""}`;
  sendError(res, 401, -32001, "Unauthorized: send the server's bearer token (Authorization: Bearer <token>)", { "www-authenticate": challenge });
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
