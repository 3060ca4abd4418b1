/**
 * `skillport audit [PATH…|SOURCE] [--json]` (SPEC §12): judges every folder holding a SKILL.md,
 * valid or not. A PATH that is a skill is judged itself; a folder of skills is searched as
 * `--root` is. An argument that is no existing path is a SOURCE as `add` takes it: fetched into
 * a temporary folder, judged there, nothing installed. Without arguments, the configured
 * sources (or the default folders) are judged. Exit 0 when nothing blocks, 1 when something
 * does, 2 on usage.
 */
import * as fs from "node:fs";
import os from "node:os";
import * as path from "node:path";
import type { Command } from "commander";
import { auditPackage, confusableFindings, RULES_VERSION, verdictOf, type Finding, type Verdict } from "../../audit/index.js";
import { findingExcerpt, findingLine } from "../../audit/finding-text.js";
import { InstallError } from "../../install/install-error.js";
import { withSourceFiles } from "../../install/operations.js";
import { oneLineShown, oneLineText } from "../../package/display-text.js";
import { loadSkillSync } from "../../package/load.js";
import { SKILL_FILE_NAMES } from "../../package/package-shape.js";
import { DEFAULT_MAX_DIRECTORIES, discoverSource, statSkillFile } from "../../registry/discover.js";
import { defaultSources } from "../../registry/sources.js";
import { TimeSlicer } from "../../registry/time-slice.js";
import type { CommandHost } from "../command-host.js";
import { CliError, EXIT_FAILURE_FOUND, EXIT_OK, EXIT_USAGE, type ExitCode } from "../exit.js";
import { writeJson, type CliOutput } from "../output.js";
import { readConfig } from "../runtime-context.js";

export interface AuditOptions {
  json?: boolean;
  config?: string;
}

export interface AuditedSkill {
  name: string;
  path: string;
  verdict: Verdict;
  findings: Finding[];
  /** Which argument or source it came from: look-alike names are looked for across them. */
  group: number;
}

export function registerAuditCommand(program: Command, { out, run }: CommandHost): void {
  program
    .command("audit")
    .description("judge skills before they are installed or served: invisible instructions, decode-and-run, droppers, executables (offline, deterministic)")
    .argument("[targets...]", "skill folders or folders of skills; or one SOURCE as `add` takes it (fetched, judged, nothing installed); default the configured sources")
    .option("--config <file>", "config file whose sources are judged when no PATH is given")
    .option("--json", "print machine-readable JSON on stdout")
    .action((targets: string[], options: AuditOptions) => run(() => auditCommand(targets, options, out)));
}

export async function auditCommand(targets: string[], options: AuditOptions, out: CliOutput): Promise<ExitCode> {
  const cwd = process.cwd();
  const skills: AuditedSkill[] = [];
  if (targets.length === 0) {
    const config = readConfig({ ...(options.config ? { config: options.config } : {}) }, cwd, out);
    const sources = config?.sources ?? defaultSources(cwd, os.homedir());
    for (const [i, source] of sources.entries()) if (fs.existsSync(source.path)) skills.push(...(await auditFolder(source.path, source.path, i)));
  } else if (targets.length === 1 && !fs.existsSync(targets[0]!) && !looksLikePath(targets[0]!)) {
    skills.push(...(await auditSource(targets[0]!, out)));
  } else {
    for (const [i, target] of targets.entries()) {
      if (!fs.existsSync(target)) throw new CliError(`${target}: no such file or folder (a SOURCE to fetch is given alone)`, EXIT_USAGE);
      const found = await auditFolder(target, target, i);
      if (found.length === 0) throw new CliError(`${target}: holds no SKILL.md`, EXIT_USAGE);
      skills.push(...found);
    }
  }
  withConfusableNames(skills);
  if (options.json) writeJson(out, { rulesVersion: RULES_VERSION, skills: skills.map(({ name, path: p, verdict, findings }) => ({ name, path: p, verdict, findings })) });
  else printText(skills, out);
  return skills.some((s) => s.verdict === "block") ? EXIT_FAILURE_FOUND : EXIT_OK;
}

function looksLikePath(target: string): boolean {
  return target.startsWith(".") || target.startsWith("/") || target.startsWith("~") || /^[A-Za-z]:[\\/]/.test(target);
}

async function auditSource(source: string, out: CliOutput): Promise<AuditedSkill[]> {
  try {
    return await withSourceFiles(source, { cwd: process.cwd(), home: os.homedir(), onProgress: (line) => out.log(oneLineText(line)) }, async (root, inside) => {
      const start = inside === "" ? root : path.join(root, ...inside.split("/"));
      const found = await auditFolder(start, "", 0);
      // Paths inside a fetched tree are named as the source holds them, not by the temporary folder.
      return found.map((s) => ({ ...s, path: [inside, s.path].filter((p) => p !== "" && p !== ".").join("/") || "." }));
    });
  } catch (error) {
    if (error instanceof InstallError) throw new CliError(error.message, error.kind === "usage" ? EXIT_USAGE : EXIT_FAILURE_FOUND);
    throw error;
  }
}

/** Every skill at or under `folder`, judged; paths shown joined to `shownAs`. */
async function auditFolder(folder: string, shownAs: string, group: number): Promise<AuditedSkill[]> {
  const stat = fs.statSync(folder);
  const dir = stat.isFile() && SKILL_FILE_NAMES.includes(path.basename(folder)) ? path.dirname(folder) : folder;
  const shown = dir === folder ? shownAs : path.dirname(shownAs);
  let dirs: string[];
  if (SKILL_FILE_NAMES.some((name) => isFile(path.join(dir, name)))) {
    dirs = [fs.realpathSync.native(dir)];
  } else {
    // Searched as `--root` is: nested categories and skills, links followed only inside the folder.
    const found = await discoverSource(dir, new TimeSlicer(), statSkillFile, { maxDirectories: DEFAULT_MAX_DIRECTORIES, followExternalLinks: false, privateRoots: [] });
    dirs = found.found.map((f) => f.dir);
  }
  const real = fs.realpathSync.native(dir);
  const out: AuditedSkill[] = [];
  for (const skillDir of dirs) {
    const findings = await auditPackage(skillDir);
    const loaded = loadSkillSync(skillDir).skill;
    const rel = path.relative(real, skillDir).split(path.sep).join("/");
    out.push({ name: loaded?.name ?? path.basename(skillDir), path: [shown, rel].filter((p) => p !== "").join("/") || ".", verdict: verdictOf(findings), findings, group });
  }
  return out;
}

/**
 * A name that looks like a skill's of another argument or source is warned on both. Within one
 * source the names are one author's (`nunit`/`xunit`, a product and its API): a look-alike is a
 * danger where it can pass for someone else's skill.
 */
function withConfusableNames(skills: AuditedSkill[]): void {
  for (const skill of skills) {
    const found = confusableFindings(skill.name, skills.filter((s) => s.group !== skill.group).map((s) => s.name));
    if (found.length === 0) continue;
    skill.findings.push(...found);
    skill.verdict = verdictOf(skill.findings);
  }
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function printText(skills: readonly AuditedSkill[], out: CliOutput): void {
  for (const skill of skills) {
    out.data(`${skill.verdict.padEnd(5)}  ${oneLineShown(skill.name)}  (${oneLineShown(skill.path)})\n`);
    for (const f of skill.findings) {
      out.data(`    ${findingLine(f)}\n`);
      const excerpt = findingExcerpt(f);
      if (excerpt) out.data(`        > ${excerpt}\n`);
    }
  }
  const count = (v: Verdict): number => skills.filter((s) => s.verdict === v).length;
  out.log(`${skills.length} skill${skills.length === 1 ? "" : "s"} audited (rules ${RULES_VERSION}): ${count("block")} blocked, ${count("warn")} warned, ${count("pass")} passed`);
}
