import type { Command } from "commander";
import type { CommandHost } from "../command-host.js";
import { addCommonOptions, type CommonOptions } from "../common-options.js";
import { logError } from "../error-report.js";
import { EXIT_FAILURE_FOUND, EXIT_OK, type ExitCode } from "../exit.js";
import { writeJson, type CliOutput } from "../output.js";
import { withRuntime } from "../runtime-context.js";

export function registerReadCommand(program: Command, { out, run }: CommandHost): void {
  addCommonOptions(
    program
      .command("read")
      .description("print one file of a skill exactly as the `skill` tool would return it to the model")
      .argument("<name>", "skill name")
      .argument("<path>", "SKILL.md, or any file of the skill by its path relative to the skill directory"),
  ).action((name: string, filePath: string, options: CommonOptions) => run(() => readCommand(name, filePath, options, out)));
}

/**
 * Goes through the tool itself (an unlogged session) rather than reading the file directly, so
 * the path rules, confinement and scope policy are the ones the model gets, with no second copy.
 */
export async function readCommand(name: string, filePath: string, options: CommonOptions, out: CliOutput): Promise<ExitCode> {
  return withRuntime(options, out, async ({ runtime, scope }): Promise<ExitCode> => {
    const session = runtime.session({ ...scope, log: false });
    try {
      const envelope = await session.call({ name, file_path: filePath });
      if (options.json) writeJson(out, envelope);
      if (!envelope.ok) {
        if (!options.json) logError(out, envelope.error.message);
        return EXIT_FAILURE_FOUND;
      }
      if (!options.json && "content" in envelope.data) out.data(envelope.data.content);
      return EXIT_OK;
    } finally {
      session.close();
    }
  });
}
