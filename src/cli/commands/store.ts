/**
 * `skillport store init URL`: creates (or upgrades) the session store's schema in PostgreSQL,
 * for operators who create schemas ahead of time rather than letting the first server do it.
 * Servers create a missing schema themselves at start; both take the same lock, so either order
 * is safe.
 */
import type { Command } from "commander";
import type { CommandHost } from "../command-host.js";
import { CliError, EXIT_OK, EXIT_USAGE, type ExitCode } from "../exit.js";
import { writeJson, type CliOutput } from "../output.js";
import { isDatabaseUrl } from "../../session/open-store.js";

interface StoreInitOptions {
  json?: boolean;
}

export function registerStoreCommand(program: Command, { out, run }: CommandHost): void {
  const store = program.command("store").description("manage the shared session store (PostgreSQL) that `mcp --http --store` uses");
  store
    .command("init")
    .description("create or upgrade the session store's schema in the database at URL")
    .argument("<url>", "postgres://user@host:port/database")
    .option("--json", "print the outcome as JSON")
    .action((url: string, options: StoreInitOptions) => run(() => storeInit(url, options, out)));
}

export async function storeInit(url: string, options: StoreInitOptions, out: CliOutput): Promise<ExitCode> {
  if (!isDatabaseUrl(url)) throw new CliError(`store init needs a postgres:// URL; memory and file stores have no schema`, EXIT_USAGE);
  const { postgresStore, describeDatabaseUrl } = await import("../../session/store-postgres.js");
  let opened;
  try {
    opened = await postgresStore(url, { maxConnections: 1 });
  } catch (error) {
    throw new CliError((error as Error).message, EXIT_USAGE);
  }
  const schema = opened.schema!;
  await opened.close();
  if (options.json) writeJson(out, { store: describeDatabaseUrl(url), schema });
  else {
    const what = schema.from === 0 ? "created" : schema.from === schema.to ? "already current" : `upgraded from version ${schema.from}`;
    out.data(`${describeDatabaseUrl(url)}: schema version ${schema.to} (${what})\n`);
  }
  return EXIT_OK;
}
