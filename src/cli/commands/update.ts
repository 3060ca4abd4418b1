import os from "node:os";
import type { Command } from "commander";
import { updateSkills, type InstallReport } from "../../install/operations.js";
import { oneLineText } from "../../package/display-text.js";
import type { CommandHost } from "../command-host.js";
import type { ExitCode } from "../exit.js";
import { addPlaceOptions, exitCleanlyOnSignals, installerCall, reportOutcomes, targetsOf, withoutDuplicateMisses, type PlaceOptions } from "../install-options.js";
import type { CliOutput } from "../output.js";

export interface UpdateOptions extends PlaceOptions {
  force?: boolean;
  allowRisky?: boolean;
}

export function registerUpdateCommand(program: Command, { out, run }: CommandHost): void {
  addPlaceOptions(
    program
      .command("update")
      .description("move installed skills to their source's newest commit (or what their pinned #ref names now)")
      .argument("[names...]", "the skills to update (default: every skill skills-lock.json records)")
      .option("--force", "replace skills edited since they were installed")
      .option("--allow-risky", "install new versions the audit blocks, recording the rules accepted in skills-lock.json"),
  ).action((names: string[], options: UpdateOptions) => run(() => updateCommand(names, options, out)));
}

export async function updateCommand(names: string[], options: UpdateOptions, out: CliOutput): Promise<ExitCode> {
  exitCleanlyOnSignals();
  const reports: InstallReport[] = [];
  for (const target of await installerCall(async () => targetsOf(options))) {
    reports.push(
      await installerCall(() =>
        updateSkills({ target, names, force: options.force === true, allowRisky: options.allowRisky === true, cwd: process.cwd(), home: os.homedir(), onProgress: (line) => out.log(oneLineText(line)) }),
      ),
    );
  }
  return reportOutcomes(withoutDuplicateMisses(reports, names), options, out);
}
