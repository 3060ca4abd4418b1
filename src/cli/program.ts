import { Command, CommanderError } from "commander";
import type { CommandHost } from "./command-host.js";
import { reportFailure } from "./error-report.js";
import { EXIT_OK, EXIT_USAGE, type ExitCode } from "./exit.js";
import { processOutput, type CliOutput } from "./output.js";
import { packageVersion } from "./version.js";

type Register = (program: Command, host: CommandHost) => void;

/**
 * Each command's module, loaded only when needed: a run names one command, and loading every
 * command's module (and what each imports) was a third of what starting `skillport list` cost.
 * In the order `--help` lists them.
 */
const COMMANDS: ReadonlyArray<readonly [string, () => Promise<Register>]> = [
  ["list", async () => (await import("./commands/list.js")).registerListCommand],
  ["show", async () => (await import("./commands/show.js")).registerShowCommand],
  ["read", async () => (await import("./commands/read.js")).registerReadCommand],
  ["sync", async () => (await import("./commands/sync.js")).registerSyncCommand],
  ["validate", async () => (await import("./commands/validate.js")).registerValidateCommand],
  ["prompt", async () => (await import("./commands/prompt.js")).registerPromptCommand],
  ["doctor", async () => (await import("./commands/doctor.js")).registerDoctorCommand],
  ["stats", async () => (await import("./commands/stats.js")).registerStatsCommand],
  ["add", async () => (await import("./commands/add.js")).registerAddCommand],
  ["update", async () => (await import("./commands/update.js")).registerUpdateCommand],
  ["remove", async () => (await import("./commands/remove.js")).registerRemoveCommand],
  ["verify", async () => (await import("./commands/verify.js")).registerVerifyCommand],
  ["bundle", async () => (await import("./commands/bundle.js")).registerBundleCommand],
  ["mcp", async () => (await import("./commands/mcp.js")).registerMcpCommand],
  ["store", async () => (await import("./commands/store.js")).registerStoreCommand],
];

/**
 * The commands a run needs registered: the one it names as its first word, or every one when it
 * names none it knows (`--help`, `help list`, a typo that deserves a suggestion).
 */
function commandsFor(argv: readonly string[]): ReadonlyArray<readonly [string, () => Promise<Register>]> {
  const first = argv.find((arg) => !arg.startsWith("-"));
  const named = COMMANDS.find(([name]) => name === first);
  return named ? [named] : COMMANDS;
}

/** Parses `argv` (without the node and script entries), runs the command, and returns its exit code. */
export async function runCli(argv: string[], out: CliOutput = processOutput): Promise<ExitCode> {
  let exitCode: ExitCode = EXIT_OK;
  const host: CommandHost = {
    out,
    async run(work) {
      try {
        exitCode = await work();
      } catch (error) {
        exitCode = reportFailure(error, out);
      }
    },
  };

  const program = new Command("skillport")
    .description("Agent Skills for any LLM agent: inspect, validate and serve skills")
    .version(packageVersion(), "-V, --version")
    // Usage errors must exit 2, not commander's default 1; the override is inherited by every subcommand added below.
    .exitOverride()
    .configureOutput({ writeOut: (text) => out.data(text), writeErr: (text) => out.status(text) })
    .showHelpAfterError("(add --help for usage)")
    .showSuggestionAfterError(true);

  const registers = await Promise.all(commandsFor(argv).map(([, load]) => load()));
  for (const register of registers) register(program, host);

  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    // Anything that escaped a command's own handling still gets the one-line report, not a crash.
    return reportFailure(error, out);
  }
  return exitCode;
}
