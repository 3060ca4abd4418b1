import type { ExitCode } from "./exit.js";
import type { CliOutput } from "./output.js";

/** What a command module needs from the program: where to write, and how to report its exit code. */
export interface CommandHost {
  out: CliOutput;
  /** Runs a command's work, turning its result or its `CliError` into the process exit code. */
  run(work: () => Promise<ExitCode>): Promise<void>;
}
