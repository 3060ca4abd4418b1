import type { Command } from "commander";
import { verifySkills, type InstallReport } from "../../install/operations.js";
import type { CommandHost } from "../command-host.js";
import type { ExitCode } from "../exit.js";
import { addPlaceOptions, installerCall, reportOutcomes, targetsOf, type PlaceOptions } from "../install-options.js";
import type { CliOutput } from "../output.js";

export function registerVerifyCommand(program: Command, { out, run }: CommandHost): void {
  addPlaceOptions(
    program.command("verify").description("check every installed skill against the digest skills-lock.json records (edited by hand, tampered with, or gone)"),
  ).action((options: PlaceOptions) => run(() => verifyCommand(options, out)));
}

export async function verifyCommand(options: PlaceOptions, out: CliOutput): Promise<ExitCode> {
  const reports: InstallReport[] = [];
  for (const target of await installerCall(async () => targetsOf(options))) reports.push(await installerCall(() => verifySkills({ target })));
  return reportOutcomes(reports, options, out);
}
