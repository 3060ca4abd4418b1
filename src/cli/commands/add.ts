import * as fs from "node:fs";
import os from "node:os";
import type { Command } from "commander";
import { installLockedSkills, installSkills, listSourceSkills, type SourceListing } from "../../install/operations.js";
import type { CopyListener } from "../../install/placement.js";
import { oneLineShown, oneLineText } from "../../package/display-text.js";
import type { CommandHost } from "../command-host.js";
import { CliError, EXIT_OK, EXIT_USAGE, type ExitCode } from "../exit.js";
import { addPlaceOptions, exitCleanlyOnSignals, installerCall, reportOutcomes, targetOf, type PlaceOptions } from "../install-options.js";
import { writeJson, type CliOutput } from "../output.js";

export interface AddOptions extends PlaceOptions {
  skill?: string[];
  list?: boolean;
  force?: boolean;
  frozen?: boolean;
  path?: string;
  plugin?: string;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/**
 * Set only by tests: after the first file of a skill is written into its temporary folder, the
 * folder's path is written to this file and the command waits there forever, so a test can kill
 * it mid-copy and check that no half skill is visible.
 */
export const PAUSE_MID_COPY_ENV = "SKILLPORT_TEST_PAUSE_MID_COPY";

export function registerAddCommand(program: Command, { out, run }: CommandHost): void {
  addPlaceOptions(
    program
      .command("add")
      .description("install skills from a git repository (URL, owner/repo[/path][#ref]), a well-known site (https://host) or a local folder, and record them in skills-lock.json")
      .argument("[source]", "https://…, ssh://…, git@host:path, file://…, owner/repo[/path][#ref], a site publishing /.well-known/agent-skills/ (https://host[/path], or http:// on loopback), or a local folder (./dir, /abs/dir)")
      .option("--path <dir>", "look for skills only in this folder inside the source")
      .option("--plugin <name>", "install only the skills of this plugin (a Claude Code or Codex marketplace's, or the source's own plugin)")
      .option("--skill <name>", "install only this skill (repeatable)", collect)
      .option("--list", "only list the skills the source holds")
      .option("--force", "replace a folder skills-lock.json does not record, or a skill edited since it was installed")
      .option("--frozen", "install exactly what skills-lock.json records (each skill at its locked commit and digest); takes no SOURCE"),
  ).action((source: string | undefined, options: AddOptions) => run(() => addCommand(source, options, out)));
}

export async function addCommand(source: string | undefined, options: AddOptions, out: CliOutput): Promise<ExitCode> {
  if (options.frozen && source !== undefined) throw new CliError("add --frozen installs what skills-lock.json records; give it no SOURCE", EXIT_USAGE);
  if (options.frozen && options.list) throw new CliError("add --frozen and --list do not go together", EXIT_USAGE);
  if (!options.frozen && source === undefined) throw new CliError("add needs a SOURCE (or --frozen)", EXIT_USAGE);
  if (options.frozen && (options.path !== undefined || options.plugin !== undefined)) throw new CliError("add --frozen installs what skills-lock.json records; --path and --plugin choose from a SOURCE", EXIT_USAGE);
  exitCleanlyOnSignals();
  const common = {
    cwd: process.cwd(),
    home: os.homedir(),
    onProgress: (line: string) => out.log(oneLineText(line)),
    ...(options.path !== undefined ? { path: options.path } : {}),
    ...(options.plugin !== undefined ? { plugin: options.plugin } : {}),
  };

  if (options.list) {
    const listing = await installerCall(() => listSourceSkills(source!, common));
    if (options.json) {
      writeJson(out, listing);
    } else {
      for (const skill of listing.skills) {
        const where = skill.path ? `  (${oneLineShown(skill.path)})` : "";
        out.data(`${oneLineShown(skill.name)}${where}${skill.installable ? "" : "  [cannot be installed]"}\n`);
        if (skill.description) out.data(`    ${oneLineText(skill.description)}\n`);
        for (const problem of skill.problems) out.data(`    - ${oneLineText(problem)}\n`);
      }
      printPlugins(listing, out);
      if (listing.skipped && listing.skipped.length > 0) out.log(`these dot-folders were not searched (name one with --path): ${listing.skipped.map(oneLineShown).join(", ")}`);
      for (const note of listing.notes ?? []) out.log(`note: ${oneLineText(note)}`);
      out.log(`${listing.skills.length} skill${listing.skills.length === 1 ? "" : "s"} in ${listing.url}${listing.commit ? ` at ${listing.commit.slice(0, 12)}` : ""}`);
    }
    return EXIT_OK;
  }

  const target = targetOf(options);
  const onCopy = pauseMidCopy();
  const installOptions = { ...common, target, force: options.force === true, ...(options.skill ? { skills: options.skill } : {}), ...(onCopy ? { onCopy } : {}) };
  const report = await installerCall(() => (options.frozen ? installLockedSkills(installOptions) : installSkills(source!, installOptions)));
  return reportOutcomes([report], options, out);
}

/** The plugins a source holds, each with its skills, after the skill lines. */
function printPlugins(listing: SourceListing, out: CliOutput): void {
  if (!listing.plugins) return;
  out.data(`\nplugins:\n`);
  for (const plugin of listing.plugins) {
    const what = plugin.elsewhere ? `not in this source (${oneLineText(plugin.elsewhere)})` : plugin.skills.length === 0 ? "no skills found" : plugin.skills.map(oneLineShown).join(", ");
    out.data(`${oneLineShown(plugin.name)}  [${plugin.kind}]  ${what}\n`);
    if (plugin.description) out.data(`    ${oneLineText(plugin.description)}\n`);
  }
}

function pauseMidCopy(): CopyListener | null {
  const file = process.env[PAUSE_MID_COPY_ENV];
  if (!file) return null;
  return async ({ staging }) => {
    fs.writeFileSync(file, staging);
    await new Promise(() => setInterval(() => {}, 1_000));
  };
}
