/**
 * `skillport store init URL`: creates (or upgrades) the session store's schema in PostgreSQL,
 * for operators who create schemas ahead of time rather than letting the first server do it.
 * Servers create a missing schema themselves at start; both take the same lock, so either order
 * is safe.
 *
 * `skillport store prune URL`: deletes sessions ended, or with no request and no write, for
 * `--older-than` (default: the servers' `--session-ttl` default), their stored answers and
 * activity, and replica heartbeats no reader looks at any more: what servers with `--session-ttl`
 * do on their own, for a cron job or a store no server prunes.
 */
import type { Command } from "commander";
import type { CommandHost } from "../command-host.js";
import { CliError, EXIT_FAILURE_FOUND, EXIT_OK, EXIT_USAGE, type ExitCode } from "../exit.js";
import { writeJson, type CliOutput } from "../output.js";
import { DEFAULT_SESSION_TTL_MS } from "../../adapters/http/defaults.js";
import { isDatabaseUrl } from "../../session/open-store.js";
import { nonNegativeInteger } from "../arg-parsers.js";

interface StoreInitOptions {
  json?: boolean;
}

interface StorePruneOptions {
  json?: boolean;
  /** Seconds. */
  olderThan?: number;
}

export function registerStoreCommand(program: Command, { out, run }: CommandHost): void {
  const store = program.command("store").description("manage the shared session store (PostgreSQL) that `mcp --http --store` uses");
  store
    .command("init")
    .description("create or upgrade the session store's schema in the database at URL")
    .argument("<url>", "postgres://user@host:port/database")
    .option("--json", "print the outcome as JSON")
    .action((url: string, options: StoreInitOptions) => run(() => storeInit(url, options, out)));
  store
    .command("prune")
    .description("delete sessions ended or unused for --older-than, with their stored answers, and old replica heartbeats")
    .argument("<url>", "postgres://user@host:port/database")
    .option("--older-than <seconds>", `age since a session's last write and last request, 1 or more (default: ${DEFAULT_SESSION_TTL_MS / 1000})`, nonNegativeInteger)
    .option("--json", "print what was deleted as JSON")
    .action((url: string, options: StorePruneOptions) => run(() => storePrune(url, options, out)));
}

export async function storePrune(url: string, options: StorePruneOptions, out: CliOutput): Promise<ExitCode> {
  if (!isDatabaseUrl(url)) throw new CliError(`store prune needs a postgres:// URL`, EXIT_USAGE);
  const { describeDatabaseUrl } = await import("../../session/store-postgres.js");
  const olderThanSeconds = options.olderThan ?? DEFAULT_SESSION_TTL_MS / 1000;
  if (olderThanSeconds === 0) {
    throw new CliError("--older-than 0 would delete every session, live ones included (a server's --session-ttl 0 means never prune); give an age of 1 second or more", EXIT_USAGE);
  }
  // The schema is brought up to date first, as `store init` would: pruning needs its write times.
  const opened = await openForCommand(url);
  try {
    const pruned = await opened.prune(olderThanSeconds * 1000);
    if (options.json) writeJson(out, { store: describeDatabaseUrl(url), olderThanSeconds, ...pruned });
    else out.data(`${describeDatabaseUrl(url)}: deleted ${pruned.sessions} session(s) older than ${olderThanSeconds}s and ${pruned.heartbeats} old heartbeat stream(s)\n`);
  } catch (error) {
    throw new CliError(`cannot prune ${describeDatabaseUrl(url)}: ${(error as Error).message}`, EXIT_FAILURE_FOUND);
  } finally {
    await opened.close();
  }
  return EXIT_OK;
}

export async function storeInit(url: string, options: StoreInitOptions, out: CliOutput): Promise<ExitCode> {
  if (!isDatabaseUrl(url)) throw new CliError(`store init needs a postgres:// URL; memory and file stores have no schema`, EXIT_USAGE);
  const { describeDatabaseUrl } = await import("../../session/store-postgres.js");
  const opened = await openForCommand(url);
  const schema = opened.schema!;
  await opened.close();
  if (options.json) writeJson(out, { store: describeDatabaseUrl(url), schema });
  else {
    const what = schema.from === 0 ? "created" : schema.from === schema.to ? "already current" : `upgraded from version ${schema.from}`;
    out.data(`${describeDatabaseUrl(url)}: schema version ${schema.to} (${what})\n`);
  }
  return EXIT_OK;
}

/** One connection to the store, its schema brought up to date; a store that cannot be opened is the caller's mistake (exit 2). */
async function openForCommand(url: string): Promise<Awaited<ReturnType<typeof import("../../session/store-postgres.js").postgresStore>>> {
  const { postgresStore } = await import("../../session/store-postgres.js");
  try {
    return await postgresStore(url, { maxConnections: 1 });
  } catch (error) {
    throw new CliError((error as Error).message, EXIT_USAGE);
  }
}
