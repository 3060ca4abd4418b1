import path from "node:path";
import { oneLineShown, withHiddenCharactersShown } from "../../package/display-text.js";
import type { Command } from "commander";
import { readStatsDir, type SkillStats } from "../../session/stats.js";
import type { CommandHost } from "../command-host.js";
import { CliError, EXIT_OK, EXIT_USAGE, type ExitCode } from "../exit.js";
import { writeJson, type CliOutput } from "../output.js";
import { defaultLogDir } from "../session-logs.js";
import { isDirectory } from "../../package/path-kind.js";

export interface StatsOptions {
  logDir?: string;
  json?: boolean;
}

export function registerStatsCommand(program: Command, { out, run }: CommandHost): void {
  program
    .command("stats")
    .description("per-skill usage from session logs: activations, refused re-activations, file reads, last use")
    .option("--log-dir <dir>", "directory of session logs (default: $XDG_STATE_HOME/skillport/sessions, else ~/.local/state/skillport/sessions)")
    .option("--json", "print machine-readable JSON on stdout")
    .action((options: StatsOptions) => run(() => statsCommand(options, out)));
}

export async function statsCommand(options: StatsOptions, out: CliOutput): Promise<ExitCode> {
  const cwd = process.cwd();
  const dir = options.logDir ? path.resolve(cwd, options.logDir) : defaultLogDir();
  // The default directory is absent until a first session runs; a directory the person named must exist.
  if (options.logDir && !isDirectory(dir)) throw new CliError(`--log-dir ${options.logDir}: directory does not exist (${dir})`, EXIT_USAGE);
  const result = readStatsDir(dir);
  for (const d of result.diagnostics) out.log(`${d.severity}: ${oneLineShown(d.path)}: ${withHiddenCharactersShown(d.message)}`);
  if (result.diagnostics.some((d) => d.severity === "error") && result.sessions === 0) return EXIT_USAGE;
  if (options.json) {
    writeJson(out, { logDir: dir, sessions: result.sessions, skills: result.skills, diagnostics: result.diagnostics });
    return EXIT_OK;
  }
  if (result.sessions === 0) {
    out.log(`No session logs in ${dir} yet.`);
    return EXIT_OK;
  }
  out.data(renderTable(result.skills));
  out.data(`${result.sessions} session log${result.sessions === 1 ? "" : "s"} in ${dir}\n`);
  return EXIT_OK;
}


function renderTable(skills: SkillStats[]): string {
  const header = ["skill", "activations", "already active", "file reads", "last use"];
  // Names and times come from log files anyone may have written: shown escaped, one line each.
  const rows = skills.map((s) => [oneLineShown(s.name), String(s.activations), String(s.refusedReactivations), String(s.fileReads), oneLineShown(s.lastUse ?? "-")]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ");
  return `${[line(header), ...rows.map(line)].join("\n")}\n`;
}
