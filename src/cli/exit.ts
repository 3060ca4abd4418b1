/**
 * Exit codes are part of the CLI's interface: scripts branch on them.
 * 0 all good, 1 a failure was found (invalid skill, error diagnostic, failed read),
 * 2 the command itself could not run as asked (usage, missing path, unusable config).
 */
export const EXIT_OK = 0;
export const EXIT_FAILURE_FOUND = 1;
export const EXIT_USAGE = 2;

export type ExitCode = typeof EXIT_OK | typeof EXIT_FAILURE_FOUND | typeof EXIT_USAGE;

/** A condition that ends the command with a message on stderr and a specific exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT_USAGE,
  ) {
    super(message);
    this.name = "CliError";
  }
}
