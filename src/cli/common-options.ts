import { Option, type Command } from "commander";

/** Options every command that reads skills accepts. */
export interface CommonOptions {
  root?: string[];
  bundle?: string;
  config?: string;
  agent?: string;
  project?: string;
  json?: boolean;
  /** false with `--no-parse-cache`. */
  parseCache?: boolean;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Adds `--root`, `--config`, `--agent`, `--project` (and `--json` unless told not to). */
export function addCommonOptions(command: Command, { json = true }: { json?: boolean } = {}): Command {
  command
    .addOption(
      new Option("--root <dir>", "a directory of skills, or one skill directory; repeatable; replaces the default and configured sources (origin global, in the order given)").argParser(collect),
    )
    .option("--bundle <dir>", "serve a bundle written by `skillport bundle` (verified first); replaces every other source")
    .option("--config <file>", "config file with sources, agents and projects (default: ./skillport.config.json when present)")
    .option("--agent <id>", "resolve skills as this agent sees them")
    .option("--project <id>", "resolve skills inside this project context")
    .option("--no-parse-cache", "parse every SKILL.md, neither reading nor writing the parse cache (also SKILLPORT_PARSE_CACHE=0)");
  if (json) command.option("--json", "print machine-readable JSON on stdout");
  return command;
}
