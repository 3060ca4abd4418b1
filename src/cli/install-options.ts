/**
 * What the install commands (`add`, `update`, `remove`, `verify`) share: where skills go
 * (`--global`, `--to`), how each skill's outcome is printed (one line each on stdout, reasons
 * indented under a refusal, a count on stderr), `--json`, the exit code (1 when any skill was
 * refused or fails verification), and turning the installer's errors into CLI errors.
 */
import os from "node:os";
import { Option, type Command } from "commander";
import { InstallError } from "../install/install-error.js";
import type { InstallReport, SkillOutcome } from "../install/operations.js";
import { lockedFolders } from "../install/operations.js";
import { AGENT_FOLDERS, installTarget, targetsOfLock, type AgentFolder, type InstallTarget } from "../install/targets.js";
import { oneLineShown, withHiddenCharactersShown } from "../package/display-text.js";
import { CliError, EXIT_FAILURE_FOUND, EXIT_OK, EXIT_USAGE, type ExitCode } from "./exit.js";
import { writeJson, type CliOutput } from "./output.js";

export interface PlaceOptions {
  global?: boolean;
  to?: AgentFolder;
  json?: boolean;
}

export function addPlaceOptions(command: Command): Command {
  return command
    .option("-g, --global", "the user's folder (~/.agents/skills) instead of the project's")
    .addOption(new Option("--to <agent>", "the agent's folder: agents (.agents/skills), claude (.claude/skills), codex (~/.codex/skills)").choices(AGENT_FOLDERS as string[]))
    .option("--json", "print machine-readable JSON on stdout");
}

/** The one folder `add` writes into. */
export function targetOf(options: PlaceOptions): InstallTarget {
  return installTarget({ cwd: process.cwd(), home: os.homedir(), ...(options.global ? { global: true } : {}), ...(options.to ? { to: options.to } : {}) });
}

/**
 * The folders `update`, `remove` and `verify` act on: the one `--global`/`--to` names, or else
 * every folder the project's lockfile records (`.agents/skills` and `.claude/skills` share it),
 * or the project's `.agents/skills` when it records none.
 */
export function targetsOf(options: PlaceOptions): InstallTarget[] {
  const chosen = targetOf(options);
  if (options.global || options.to) return [chosen];
  const folders = lockedFolders(chosen.lockfile);
  return folders.length > 0 ? targetsOfLock(chosen.lockfile, folders, chosen.within, chosen.hosts) : [chosen];
}

/** Runs installer work, turning its errors into the CLI's: usage → 2, a failed fetch → 1. */
export async function installerCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof InstallError) throw new CliError(error.message, error.kind === "usage" ? EXIT_USAGE : EXIT_FAILURE_FOUND);
    throw error;
  }
}

const FAILED: ReadonlySet<SkillOutcome["status"]> = new Set(["refused", "modified", "missing"]);

/** Prints the outcomes and returns the exit code. */
export function reportOutcomes(reports: readonly InstallReport[], options: PlaceOptions, out: CliOutput): ExitCode {
  const skills = reports.flatMap((report) => report.skills);
  if (options.json) {
    writeJson(out, { lockfile: reports[0]?.lockfile ?? null, skills });
  } else {
    const width = Math.max(0, ...skills.map((s) => s.status.length));
    const several = new Set(skills.map((s) => s.folder)).size > 1;
    for (const skill of skills) {
      out.data(`${skill.status.padEnd(width)}  ${oneLineShown(skill.name)}${several ? ` (${oneLineShown(skill.folder)})` : ""}${detailOf(skill)}\n`);
      for (const message of skill.messages) out.data(`    ${withHiddenCharactersShown(message.replace(/\r\n|[\n\r\u2028\u2029]/g, "\n    "))}\n`);
    }
    const counts = new Map<string, number>();
    for (const skill of skills) counts.set(skill.status, (counts.get(skill.status) ?? 0) + 1);
    out.log(skills.length === 0 ? "no skills" : [...counts].map(([status, n]) => `${n} ${status}`).join(", "));
  }
  return skills.some((s) => FAILED.has(s.status)) ? EXIT_FAILURE_FOUND : EXIT_OK;
}

function detailOf(skill: SkillOutcome): string {
  const short = (commit: string | null | undefined): string | null => (commit ? commit.slice(0, 12) : null);
  if (skill.status === "updated" && skill.previousCommit !== undefined && short(skill.previousCommit) !== short(skill.commit)) {
    return `  ${short(skill.previousCommit) ?? "local"} -> ${short(skill.commit) ?? "local"}`;
  }
  if (skill.status === "installed" || skill.status === "updated" || skill.status === "unchanged") {
    const at = short(skill.commit);
    return `  ${skill.path ? `${oneLineShown(skill.path)} ` : ""}${at ? `@ ${at}` : ""}`.trimEnd();
  }
  return "";
}

/**
 * While skills are fetched and copied, SIGINT and SIGTERM end the process through `exit`, so
 * the handlers that remove temporary folders run (a plain signal death skips them).
 */
export function exitCleanlyOnSignals(): void {
  process.once("SIGINT", () => process.exit(130));
  process.once("SIGTERM", () => process.exit(143));
}

/**
 * A name asked for is looked up in every folder of the project's lockfile; it is "not installed"
 * only when no folder had it, and then it is said once.
 */
export function withoutDuplicateMisses(reports: readonly InstallReport[], names: readonly string[]): InstallReport[] {
  if (reports.length < 2 || names.length === 0) return [...reports];
  const handled = new Set(reports.flatMap((r) => r.skills.filter((s) => !s.notInstalled).map((s) => s.name)));
  const reported = new Set<string>();
  return reports.map((report) => ({
    ...report,
    skills: report.skills.filter((s) => {
      if (!s.notInstalled) return true;
      if (handled.has(s.name) || reported.has(s.name)) return false;
      reported.add(s.name);
      return true;
    }),
  }));
}
