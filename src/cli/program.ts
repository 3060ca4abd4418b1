import { Command, CommanderError } from "commander";
import type { CommandHost } from "./command-host.js";
import { reportFailure } from "./error-report.js";
import { EXIT_OK, EXIT_USAGE, type ExitCode } from "./exit.js";
import { processOutput, type CliOutput } from "./output.js";
import { packageVersion } from "./version.js";
import { commandsFor, type CommandTable } from "./command-table.js";

/**
 * Parses `argv` (without the node and script entries), runs the command, and returns its exit
 * code. `commands` are the ones this program knows: every one (`COMMANDS`), or the one a
 * bundle of its own holds.
 */
export async function runCli(argv: string[], commands: CommandTable, out: CliOutput = processOutput): Promise<ExitCode> {
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
    .showHelpAfterError("(run skillport --help for usage)")
    .showSuggestionAfterError(true);

  const registers = await Promise.all(commandsFor(argv, commands).map(([, load]) => load()));
  for (const register of registers) register(program, host);
  pointHelpAtCommand(program);

  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    // Anything that escaped a command's own handling still gets the one-line report, not a crash.
    return reportFailure(error, out);
  }
  return exitCode;
}

/**
 * Each command's usage error ends by naming the command's own help: a bare "(add --help for
 * usage)" read as the `add` command. Set after the commands are registered, on every level.
 */
function pointHelpAtCommand(command: Command, names: readonly string[] = []): void {
  for (const sub of command.commands) {
    const path = [...names, sub.name()];
    sub.showHelpAfterError(`(run skillport ${path.join(" ")} --help for usage)`);
    pointHelpAtCommand(sub, path);
  }
}
