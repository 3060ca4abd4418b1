import { Option, type Command } from "commander";
import { renderCatalog } from "../../prompt/catalog.js";
import { skillsRefPrompt } from "../../prompt/skills-ref.js";
import { positiveInteger } from "../arg-parsers.js";
import { toolUnavailableText } from "../availability-text.js";
import type { CommandHost } from "../command-host.js";
import { addCommonOptions, type CommonOptions } from "../common-options.js";
import { EXIT_OK, type ExitCode } from "../exit.js";
import { writeJson, type CliOutput } from "../output.js";
import { withRuntime } from "../runtime-context.js";
import { noSkillsFoundText } from "../search-report.js";

export interface PromptOptions extends CommonOptions {
  format: "xml" | "markdown";
  budget?: number;
  skillsRef?: boolean;
}

export function registerPromptCommand(program: Command, { out, run }: CommandHost): void {
  addCommonOptions(
    program
      .command("prompt")
      .description("print the skill catalog for a system prompt")
      .addOption(new Option("--format <format>", "catalog format").choices(["xml", "markdown"]).default("xml"))
      .option("--budget <chars>", "character budget: shorten descriptions, then drop skills, and say what was left out", positiveInteger)
      .option("--skills-ref", "print exactly what the reference `skills-ref to-prompt` prints for these skills"),
  ).action((options: PromptOptions) => run(() => promptCommand(options, out)));
}

/**
 * When the scope's tool policy withholds the `skill` tool, the model can use no skill, so the
 * catalog is empty, exactly as the session's `catalogText()` and the MCP server give nothing:
 * a prompt that advertised skills the model cannot load would mislead it.
 */
export async function promptCommand(options: PromptOptions, out: CliOutput): Promise<ExitCode> {
  return withRuntime(options, out, async ({ runtime, scope, sources }): Promise<ExitCode> => {
    const registry = runtime.registry(scope);
    const skills = registry.toolAvailable ? registry.list() : [];
    // With no skills the reference still prints its empty block, and --skills-ref promises its exact output.
    const text = options.skillsRef
      ? skillsRefPrompt(skills.map((s) => s.dir))
      : renderCatalog(skills, { format: options.format, ...(options.budget ? { budgetChars: options.budget } : {}) });
    if (!registry.toolAvailable) out.log(`note: ${toolUnavailableText(scope)}, so there is no skill catalog to print`);
    if (options.json) {
      writeJson(out, { format: options.skillsRef ? "skills-ref" : options.format, count: skills.length, toolAvailable: registry.toolAvailable, text });
    } else if (text !== "") {
      out.data(`${text}\n`);
    } else if (registry.toolAvailable && options.budget && renderCatalog(skills, { format: options.format }) !== "") {
      out.log(`The budget of ${options.budget} characters leaves no room for a single skill, so the catalog is empty; raise --budget.`);
    } else if (registry.toolAvailable && registry.all().length > 0) {
      out.log("No skill can be used here (see `skillport list`): the catalog is empty, so a system prompt should carry no skills block.");
    } else if (registry.toolAvailable) {
      out.log(`${noSkillsFoundText(sources)}\nThe catalog is empty, so a system prompt should carry no skills block.`);
    }
    return EXIT_OK;
  });
}
