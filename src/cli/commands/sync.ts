import * as path from "node:path";
import type { Command } from "commander";
import { isShellSafeName } from "../../package/naming.js";
import { readRegularFileSync } from "../../package/regular-file.js";
import { oneLineShown } from "../../package/display-text.js";
import { UnsafeWriteError, writeFileWithin } from "../../package/safe-file-write.js";
import { renderCatalog } from "../../prompt/catalog.js";
import { projectRoot } from "../../registry/sources.js";
import { agentsMdBlock, withSkillsBlock } from "../agents-md.js";
import type { CommandHost } from "../command-host.js";
import { addCommonOptions, type CommonOptions } from "../common-options.js";
import { CliError, EXIT_FAILURE_FOUND, EXIT_OK, EXIT_USAGE, type ExitCode } from "../exit.js";
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
    // The catalog is read by an agent that runs what it says in a shell: a name made of other
    // characters (`a; touch X #`, `--config=…`) would reach that shell as code or as an option.
    const offered = runtime.registry(scope).list();
    const skills = offered.filter((skill) => isShellSafeName(skill.name));
    const leftOut = offered.filter((skill) => !isShellSafeName(skill.name)).map((skill) => skill.name);
    for (const name of leftOut) {
      out.log(`warning: left out of ${path.basename(target)}: skill ${oneLineShown(JSON.stringify(name))} has characters besides letters, digits and hyphens (or starts with a hyphen), and a shell command cannot carry it safely`);
    }
    const block = agentsMdBlock(renderCatalog(skills, { format: "xml" }), readCommandLine(options, cwd, path.dirname(target)));
    const before = readExisting(target);
    const after = withSkillsBlock(before ?? "", block);
    const status = before === null ? "created" : before === after ? "unchanged" : "updated";
    if (status !== "unchanged") writeAtomically(target, after, allowedRoot(cwd, target));
    if (options.json) writeJson(out, { file: target, status, skills: skills.map((skill) => skill.name), ...(leftOut.length > 0 ? { leftOut } : {}) });
    else out.data(`${target}: ${status}, ${skills.length} skill${skills.length === 1 ? "" : "s"}\n`);
    return EXIT_OK;
  });
}

/**
 * The command the agent is told to run, carrying the options that chose these skills: an agent
 * told to run a bare `skillport read` would read from the default folders, not from `--root`.
 * Folders are written relative to the file's own folder (where an agent reading it works): the
 * file is committed, and an absolute path would name one person's checkout in everyone's clone.
 */
function readCommandLine(options: SyncOptions, cwd: string, fileDir: string): string {
  const words = [options.command ?? "skillport", "read", "{name}"];
  const place = (given: string): string => shellWord(relativeWord(fileDir, path.resolve(cwd, given)));
  for (const root of options.root ?? []) words.push("--root", place(root));
  if (options.bundle !== undefined) words.push("--bundle", place(options.bundle));
  if (options.config !== undefined) words.push("--config", place(options.config));
  if (options.agent !== undefined) words.push("--agent", shellWord(options.agent));
  if (options.project !== undefined) words.push("--project", shellWord(options.project));
  return words.join(" ");
}

/** `to` relative to `from`; `.` for the folder itself, and `./` before a path that would read as an option. */
function relativeWord(from: string, to: string): string {
  const relative = path.relative(from, to);
  if (relative === "") return ".";
  if (path.isAbsolute(relative)) return relative;
  return relative.startsWith("-") ? `./${relative}` : relative.split(path.sep).join("/");
}

/**
 * The folder `sync` may write in: the project (the nearest folder holding `.git`, else the
 * working directory), or the named file's own folder when the person named a file outside it on
 * purpose. A file found there that is a link leading anywhere else (`AGENTS.md ->
 * ~/.codex/AGENTS.md`, committed by a repository) is refused, never written through.
 */
function allowedRoot(cwd: string, target: string): string {
  const project = projectRoot(cwd);
  const relative = path.relative(project, target);
  const inside = relative !== "" && !relative.startsWith(`..${path.sep}`) && relative !== ".." && !path.isAbsolute(relative);
  return inside ? project : path.dirname(target);
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

function readExisting(file: string): string | null {
  try {
    // Never blocks on a FIFO planted under the name (regular-file.ts).
    return readRegularFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`, EXIT_USAGE);
  }
}

/**
 * Written beside the file and renamed over it (safe-file-write.ts), so an agent reading AGENTS.md
 * meanwhile sees the old text or the new, never half of one. A link that stays inside `root` is
 * followed (the file it names is replaced, the link stays); an existing file keeps its mode.
 */
function writeAtomically(file: string, text: string, root: string): void {
  try {
    writeFileWithin(file, text, { root });
  } catch (error) {
    if (error instanceof UnsafeWriteError) throw new CliError(error.message, EXIT_FAILURE_FOUND);
    throw new CliError(`cannot write ${file}: ${(error as Error).message}`, EXIT_USAGE);
  }
}
