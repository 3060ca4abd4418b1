/**
 * The error `prompt --skills-ref` stops with, in a module of its own: the CLI's error report
 * checks for it on every command, and importing the whole reference reader (its strict YAML
 * included) for that check cost every command's start-up.
 */
/** A skill the reference would also refuse to put in a prompt; `detail` is its error text. */
export class SkillsRefPromptError extends Error {
  constructor(
    readonly dir: string,
    readonly detail: string,
  ) {
    super(`${dir}: ${detail}`);
    this.name = "SkillsRefPromptError";
  }
}
