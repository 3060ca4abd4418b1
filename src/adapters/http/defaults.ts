/**
 * The HTTP transport's defaults, apart from the transport itself, so the CLI can describe its
 * options without loading the MCP SDK: a command that is not `mcp` then never pays for it.
 */
import * as fs from "node:fs";
import * as os from "node:os";

export const DEFAULT_MCP_HTTP_HOST = "127.0.0.1";
export const DEFAULT_MCP_HTTP_IDLE_TIMEOUT_MS = 30 * 60 * 1000;
/**
 * How long a stateless (2026-07-28) request may take before it is answered 503: its answer is a
 * listing or one file read, so anything near this is stuck, not slow.
 */
export const DEFAULT_STATELESS_DEADLINE_MS = 30_000;
/** How long a client refused for lack of room is told to wait before trying again. */
export const SESSION_CAP_RETRY_AFTER_SECONDS = 30;

/** Used when the descriptor limit cannot be read (no `/proc`): the usual soft limit. */
const FALLBACK_DESCRIPTOR_LIMIT = 1024;
/** Memory set aside per live session when sizing the default: generous, so the cap binds first. */
const SESSION_MEMORY_BUDGET_BYTES = 1024 * 1024;
const MIN_DEFAULT_SESSIONS = 16;
const MAX_DEFAULT_SESSIONS = 10_000;

/**
 * The default `--max-sessions`: min(descriptor limit / 2, total memory / 16 MiB), kept within
 * 16..10,000. A live session holds no file descriptor of its own (its log is opened per record),
 * but a client may hold an SSE stream and a request connection open for it, and half the
 * descriptors stay free for skill reads, logs and watchers. Memory: a session idles at ~70 KB and
 * grows with what it loads; 1 MiB each for a sixteenth of the machine's memory leaves the rest to
 * everything else. (1,024 descriptors: 512 sessions; 8 GiB: 512.)
 */
export function defaultMaxSessions(descriptorLimit = softDescriptorLimit(), totalMemoryBytes = os.totalmem()): number {
  const byDescriptors = Math.floor(descriptorLimit / 2);
  const byMemory = Math.floor(totalMemoryBytes / 16 / SESSION_MEMORY_BUDGET_BYTES);
  return Math.min(MAX_DEFAULT_SESSIONS, Math.max(MIN_DEFAULT_SESSIONS, Math.min(byDescriptors, byMemory)));
}

/** This process's soft limit on open files, from `/proc/self/limits` (Node has no getrlimit). */
export function softDescriptorLimit(): number {
  try {
    const line = fs.readFileSync("/proc/self/limits", "utf8").split("\n").find((l) => l.startsWith("Max open files"));
    const soft = line?.slice("Max open files".length).trim().split(/\s+/)[0];
    if (soft === "unlimited") return Number.MAX_SAFE_INTEGER;
    const value = Number(soft);
    return Number.isSafeInteger(value) && value > 0 ? value : FALLBACK_DESCRIPTOR_LIMIT;
  } catch {
    return FALLBACK_DESCRIPTOR_LIMIT;
  }
}

/**
 * The default `--max-connections`: three quarters of the descriptor limit, kept within
 * 64..50,000. The rest stays free for skill reads, session logs and watchers, which fail with
 * "too many open files" otherwise.
 */
export function defaultMaxConnections(descriptorLimit = softDescriptorLimit()): number {
  return Math.min(MAX_DEFAULT_CONNECTIONS, Math.max(MIN_DEFAULT_CONNECTIONS, Math.floor((descriptorLimit * 3) / 4)));
}
const MIN_DEFAULT_CONNECTIONS = 64;
const MAX_DEFAULT_CONNECTIONS = 50_000;

/**
 * How long a request may take to send its headers, and its whole body: a client that sends a
 * byte now and then holds its connection no longer than this (Node's defaults are 60 s and 5
 * minutes). The largest body (4 MiB) takes well under this on any link a client uses.
 */
export const HEADERS_TIMEOUT_MS = 20_000;
export const REQUEST_TIMEOUT_MS = 60_000;

/**
 * How long an open event stream alone keeps a session from counting as idle, by default a
 * multiple of the idle timeout: a client listening for notifications keeps its session longer
 * than one that went away, but not for ever (a stream per session would otherwise hold every
 * place under the session cap).
 */
export const STREAM_IDLE_FACTOR = 2;

/** How long an ended or abandoned session stays in a shared store before it is deleted (`--session-ttl`): a day, for looking into yesterday's conversations. */
export const DEFAULT_SESSION_TTL_MS = 24 * 60 * 60 * 1000;
/** How long SIGTERM waits for requests in flight before the server stops anyway (`--drain-timeout`). */
export const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;
