import type { Command } from "commander";
import { removeSkills, type InstallReport } from "../../install/operations.js";
import type { CommandHost } from "../command-host.js";
import type { ExitCode } from "../exit.js";
import { addPlaceOptions, exitCleanlyOnSignals, installerCall, reportOutcomes, targetsOf, withoutDuplicateMisses, type PlaceOptions } from "../install-options.js";
import type { CliOutput } from "../output.js";

export interface RemoveOptions extends PlaceOptions {
  force?: boolean;
}

export function registerRemoveCommand(program: Command, { out, run }: CommandHost): void {
  addPlaceOptions(
    program
      .command("remove")
      .description("take installed skills out of their folder and skills-lock.json")
      .argument("<names...>", "the skills to remove")
      .option("--force", "remove a skill edited since it was installed, or a folder skills-lock.json does not record"),
  ).action((names: string[], options: RemoveOptions) => run(() => removeCommand(names, options, out)));
}

export async function removeCommand(names: string[], options: RemoveOptions, out: CliOutput): Promise<ExitCode> {
  const reports: InstallReport[] = [];
  exitCleanlyOnSignals();
  for (const target of await installerCall(async () => targetsOf(options))) reports.push(await installerCall(() => removeSkills(names, { target, force: options.force === true })));
  return reportOutcomes(withoutDuplicateMisses(reports, names), options, out);
}
