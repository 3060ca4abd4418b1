import * as fs from "node:fs";
import * as path from "node:path";
import { Option, type Command } from "commander";
import { isDirectory } from "../../package/path-kind.js";
import { referenceSkillFile } from "../../package/validate.js";
import { renderCatalog } from "../../prompt/catalog.js";
import { skillsRefPrompt, SkillsRefPromptError } from "../../prompt/skills-ref.js";
import { positiveInteger } from "../arg-parsers.js";
import { toolUnavailableText } from "../availability-text.js";
import type { CommandHost } from "../command-host.js";
import { addCommonOptions, type CommonOptions } from "../common-options.js";
import { CliError, EXIT_FAILURE_FOUND, EXIT_OK, EXIT_USAGE, type ExitCode } from "../exit.js";
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
      .option("--skills-ref", "print exactly what the reference `skills-ref to-prompt` prints for these skills")
      .argument("[dirs...]", "with --skills-ref: skill directories, in the order to print them (as `skills-ref to-prompt DIR...`)"),
  ).action((dirs: string[], options: PromptOptions) => run(() => (dirs.length > 0 ? skillsRefCommand(dirs, options, out) : promptCommand(options, out))));
}

/**
 * When the scope's tool policy withholds the `skill` tool, the model can use no skill, so the
 * catalog is empty, exactly as the session's `catalogText()` and the MCP server give nothing:
 * a prompt that advertised skills the model cannot load would mislead it.
 */
/**
 * `--skills-ref`: the skills given, in the order given, read and printed as the reference reads
 * and prints them. DIRs are taken as they are; without them each `--root` stands for itself
 * when it is a skill, else for the skills directly inside it (sorted by name, as a shell glob
 * `ROOT/*` gives them); without either, the loaded skills. Like the reference, one skill it
 * cannot read stops the whole prompt: its `Error: ...` text on stderr, exit 1.
 */
export async function skillsRefCommand(dirs: string[], options: PromptOptions, out: CliOutput): Promise<ExitCode> {
  if (!options.skillsRef) throw new CliError("skill directories are for --skills-ref; the catalog reads its sources (--root)", EXIT_USAGE);
  for (const dir of dirs) {
    if (!fs.existsSync(dir)) throw new CliError(`Path does not exist: ${dir}`, EXIT_USAGE);
  }
  const text = referenceText(dirs, out);
  if (text === null) return EXIT_FAILURE_FOUND;
  if (options.json) writeJson(out, { format: "skills-ref", count: dirs.length, toolAvailable: true, text });
  else out.data(`${text}\n`);
  return EXIT_OK;
}

/** The reference's prompt for these directories, or null after printing its `Error: ...` text. */
function referenceText(dirs: readonly string[], out: CliOutput): string | null {
  try {
    return skillsRefPrompt(dirs);
  } catch (error) {
    if (!(error instanceof SkillsRefPromptError)) throw error;
    // Exactly as the reference echoes it (a message ending in a line break keeps both).
    out.status(`Error: ${error.detail}\n`);
    return null;
  }
}

function skillsOfRoot(root: string): string[] {
  if (!isDirectory(root)) throw new CliError(`--root ${root}: not a directory`, EXIT_USAGE);
  if (referenceSkillFile(root) !== null) return [root];
  return fs
    .readdirSync(root)
    .filter((name) => !name.startsWith(".") && isDirectory(path.join(root, name)) && referenceSkillFile(path.join(root, name)) !== null)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((name) => path.join(root, name));
}

export async function promptCommand(options: PromptOptions, out: CliOutput): Promise<ExitCode> {
  return withRuntime(options, out, async ({ runtime, scope, sources }): Promise<ExitCode> => {
    const registry = runtime.registry(scope);
    const skills = registry.toolAvailable ? registry.list() : [];
    // --skills-ref prints what the reference prints for the skills given: each --root's own
    // skills, hidden or broken ones too (with no skills, the reference's empty block).
    const given = !registry.toolAvailable ? [] : options.root && options.root.length > 0 ? options.root.flatMap(skillsOfRoot) : skills.map((s) => s.dir);
    const text = options.skillsRef
      ? referenceText(given, out)
      : renderCatalog(skills, { format: options.format, ...(options.budget ? { budgetChars: options.budget } : {}) });
    if (text === null) return EXIT_FAILURE_FOUND;
    if (!registry.toolAvailable) out.log(`note: ${toolUnavailableText(scope)}, so there is no skill catalog to print`);
    if (options.json) {
      writeJson(out, { format: options.skillsRef ? "skills-ref" : options.format, count: options.skillsRef ? given.length : skills.length, toolAvailable: registry.toolAvailable, text });
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
