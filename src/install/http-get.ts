/**
 * Reading a well-known site over HTTP (SPEC §10.1). Every request has a deadline and every body a
 * size bound, counted while it arrives: a site is someone else's server, and one that answers
 * slowly or without end must not hold an install forever or fill the memory. Plain `http://` is
 * accepted only on this machine's loopback (a site a developer or a test serves locally); anywhere
 * else a fetched skill must come over TLS, or anyone on the path could swap it and its digest.
 */
import * as net from "node:net";
import { InstallError } from "./install-error.js";

/** How long one request may take, headers and body. */
export const HTTP_TIMEOUT_MS = 30_000;

/** What `httpGet` gives back: the bytes, or that nothing is there (404/410). */
export type HttpBody = { status: "ok"; bytes: Buffer; contentType: string; /** The URL that answered, after redirects. */ url: string } | { status: "absent"; code: number };

/** Whether `url` may be fetched at all: https anywhere, http only on loopback. */
export function checkFetchableUrl(url: URL, given: string): void {
  if (url.protocol === "https:") return;
  if (url.protocol === "http:" && isLoopbackHost(url.hostname)) return;
  if (url.protocol === "http:") throw new InstallError(`${given}: plain http:// is accepted only on this machine's loopback (127.0.0.1, ::1, localhost); use https://`, "usage");
  throw new InstallError(`${given}: only https:// (or loopback http://) sites can be read`, "usage");
}

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  if (host.toLowerCase() === "localhost") return true;
  if (net.isIPv4(host)) return host.split(".")[0] === "127";
  return net.isIPv6(host) && (host === "::1" || /^(0{1,4}:){7}0{0,3}1$/.test(host));
}

/**
 * GETs `url`, at most `maxBytes` of body, within `HTTP_TIMEOUT_MS`. A 404 or 410 is `absent` (the
 * caller tries the next place); any other failure throws an InstallError naming the URL.
 * Redirects are followed by fetch, but each hop must again be a URL `checkFetchableUrl` accepts.
 */
export async function httpGet(url: string, maxBytes: number): Promise<HttpBody> {
  const signal = AbortSignal.timeout(HTTP_TIMEOUT_MS);
  let response: Response;
  let current = url;
  try {
    for (let hop = 0; ; hop++) {
      checkFetchableUrl(new URL(current), current);
      response = await fetch(current, { signal, redirect: "manual", headers: { accept: "application/json, */*" } });
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        if (hop >= 5) throw new InstallError(`${url}: more than 5 redirects`, "failed");
        current = new URL(location, current).toString();
        continue;
      }
      break;
    }
  } catch (error) {
    if (error instanceof InstallError) throw error;
    throw new InstallError(`cannot fetch ${current}: ${reason(error)}`, "failed");
  }
  if (response.status === 404 || response.status === 410) {
    await response.body?.cancel();
    return { status: "absent", code: response.status };
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new InstallError(`cannot fetch ${current}: HTTP ${response.status}`, "failed");
  }
  const declared = Number(response.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw new InstallError(`${current} is larger than ${maxBytes} bytes (${declared}); nothing of it was used`, "failed");
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    const reader = response.body?.getReader();
    while (reader) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel();
        throw new InstallError(`${current} is larger than ${maxBytes} bytes; nothing of it was used`, "failed");
      }
      chunks.push(Buffer.from(value));
    }
  } catch (error) {
    if (error instanceof InstallError) throw error;
    throw new InstallError(`cannot fetch ${current}: ${reason(error)}`, "failed");
  }
  return { status: "ok", bytes: Buffer.concat(chunks), contentType: response.headers.get("content-type") ?? "", url: current };
}

function reason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if ((error as Error).name === "TimeoutError" || (error as Error).name === "AbortError") return `no answer within ${HTTP_TIMEOUT_MS / 1000} s`;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
