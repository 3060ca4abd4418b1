/**
 * The HTTP server's bind address and the Host/Origin rule that protects it (SPEC §7, MCP's
 * "servers must validate Origin"), decided once. Loopback has many spellings — `127.1`,
 * `127.0.0.2`, `LOCALHOST`, `localhost.`, `[::1]`, `::ffff:127.0.0.1`, `0:0:0:0:0:0:0:1` — and
 * comparing strings against a short list treated most of them as "not loopback", which turned the
 * DNS-rebinding checks off. So every address and header is read through the WHATWG URL parser
 * (which canonicalises IPv4 shorthand and IPv6 forms) and then classified, here and nowhere else.
 * No MCP SDK import: the CLI checks its options with this before loading the SDK.
 */
import { isIPv4, isIPv6 } from "node:net";

export interface BindAddress {
  /** What to pass to `listen`: the canonical form (`127.0.0.1` for `127.1`, `::1` for `[::1]`). */
  readonly listenHost: string;
  /** The host as it goes in a URL (`[::1]`). */
  readonly urlHost: string;
  /** Inside 127.0.0.0/8, `::1`, an IPv4-mapped 127.0.0.0/8, or the name `localhost`. */
  readonly loopback: boolean;
}

/**
 * The canonical host of `value` (a bare host, `[v6]`, or an IP literal in any spelling), lower
 * case, without a final dot; null when it is not a host at all.
 */
function canonicalHost(value: string): string | null {
  const trimmed = value.trim();
  if (trimmed === "") return null;
  // A port is not part of a host (and the URL parser drops a default one without a word).
  const withPort = trimmed.startsWith("[") ? !trimmed.endsWith("]") : !isIPv6(trimmed) && trimmed.includes(":");
  if (withPort) return null;
  const bracketed = isIPv6(trimmed) ? `[${trimmed}]` : trimmed;
  let hostname: string;
  try {
    const url = new URL(`http://${bracketed}/`);
    // A value carrying a port, a path or credentials is not a bare host.
    if (url.port !== "" || url.username !== "" || url.pathname !== "/" || url.search !== "" || url.hash !== "") return null;
    hostname = url.hostname;
  } catch {
    return null;
  }
  return hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
}

/** Whether a canonical host (as `canonicalHost` returns it) names this machine's loopback. */
function isLoopbackHost(host: string): boolean {
  if (host === "localhost") return true;
  if (isIPv4(host)) return host.startsWith("127.");
  const v6 = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (!isIPv6(v6)) return false;
  if (v6 === "::1") return true;
  // The URL parser writes an IPv4-mapped address in hex: ::ffff:127.0.0.1 is ::ffff:7f00:1.
  const mapped = /^::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(v6);
  return mapped !== null && (parseInt(mapped[1]!, 16) >> 8) === 127;
}

/** Reads `--host`; throws a `RangeError` naming the value when it is not a host. */
export function parseBindAddress(value: string): BindAddress {
  const host = canonicalHost(value);
  if (host === null) throw new RangeError(`not a host name or IP address: ${JSON.stringify(value)}`);
  const v6 = host.startsWith("[");
  return { listenHost: v6 ? host.slice(1, -1) : host, urlHost: host, loopback: isLoopbackHost(host) };
}

/** Whether `value` names this machine's loopback in any spelling. */
export function isLoopback(value: string): boolean {
  const host = canonicalHost(value);
  return host !== null && isLoopbackHost(host);
}

/**
 * Reads an `--allowed-origin` value (`scheme://host[:port]`) to the form browsers send; throws a
 * `RangeError` naming it otherwise.
 */
export function parseAllowedOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new RangeError(`not an origin (scheme://host[:port]): ${JSON.stringify(value)}`);
  }
  const bare = url.pathname === "/" && url.search === "" && url.hash === "" && url.username === "" && !value.trim().endsWith("/");
  if (url.origin === "null" || !bare) throw new RangeError(`not an origin (scheme://host[:port], nothing after it): ${JSON.stringify(value)}`);
  return url.origin;
}

/**
 * Whether a request's Host and Origin may be served. On a loopback bind, Host must name loopback
 * (in any spelling): a page that rebinds its own domain to 127.0.0.1 still sends its own name.
 * Origin, when sent, must be loopback or one of `allowedOrigins`; the opaque `null` origin (any
 * page can send it from a sandboxed frame) never is. On any other bind the Host names are not
 * known here, so Origin alone decides: absent (clients that are not browsers send none) or
 * listed. The caller makes sure a non-loopback bind has a list.
 */
export function requestAllowed(
  bind: BindAddress,
  allowedOrigins: ReadonlySet<string>,
  hostHeader: string | undefined,
  originHeader: string | undefined,
): boolean {
  if (bind.loopback && hostHeader !== undefined && !isLoopbackHost(hostOfHeader(hostHeader) ?? "")) return false;
  if (originHeader === undefined) return true;
  const origin = originOf(originHeader);
  if (origin === null) return false;
  if (allowedOrigins.has(origin)) return true;
  return bind.loopback && isLoopbackHost(new URL(origin).hostname.replace(/\.$/, ""));
}

/** The canonical host of a Host header (`name:port`, `[v6]:port`). */
function hostOfHeader(value: string): string | null {
  try {
    const url = new URL(`http://${value.trim()}/`);
    if (url.username !== "" || url.pathname !== "/" || url.search !== "" || url.hash !== "") return null;
    return url.hostname.endsWith(".") ? url.hostname.slice(0, -1) : url.hostname;
  } catch {
    return null;
  }
}

function originOf(value: string): string | null {
  try {
    const origin = new URL(value).origin;
    return origin === "null" ? null : origin;
  } catch {
    return null;
  }
}
