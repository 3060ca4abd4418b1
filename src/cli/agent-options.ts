/**
 * `add --agent ID` (repeatable, `'*'` for every host detected) and `--copy` (SPEC §10.1), and the
 * host table `skillport add --help` prints after the options: each id with its project and
 * global folder, from hosts.ts (the `skills` CLI's table).
 */
import type { Command } from "commander";
import { CANONICAL_FOLDER, HOSTS, isUniversalHost } from "../install/hosts.js";

export interface AgentOptions {
  agent?: string[];
  copy?: boolean;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function addAgentOptions(command: Command): Command {
  return command
    .option("-a, --agent <id>", "install for this host (repeatable; '*' for every host found on this machine): once into .agents/skills, its folder linked to it; ids below", collect)
    .option("--copy", "with --agent: copy into each host's folder instead of linking")
    .addHelpText("after", hostTableText);
}

/** The table as help text: id, project folder, global folder (`-` for a project-only host). */
export function hostTableText(): string {
  const rows = HOSTS.filter((host) => !host.hidden).map((host) => [
    host.id,
    host.project,
    host.global === null ? "- (project only)" : isUniversalHost(host) ? `~/${CANONICAL_FOLDER}` : typeof host.global === "string" ? host.global : host.global.join(" | "),
  ]);
  const widths = [0, 1].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = rows.map(([id, project, global]) => `  ${id!.padEnd(widths[0]!)}  ${project!.padEnd(widths[1]!)}  ${global}`);
  return [
    "",
    `Hosts for --agent (the skills CLI's table; a host reading ${CANONICAL_FOLDER} gets no link):`,
    `  ${"id".padEnd(widths[0]!)}  ${"project".padEnd(widths[1]!)}  global (--global)`,
    ...lines,
    "",
  ].join("\n");
}
