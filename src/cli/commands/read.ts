import type { Command } from "commander";
import type { Envelope } from "../../tool/envelope.js";
import type { CommandHost } from "../command-host.js";
import { addCommonOptions, type CommonOptions } from "../common-options.js";
import { logError } from "../error-report.js";
import { EXIT_FAILURE_FOUND, EXIT_OK, type ExitCode } from "../exit.js";
import { writeJson, type CliOutput } from "../output.js";
import { isScoped, withRuntime, type CliContext } from "../runtime-context.js";
import { skillNotFound } from "../skill-not-found.js";

export function registerReadCommand(program: Command, { out, run }: CommandHost): void {
  addCommonOptions(
    program
      .command("read")
      .description(
        "load a skill exactly as the `skill` tool would for a model (its instructions, base directory and files), or print one of its files; for agents that run shell commands",
      )
      .argument("<name>", "skill name")
      .argument("[path]", "SKILL.md, or any file of the skill by its path relative to the skill directory; without it, the skill is loaded"),
  ).action((name: string, filePath: string | undefined, options: CommonOptions) => run(() => readCommand(name, filePath, options, out)));
}

/**
 * Goes through the tool itself (an unlogged session) rather than reading files directly, so
 * the activation text, the path rules, confinement and scope policy are the ones the model gets
 * through the tool, with no second copy: `read NAME` is `skill({name})`, `read NAME PATH` is
 * `skill({name, file_path})`, and stdout is the text the tool's renderer gives the model.
 */
export async function readCommand(name: string, filePath: string | undefined, options: CommonOptions, out: CliOutput): Promise<ExitCode> {
  return withRuntime(options, out, async (context): Promise<ExitCode> => {
    const session = context.runtime.session({ ...context.scope, log: false });
    try {
      const { envelope, text } = await session.invoke(filePath === undefined ? { name } : { name, file_path: filePath });
      if (options.json) writeJson(out, envelope);
      if (!envelope.ok) {
        if (!options.json) logError(out, personFacingError(envelope, name, context));
        return EXIT_FAILURE_FOUND;
      }
      // A file is printed byte for byte; the activation text ends with a line break like any output.
      if (!options.json) out.data(filePath === undefined ? `${text}\n` : text);
      return EXIT_OK;
    } finally {
      session.close();
    }
  }, { sessions: true });
}

/** The tool's error text, except "no such skill", whose text is written for a model. */
function personFacingError(envelope: Extract<Envelope, { ok: false }>, name: string, { runtime, scope }: CliContext): string {
  if (envelope.error.code !== "skill_not_found") return envelope.error.message;
  const registry = runtime.registry(scope);
  return skillNotFound(name, registry.list().map((skill) => skill.name), runtime.diagnostics(isScoped(scope) ? scope : undefined)).message;
}
