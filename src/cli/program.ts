import { Command, CommanderError } from "commander";
import type { CommandHost } from "./command-host.js";
import { registerDoctorCommand } from "./commands/doctor.js";
import { registerListCommand } from "./commands/list.js";
import { registerMcpCommand } from "./commands/mcp.js";
import { registerPromptCommand } from "./commands/prompt.js";
import { registerReadCommand } from "./commands/read.js";
import { registerShowCommand } from "./commands/show.js";
import { registerStatsCommand } from "./commands/stats.js";
import { registerValidateCommand } from "./commands/validate.js";
import { reportFailure } from "./error-report.js";
import { EXIT_OK, EXIT_USAGE, type ExitCode } from "./exit.js";
import { processOutput, type CliOutput } from "./output.js";
import { packageVersion } from "./version.js";

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

  registerListCommand(program, host);
  registerShowCommand(program, host);
  registerReadCommand(program, host);
  registerValidateCommand(program, host);
  registerPromptCommand(program, host);
  registerDoctorCommand(program, host);
  registerStatsCommand(program, host);
  registerMcpCommand(program, host);

  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    // Anything that escaped a command's own handling still gets the one-line report, not a crash.
    return reportFailure(error, out);
  }
  return exitCode;
}
