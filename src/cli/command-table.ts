import type { Command } from "commander";
import type { CommandHost } from "./command-host.js";
import { commandNameOf } from "./command-name.js";

/** Adds one command to the program. */
export type Register = (program: Command, host: CommandHost) => void;

/** Commands by name, each with a loader of the module that registers it, in the order `--help` lists them. */
export type CommandTable = ReadonlyArray<readonly [string, () => Promise<Register>]>;

/**
 * The commands a run needs registered: the one it names as its first word, or every one when it
 * names none it knows (`--help`, `help list`, a typo that deserves a suggestion). A bare
 * `--version` needs none.
 */
export function commandsFor(argv: readonly string[], commands: CommandTable): CommandTable {
  const first = commandNameOf(argv);
  const named = commands.find(([name]) => name === first);
  if (named) return [named];
  if (first === undefined && argv.length > 0 && argv.every((arg) => arg === "-V" || arg === "--version")) return [];
  return commands;
}
