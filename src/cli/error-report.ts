import { ConfigError } from "../config.js";
import { SkillBodyError } from "../package/body.js";
import { withHiddenCharactersShown } from "../package/display-text.js";
import { locateSkillFile } from "../package/skill-file.js";
import { SkillsRefPromptError } from "../prompt/skills-ref-error.js";
import { CliError, EXIT_FAILURE_FOUND, EXIT_USAGE, type ExitCode } from "./exit.js";
import type { CliOutput } from "./output.js";

/** Set (to anything but empty or `0`) to get the stack trace of a failure after its one-line message. */
export const DEBUG_ENV = "SKILLPORT_DEBUG";

export function debugRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env[DEBUG_ENV];
  return value !== undefined && value !== "" && value !== "0";
}

/**
 * Writes one `error: …` line. Messages are flattened because people and scripts read stderr line
 * by line: a message spread over several lines reads as several problems. Hidden characters (an
 * ESC in a directory name a message quotes) are written out, not sent to the terminal.
 */
export function logError(out: CliOutput, message: string): void {
  out.log(`error: ${withHiddenCharactersShown(message.replace(/\s*\r?\n\s*/g, " ").trim())}`);
}

/**
 * Reports a failure that ended a command and returns the exit code. Failures the code expects
 * (bad config, a skill the reference cannot read, …) are the person's to fix, so they get the
 * message alone; anything else is a bug in skillport, and only then is the stack worth having,
 * on request, since it means nothing to someone who just ran a command.
 */
export function reportFailure(error: unknown, out: CliOutput, debug: boolean = debugRequested()): ExitCode {
  const expected = expectedFailure(error);
  if (expected) {
    logError(out, expected.message);
  } else {
    logError(out, `internal error: ${messageOf(error)} (this is a bug in skillport; rerun with ${DEBUG_ENV}=1 to see the stack trace)`);
  }
  if (debug && error instanceof Error && error.stack) out.log(error.stack);
  return expected?.exitCode ?? EXIT_FAILURE_FOUND;
}

function expectedFailure(error: unknown): { message: string; exitCode: ExitCode } | null {
  if (error instanceof CliError) return { message: error.message, exitCode: error.exitCode };
  if (error instanceof ConfigError) return { message: `Config error in ${error.message}`, exitCode: EXIT_USAGE };
  if (error instanceof SkillsRefPromptError) return { message: skillsRefMessage(error), exitCode: EXIT_FAILURE_FOUND };
  if (error instanceof SkillBodyError) return { message: error.message, exitCode: EXIT_FAILURE_FOUND };
  return null;
}

/**
 * The error names the skill directory; the file is what the person has to open, so name that
 * instead when there is one. The reference refuses the whole prompt over one unreadable skill,
 * which is why nothing was printed even though the others are fine: say so.
 */
function skillsRefMessage(error: SkillsRefPromptError): string {
  const file = locateSkillFile(error.dir)?.file;
  const prefix = `${error.dir}: `;
  const located = file && error.message.startsWith(prefix) ? `${file}: ${error.message.slice(prefix.length)}` : error.message;
  return `${located} (skills-ref to-prompt cannot read this skill, so it prints no prompt at all)`;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
