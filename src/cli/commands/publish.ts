import type { Command } from "commander";
import { publishSite } from "../../install/publish.js";
import { oneLineShown, oneLineText } from "../../package/display-text.js";
import type { CommandHost } from "../command-host.js";
import { EXIT_FAILURE_FOUND, EXIT_OK, type ExitCode } from "../exit.js";
import { installerCall } from "../install-options.js";
import { writeJson, type CliOutput } from "../output.js";

export interface PublishOptions {
  out: string;
  json?: boolean;
}

export function registerPublishCommand(program: Command, { out, run }: CommandHost): void {
  program
    .command("publish")
    .description("write a well-known site (SITE/.well-known/agent-skills/index.json and one artifact per skill) that skillport add and the skills CLI install from; only skills that pass validate are published")
    .argument("<dir...>", "skill folders, or folders holding skills")
    .requiredOption("--out <site>", "the site's root folder (its .well-known/agent-skills is replaced whole)")
    .option("--json", "print machine-readable JSON on stdout")
    .action((dirs: string[], options: PublishOptions) => run(() => publishCommand(dirs, options, out)));
}

export async function publishCommand(dirs: readonly string[], options: PublishOptions, out: CliOutput): Promise<ExitCode> {
  const report = await installerCall(() => publishSite(dirs, options.out));
  if (options.json) {
    writeJson(out, report);
  } else {
    const width = Math.max(0, ...report.skills.map((s) => s.status.length));
    for (const skill of report.skills) {
      out.data(`${skill.status.padEnd(width)}  ${oneLineShown(skill.name)}${skill.url ? `  ${oneLineShown(skill.url)} (${skill.type})` : ""}\n`);
      for (const message of skill.messages) out.data(`    ${oneLineText(message)}\n`);
    }
    const published = report.skills.filter((s) => s.status === "published").length;
    out.log(`${published} published, ${report.skills.length - published} refused; index at ${report.index}`);
  }
  return report.skills.some((s) => s.status === "refused") ? EXIT_FAILURE_FOUND : EXIT_OK;
}
