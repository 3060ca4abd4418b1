import type { CommandTable } from "./command-table.js";
import { runCli } from "./program.js";

/** Runs the command line of this process with the commands given (see `runCli`) and sets its exit code. */
export async function startCli(commands: CommandTable): Promise<void> {
  // A reader that stops early (`skillport prompt | head -1`) closes the pipe: the rest of the
  // output has nowhere to go, which is the reader's choice, not a failure to report with a stack.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? 0);
  });
  // exitCode instead of process.exit(): piped stdout must drain before the process ends.
  process.exitCode = await runCli(process.argv.slice(2), commands);
}
