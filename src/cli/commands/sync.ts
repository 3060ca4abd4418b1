import * as fs from "node:fs";
import * as path from "node:path";
import type { Command } from "commander";
import { renderCatalog } from "../../prompt/catalog.js";
import { agentsMdBlock, withSkillsBlock } from "../agents-md.js";
import type { CommandHost } from "../command-host.js";
import { addCommonOptions, type CommonOptions } from "../common-options.js";
import { CliError, EXIT_OK, EXIT_USAGE, type ExitCode } from "../exit.js";
import { writeJson, type CliOutput } from "../output.js";
import { withRuntime } from "../runtime-context.js";

export interface SyncOptions extends CommonOptions {
  command?: string;
}

export function registerSyncCommand(program: Command, { out, run }: CommandHost): void {
  addCommonOptions(
    program
      .command("sync")
      .description("write the skill catalog, with how to load each skill from a shell, into the skills block of AGENTS.md (for agents without tool calling)")
      .argument("[file]", "the file to update (default: AGENTS.md in the working directory; created when missing)")
      .option("--command <command>", "how the agent runs skillport (default: skillport; e.g. \"npx skillport\")"),
  ).action((file: string | undefined, options: SyncOptions) => run(() => syncCommand(file, options, out)));
}

export async function syncCommand(file: string | undefined, options: SyncOptions, out: CliOutput): Promise<ExitCode> {
  return withRuntime(options, out, async ({ runtime, scope, cwd }): Promise<ExitCode> => {
    const target = path.resolve(cwd, file ?? "AGENTS.md");
    // What the model would be offered through the tool: usable skills only, in catalog order.
    const skills = runtime.registry(scope).list();
    const block = agentsMdBlock(renderCatalog(skills, { format: "xml" }), readCommandLine(options, cwd));
    const before = readExisting(target);
    const after = withSkillsBlock(before ?? "", block);
    const status = before === null ? "created" : before === after ? "unchanged" : "updated";
    if (status !== "unchanged") writeAtomically(target, after);
    if (options.json) writeJson(out, { file: target, status, skills: skills.map((skill) => skill.name) });
    else out.data(`${target}: ${status}, ${skills.length} skill${skills.length === 1 ? "" : "s"}\n`);
    return EXIT_OK;
  });
}

/**
 * The command the agent is told to run, carrying the options that chose these skills: an agent
 * told to run a bare `skillport read` would read from the default folders, not from `--root`.
 */
function readCommandLine(options: SyncOptions, cwd: string): string {
  const words = [options.command ?? "skillport", "read", "{name}"];
  for (const root of options.root ?? []) words.push("--root", shellWord(path.resolve(cwd, root)));
  if (options.bundle !== undefined) words.push("--bundle", shellWord(path.resolve(cwd, options.bundle)));
  if (options.config !== undefined) words.push("--config", shellWord(path.resolve(cwd, options.config)));
  if (options.agent !== undefined) words.push("--agent", shellWord(options.agent));
  if (options.project !== undefined) words.push("--project", shellWord(options.project));
  return words.join(" ");
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

function readExisting(file: string): string | null {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`, EXIT_USAGE);
  }
}

/**
 * Written beside the file and renamed over it, so an agent reading AGENTS.md meanwhile sees the
 * old text or the new, never half of one. A link is followed (the file it names is replaced, the
 * link stays), and an existing file keeps its mode.
 */
function writeAtomically(file: string, text: string): void {
  let real = file;
  let mode = 0o644;
  try {
    real = fs.realpathSync(file);
    mode = fs.statSync(real).mode & 0o7777;
  } catch {
    // A new file: written where asked, with the usual mode.
  }
  const temp = path.join(path.dirname(real), `.${path.basename(real)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(temp, text, { mode });
    fs.chmodSync(temp, mode);
    fs.renameSync(temp, real);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw new CliError(`cannot write ${file}: ${(error as Error).message}`, EXIT_USAGE);
  }
}
