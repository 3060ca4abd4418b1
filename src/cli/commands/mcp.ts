import path from "node:path";
import { Option, type Command } from "commander";
import { parseAllowedOrigin, parseBindAddress, type BindAddress } from "../../adapters/http/address.js";
import { PROBE_CONNECTIONS } from "../../adapters/http/connection-cap.js";
import { DEFAULT_DRAIN_TIMEOUT_MS, DEFAULT_MCP_HTTP_HOST, DEFAULT_MCP_HTTP_IDLE_TIMEOUT_MS, DEFAULT_SESSION_TTL_MS, STREAM_IDLE_FACTOR } from "../../adapters/http/defaults.js";
import type { McpServerOptions } from "../../adapters/mcp.js";
import { MCP_DEDUP_MODES, type McpDedup } from "../../adapters/mcp-dedup.js";
import type { SessionOptions } from "../../session/session.js";
import type { SkillSource } from "../../registry/types.js";
import { InvalidArgumentError } from "commander";
import { nonNegativeInteger, portNumber, positiveInteger, positiveSeconds } from "../arg-parsers.js";
import type { CommandHost } from "../command-host.js";
import { addCommonOptions, type CommonOptions } from "../common-options.js";
import { CliError, EXIT_OK, EXIT_USAGE, type ExitCode } from "../exit.js";
import type { CliOutput } from "../output.js";
import { withReferenceChecks } from "../../package/reference-check.js";
import { openRuntime } from "../runtime-context.js";
import { noSkillsFoundText } from "../search-report.js";
import { defaultLogDir } from "../session-logs.js";
import { defaultTokenFile, readTokenFile, userToken } from "../http-token.js";
import { packageVersion } from "../version.js";
import { isDatabaseUrl } from "../../session/open-store.js";
import { DEFAULT_STORE_TIMEOUT_MS, type SessionStore } from "../../session/store.js";
import { defaultReplicaName, startReplicaHeartbeat } from "../../session/replicas.js";

/** Enough for a few dozen skills with full descriptions, small next to any client's context. */
export const DEFAULT_CATALOG_BUDGET_CHARS = 8000;
/** After a clean shutdown nothing should keep the process alive; if something does, stop anyway. */
const EXIT_GRACE_MS = 3000;
/** How long a stdio server waits after it starts serving before it works out its registry digest (see below). */
const STDIO_DIGEST_DELAY_MS = 2000;

export interface McpOptions extends Omit<CommonOptions, "json"> {
  http?: number;
  host?: string;
  /** Seconds; 0 = never. */
  idleTimeout?: number;
  allowedOrigin?: string[];
  maxSessions?: number;
  watch?: boolean;
  logDir?: string;
  /** false with `--no-log`. */
  log: boolean;
  budget?: number;
  hideToolFromExtensionClients?: boolean;
  /** A postgres:// URL: sessions live there and any replica serves any of them. */
  store?: string;
  /** A folder agents may write skills into with `skill_manage`. */
  authoring?: string;
  /** Seconds each store statement may take (default 5). */
  storeTimeout?: number;
  /** Seconds after which ended and idle sessions are deleted from the store; 0 = never. */
  sessionTtl?: number;
  /** Seconds SIGTERM waits for requests in flight. */
  drainTimeout?: number;
  /** Serve `GET /metrics` (Prometheus text). */
  metrics?: boolean;
  /** A file holding the bearer token every MCP request must carry. */
  authTokenFile?: string;
  /** Connections held at most. */
  maxConnections?: number;
  /** Seconds an event stream alone keeps a session from idling. */
  streamIdleTimeout?: number;
  /** `connection`: a repeated activation on one connection answers `already_active`; default `none`. */
  dedup?: McpDedup;
}

export function registerMcpCommand(program: Command, { out, run }: CommandHost): void {
  addCommonOptions(
    program
      .command("mcp")
      .description("serve skills over MCP: the `skill` tool, the Skills Extension and prompts (stdio by default)")
      .option("--http <port>", "serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (0 picks a free port)", portNumber)
      .option("--host <host>", "address to bind with --http (default: 127.0.0.1, this machine only)")
      .option(
        "--idle-timeout <seconds>",
        `with --http, end sessions that sent no request for this long (default: ${DEFAULT_MCP_HTTP_IDLE_TIMEOUT_MS / 1000}; 0 = never)`,
        nonNegativeInteger,
      )
      .option(
        "--allowed-origin <origin>",
        "with --http, a web origin (scheme://host[:port]) browsers may call from; repeatable; required with a --host that is not loopback",
        collectOrigin,
      )
      .option("--store <url>", "with --http, keep sessions in PostgreSQL (postgres://…) so any replica on the same database serves any session")
      .option("--store-timeout <seconds>", `with --store, how long a store statement may take before the request is answered 503 (default: ${DEFAULT_STORE_TIMEOUT_MS / 1000})`, positiveSeconds)
      .option(
        "--session-ttl <seconds>",
        `with --store, delete sessions ended, or with no request, for this long (default: ${DEFAULT_SESSION_TTL_MS / 1000}; 0 = never)`,
        nonNegativeInteger,
      )
      .option("--drain-timeout <seconds>", `with --http, how long SIGTERM waits for requests in flight before exiting (default: ${DEFAULT_DRAIN_TIMEOUT_MS / 1000})`, nonNegativeInteger)
      .option("--metrics", "with --http, serve GET /metrics in the Prometheus text format")
      .option(
        "--auth-token-file <file>",
        "with --http, require the bearer token in this file (Authorization: Bearer TOKEN) on every MCP request; without it, a server with --authoring or off loopback makes one in your state directory",
      )
      .option("--max-sessions <n>", "with --http, live sessions at most; beyond it initialize gets 503 with Retry-After (default: sized for this machine)", positiveInteger)
      .option(
        "--max-connections <n>",
        `with --http, connections held at most (${PROBE_CONNECTIONS} more are kept for /healthz and /readyz); the oldest idle one makes way for a newcomer (default: sized for this machine)`,
        positiveInteger,
      )
      .option(
        "--stream-idle-timeout <seconds>",
        `with --http (without --store), end a session whose only open request is an event stream after this long without another (default: ${STREAM_IDLE_FACTOR} × --idle-timeout; never less than it)`,
        nonNegativeInteger,
      )
      .addOption(
        new Option("--dedup <mode>", "none: every activation answers with the skill's content (a connection is not a conversation); connection: a repeat on one connection answers already_active")
          .choices(MCP_DEDUP_MODES as string[])
          .default("none"),
      )
      .option("--watch", "rescan when skill files change and tell clients the tools, resources and prompts changed")
      .option("--authoring <dir>", "offer the `skill_manage` tool, writing skills into this folder (created if missing; private to --agent when given)")
      .option("--log-dir <dir>", "directory for session logs (default: $XDG_STATE_HOME/skillport/sessions, else ~/.local/state/skillport/sessions)")
      .option("--no-log", "keep session logs in memory only")
      .option("--budget <chars>", `character budget of the skill catalog in the tool description (default: ${DEFAULT_CATALOG_BUDGET_CHARS})`, positiveInteger)
      .option("--hide-tool-from-extension-clients", "do not offer the `skill` tool to clients that declare the MCP Skills Extension (they load skills through it)"),
    { json: false },
  ).action((options: McpOptions) => run(() => mcpCommand(options, out)));
}

export async function mcpCommand(options: McpOptions, out: CliOutput): Promise<ExitCode> {
  if (options.host !== undefined && options.http === undefined) throw new CliError("--host only applies with --http PORT", EXIT_USAGE);
  if (options.idleTimeout !== undefined && options.http === undefined) throw new CliError("--idle-timeout only applies with --http PORT", EXIT_USAGE);
  if (options.allowedOrigin !== undefined && options.http === undefined) throw new CliError("--allowed-origin only applies with --http PORT", EXIT_USAGE);
  if (options.maxSessions !== undefined && options.http === undefined) throw new CliError("--max-sessions only applies with --http PORT", EXIT_USAGE);
  if (options.maxConnections !== undefined && options.http === undefined) throw new CliError("--max-connections only applies with --http PORT", EXIT_USAGE);
  if (options.streamIdleTimeout !== undefined && (options.http === undefined || options.store !== undefined)) {
    // Replicas keep no event stream alive: idle sessions are claimed through the store whatever streams they have.
    throw new CliError("--stream-idle-timeout only applies with --http PORT without --store", EXIT_USAGE);
  }
  if (options.store !== undefined && options.http === undefined) throw new CliError("--store only applies with --http PORT", EXIT_USAGE);
  for (const [given, flag] of [
    [options.storeTimeout, "--store-timeout"],
    [options.sessionTtl, "--session-ttl"],
  ] as const) {
    if (given !== undefined && options.store === undefined) throw new CliError(`${flag} only applies with --http PORT --store URL`, EXIT_USAGE);
  }
  if (options.drainTimeout !== undefined && options.http === undefined) throw new CliError("--drain-timeout only applies with --http PORT", EXIT_USAGE);
  if (options.metrics !== undefined && options.http === undefined) throw new CliError("--metrics only applies with --http PORT", EXIT_USAGE);
  if (options.authTokenFile !== undefined && options.http === undefined) throw new CliError("--auth-token-file only applies with --http PORT", EXIT_USAGE);
  if (options.store !== undefined && !isDatabaseUrl(options.store)) {
    throw new CliError(`--store takes a postgres:// URL; got ${JSON.stringify(options.store.split("@").at(-1))}`, EXIT_USAGE);
  }
  if (options.authoring !== undefined && options.store !== undefined) {
    throw new CliError("--authoring does not apply with --store: replicas share sessions but each serves its own copy of the skills", EXIT_USAGE);
  }
  if (options.store !== undefined && (options.logDir !== undefined || options.log === false)) {
    throw new CliError("--log-dir and --no-log do not apply with --store: sessions are kept in the store", EXIT_USAGE);
  }
  const bind = options.http === undefined ? null : bindAddressOf(options);
  // Read before anything starts, so a bad --auth-token-file fails fast.
  const tokenFromFile = options.authTokenFile === undefined ? undefined : readTokenFile(path.resolve(options.authTokenFile));
  const store = options.store === undefined ? undefined : await openStore(options.store, options.storeTimeout);
  let context;
  try {
    context = await openRuntime(options, out, { watch: options.watch === true, sessions: true, ...(store ? { store } : {}), ...(options.authoring !== undefined ? { authoring: options.authoring } : {}) });
  } catch (error) {
    await store?.close();
    throw error;
  }
  const { runtime, scope, cwd, sources } = context;
  // A client shows a server's stderr only in its logs; that is where someone wondering why the
  // model has no skills will look.
  if (runtime.snapshot().skills.length === 0) {
    out.log(`${noSkillsFoundText(sources)}${options.watch ? "\nWatching them: skills added there will be served without a restart." : ""}`);
  }
  const session: SessionOptions = {
    ...scope,
    // A trailing separator: --log-dir is a directory even when its name ends in .jsonl.
    log: options.log === false ? false : path.resolve(cwd, options.logDir ?? defaultLogDir()) + path.sep,
    // Nothing on the wire reads a session's history, so without a log a session keeps none of it:
    // its memory then stays flat however long the conversation runs.
    ...(options.log === false ? { memoryHistory: 0 } : {}),
    catalog: { format: "xml", budgetChars: options.budget ?? DEFAULT_CATALOG_BUDGET_CHARS },
  };
  const serverOptions: McpServerOptions = {
    session,
    version: packageVersion(),
    log: (line) => out.log(line),
    ...(options.hideToolFromExtensionClients ? { hideToolFromExtensionClients: true } : {}),
    dedup: options.dedup ?? "none",
  };

  let serving: { done?: Promise<void>; notifyToolsChanged(): Promise<void>; close(): Promise<void>; drain?(timeoutMs: number): Promise<boolean> };
  let heartbeat: { beat(): Promise<void>; stop(): void } | null = null;
  let stopSignal: Promise<string> | undefined;
  let metrics: import("../../adapters/http/metrics.js").ServerMetrics | null = null;
  try {
    if (options.http !== undefined) {
      const authToken = httpAuthToken(options, tokenFromFile, bind!, sources, out);
      const listen = {
        port: options.http,
        host: bind!.listenHost,
        registryDigest: () => runtime.registryDigest(),
        ...(options.idleTimeout !== undefined ? { idleTimeoutMs: options.idleTimeout * 1000 } : {}),
        ...(options.allowedOrigin ? { allowedOrigins: options.allowedOrigin } : {}),
        ...(options.maxSessions !== undefined ? { maxSessions: options.maxSessions } : {}),
        ...(options.maxConnections !== undefined ? { maxConnections: options.maxConnections } : {}),
        ...(authToken !== undefined ? { authToken } : {}),
      };
      let http: { url: string; port: number; notifyToolsChanged(): Promise<void>; close(): Promise<void> };
      let sessionsOpen = (): number => 0;
      let streamsOpen = (): number => 0;
      if (options.metrics) {
        // prom-client loads only here: a server without --metrics never reads it.
        const { createServerMetrics } = await import("../../adapters/http/metrics.js");
        metrics = await createServerMetrics({
          store: store && "observe" in store ? (store as import("../../session/store-postgres.js").PostgresStore) : null,
          sessionsOpen: () => sessionsOpen(),
          streamsOpen: () => streamsOpen(),
          registrySkills: () => runtime.snapshot().skills.length,
          // Counted as doctor shows them: loading only marks the files the reference may refuse.
          diagnostics: () => withReferenceChecks(runtime.snapshot().diagnostics).length,
        });
      }
      if (store) {
        const { serveMcpHttpReplicated } = await import("../../adapters/http/stored-sessions.js");
        const replicated = await serveMcpHttpReplicated(runtime, serverOptions, {
          ...listen,
          // A watching server's skills change under it by design; its sessions follow them.
          rejectOtherRegistryDigest: options.watch !== true,
          ...(options.sessionTtl !== undefined ? { sessionTtlMs: options.sessionTtl * 1000 } : {}),
          ...(metrics ? { metrics } : {}),
        });
        sessionsOpen = () => replicated.sessionsOpen();
        streamsOpen = () => replicated.streamsOpen();
        http = replicated;
        out.log(`sessions in ${describeDatabaseUrl(options.store!)}`);
        // Before "listening": whoever waits for that line finds this replica in the store already.
        const beating = startReplicaHeartbeat(store, defaultReplicaName(http.port), () => runtime.registryDigest(), {
          onError: (error) => out.log(`warning: replica heartbeat: ${(error as Error).message}`),
        });
        heartbeat = beating;
        await beating.first;
      } else {
        // The MCP SDK loads only for this command; every other command starts without it.
        const { serveMcpHttp } = await import("../../adapters/http/live-sessions.js");
        const live = await serveMcpHttp(runtime, serverOptions, {
          ...listen,
          ...(options.streamIdleTimeout !== undefined ? { streamIdleTimeoutMs: options.streamIdleTimeout * 1000 } : {}),
          ...(metrics ? { metrics } : {}),
        });
        sessionsOpen = () => live.connections.size;
        http = live;
      }
      // Before the line a supervisor or a test waits for: a SIGTERM sent the moment it appears
      // must find the drain handler, not the default action that kills the process outright.
      stopSignal = listenForStop();
      out.log(`listening on ${http.url}`);
      if (!bind!.loopback) {
        out.log(`warning: bound to ${options.host}: any machine that can reach it can read your skills`);
      }
      serving = http;
    } else {
      const { serveMcpStdio } = await import("../../adapters/mcp-stdio.js");
      serving = await serveMcpStdio(runtime, serverOptions);
    }
  } catch (error) {
    await runtime.close();
    await store?.close();
    const code = (error as NodeJS.ErrnoException).code;
    const host = options.host ?? DEFAULT_MCP_HTTP_HOST;
    if (code === "EADDRINUSE") throw new CliError(`port ${options.http} is already in use on ${host}; pick another with --http PORT (0 for any free one)`, EXIT_USAGE);
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EAI_AGAIN") {
      throw new CliError(`cannot bind to host ${host}: ${(error as Error).message}`, EXIT_USAGE);
    }
    throw error;
  }

  // What an operator compares across replicas: one digest per replica, the same on all of them.
  // Logged once computed, never waited for: it reads every SKILL.md again, which at 10,000
  // skills took seconds, and a client must not wait that long for its first answer. Over stdio
  // nobody else asks for it, so it starts once the client has had its first answers: at 3,000
  // skills its reads took the main thread for as long as the client's first `tools/list` took.
  const logDigest = (): void =>
    void runtime.registryDigest().then(
      (digest) => out.log(`registry digest ${digest}`),
      (error: unknown) => out.log(`registry digest not computed: ${error instanceof Error ? error.message : String(error)}`),
    );
  if (options.http !== undefined) logDigest();
  else setTimeout(logDigest, STDIO_DIGEST_DELAY_MS).unref();

  const unsubscribe = options.watch
    ? runtime.onChange(() => {
        metrics?.refresh();
        out.log("skills changed; notifying clients");
        // The store learns what this replica now serves before any client hears of the change.
        void (heartbeat?.beat() ?? Promise.resolve()).then(() => serving.notifyToolsChanged());
      })
    : () => {};

  const reason = await Promise.race([stopSignal ?? listenForStop(), serving.done?.then(() => "end of input") ?? new Promise<string>(() => {})]);
  out.log(`shutting down (${reason})`);
  unsubscribe();
  heartbeat?.stop();
  if (reason === "SIGTERM" && serving.drain) {
    // SIGTERM is how a supervisor or an orchestrator stops a replica: finish what is in flight.
    const timeoutMs = (options.drainTimeout ?? DEFAULT_DRAIN_TIMEOUT_MS / 1000) * 1000;
    out.log(`draining: refusing new sessions, finishing requests in flight (up to ${timeoutMs / 1000}s)`);
    const finished = await serving.drain(timeoutMs);
    out.log(finished ? "drained: every request in flight was answered" : `drain timed out after ${timeoutMs / 1000}s; requests still in flight were cut`);
  }
  await serving.close();
  metrics?.close();
  await runtime.close();
  await store?.close();
  setTimeout(() => process.exit(process.exitCode ?? EXIT_OK), EXIT_GRACE_MS).unref();
  return EXIT_OK;
}

function collectOrigin(value: string, previous: string[] = []): string[] {
  try {
    return [...previous, parseAllowedOrigin(value)];
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/**
 * `--host` read once (every spelling of loopback is loopback), and the rule that a server other
 * machines can reach names the web origins it serves: the MCP spec requires servers to validate
 * Origin, and off loopback there is no list of names to check it against otherwise.
 */
function bindAddressOf(options: McpOptions): BindAddress {
  let bind: BindAddress;
  try {
    bind = parseBindAddress(options.host ?? DEFAULT_MCP_HTTP_HOST);
  } catch (error) {
    throw new CliError(`--host ${(error as Error).message}`, EXIT_USAGE);
  }
  if (!bind.loopback && (options.allowedOrigin ?? []).length === 0) {
    throw new CliError(
      `--host ${options.host} is not a loopback address, so browsers elsewhere can reach it: name the web origins allowed to call it ` +
        "with --allowed-origin ORIGIN (e.g. --allowed-origin https://app.example.com; repeatable). Requests with any other Origin get 403.",
      EXIT_USAGE,
    );
  }
  return bind;
}

/**
 * The bearer token the server requires, if any: the one in `--auth-token-file`, else, for a
 * server that can write skills (`--authoring`) or that listens beyond loopback, the user's own
 * (made on first need). Loopback keeps out other machines, not other users of this one, and a
 * server that writes would let any of them plant a skill.
 */
function httpAuthToken(options: McpOptions, fromFile: string | undefined, bind: BindAddress, sources: readonly SkillSource[], out: CliOutput): string | undefined {
  if (fromFile !== undefined) {
    out.log(`requiring the bearer token in ${options.authTokenFile} (Authorization: Bearer TOKEN)`);
    return fromFile;
  }
  // `--authoring`, or a writable source a config file named: either offers `skill_manage`.
  const writes = sources.some((source) => source.writable === true);
  if (!writes && bind.loopback) return undefined;
  const file = defaultTokenFile();
  const token = userToken(file);
  const why = writes ? "clients can write skills (skill_manage)" : `--host ${options.host} is not loopback`;
  out.log(`requiring a bearer token (${why}): clients send Authorization: Bearer TOKEN, TOKEN being the contents of ${file} (readable only by you)`);
  return token;
}

/** The PostgreSQL store, its schema created or upgraded; an unreachable database is a usage error naming it (without its password). */
async function openStore(url: string, timeoutSeconds: number | undefined): Promise<SessionStore> {
  const { postgresStore } = await import("../../session/store-postgres.js");
  try {
    return await postgresStore(url, timeoutSeconds !== undefined ? { timeoutMs: timeoutSeconds * 1000 } : {});
  } catch (error) {
    throw new CliError((error as Error).message, EXIT_USAGE);
  }
}

function describeDatabaseUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.username ? `${decodeURIComponent(parsed.username)}@` : ""}${parsed.host}${parsed.pathname}`;
}

/**
 * Resolves with the first SIGINT or SIGTERM. Installed only once the server serves: a signal
 * during start-up keeps its default action, so Ctrl-C still ends a start that hangs.
 */
function listenForStop(): Promise<string> {
  return new Promise<string>((resolve) => {
    const onSignal = (signal: string): void => {
      // A second signal while shutting down means "now": a person pressing Ctrl-C twice.
      process.once("SIGINT", () => process.exit(130));
      process.once("SIGTERM", () => process.exit(143));
      resolve(signal);
    };
    process.once("SIGINT", () => onSignal("SIGINT"));
    process.once("SIGTERM", () => onSignal("SIGTERM"));
  });
}
