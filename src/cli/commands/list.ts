import type { Command } from "commander";
import type { ScopedRegistry } from "../../access/types.js";
import { availabilityProblem, toolUnavailableText } from "../availability-text.js";
import type { CommandHost } from "../command-host.js";
import { addCommonOptions, type CommonOptions } from "../common-options.js";
import { EXIT_OK, type ExitCode } from "../exit.js";
import { writeJson, type CliOutput } from "../output.js";
import { oneLineText, withHiddenCharactersShown } from "../../package/display-text.js";
import { isScoped, withRuntime } from "../runtime-context.js";
import { brokenSkillCount, brokenSkillsNote, noSkillsFoundText } from "../search-report.js";
import { compareSkills } from "../../registry/order.js";
import type { ExtensionVisibility } from "../../adapters/skill-entry.js";
import { extensionNote, extensionReport, reportingOnPackages } from "../extension-report.js";
import { auditEntry, auditNote, auditReport, type AuditEntry } from "../audit-report.js";

const DESCRIPTION_WIDTH = 100;

export function registerListCommand(program: Command, { out, run }: CommandHost): void {
  addCommonOptions(
    program.command("list").description("list the skills the scope can see, grouped by origin (hidden and unavailable ones marked)"),
  ).action((options: CommonOptions) => run(() => listCommand(options, out)));
}

export async function listCommand(options: CommonOptions, out: CliOutput): Promise<ExitCode> {
  return reportingOnPackages(() => withRuntime(options, out, async ({ runtime, scope, sources }): Promise<ExitCode> => {
    const registry = runtime.registry(scope);
    const entries = await listEntries(registry);
    // The same diagnostics `doctor` shows this scope, so the count matches what it explains; only
    // errors count, so the reference-dialect warnings (a strict re-read each) are not worked out.
    const broken = brokenSkillCount(runtime.diagnostics(isScoped(scope) ? scope : undefined, { referenceDialect: false }), runtime.snapshot());
    const brokenNote = brokenSkillsNote(broken);
    if (brokenNote) out.log(brokenNote);
    if (options.json) {
      writeJson(out, { count: entries.length, toolAvailable: registry.toolAvailable, broken, skills: entries });
      return EXIT_OK;
    }
    if (!registry.toolAvailable) out.log(`note: ${toolUnavailableText(scope)}, so the model sees none of these`);
    if (entries.length === 0) {
      out.log(noSkillsFoundText(sources));
      return EXIT_OK;
    }
    out.data(withHiddenCharactersShown(renderListText(entries)));
    return EXIT_OK;
  }));
}

export interface ListEntry {
  name: string;
  description: string;
  origin: string;
  label: string;
  dir: string;
  /** false for `disable-model-invocation` skills: shown to people, never to the model. */
  modelInvocable: boolean;
  /** Whether the model's catalog and `{}` listing offer it: invocable, and its requirements met here. */
  offeredToModel: boolean;
  /** false for `user-invocable: false`: no MCP prompt, people do not start it. */
  userInvocable: boolean;
  /** `argument-hint`; null when absent. */
  argumentHint: string | null;
  /** `arguments`: the names of the words typed after the skill's name. */
  arguments: string[];
  /** Takes text after its name (`argument-hint`, `arguments`, or `$ARGUMENTS` in the body). */
  takesArguments: boolean;
  /** `when_to_use`, which the model's catalog shows after the description; null when absent. */
  whenToUse: string | null;
  /** null when usable, else why not. */
  problem: string | null;
  /**
   * What an MCP Skills Extension client gets (`skills/list`): served or not and why, and what
   * its entry leaves out; null when the skill is not usable here (nobody serves it then).
   */
  extension: ExtensionVisibility | null;
  /** What the audit says (SPEC §12); null for a registry that does not audit. */
  audit: AuditEntry | null;
}

async function listEntries(registry: ScopedRegistry): Promise<ListEntry[]> {
  const offered = new Set(registry.list().map((s) => s.name));
  const skills = [...registry.all()].sort(compareSkills);
  // The audit first: a skill it blocks is published by nobody, which the extension's report then knows.
  const audit = await auditReport(registry, skills, { packages: false });
  const extension = await extensionReport(registry, skills);
  return skills.map((skill) => ({
    name: skill.name,
    description: skill.description,
    origin: skill.origin,
    label: skill.label,
    dir: skill.dir,
    modelInvocable: !skill.manifest.disableModelInvocation,
    offeredToModel: offered.has(skill.name),
    userInvocable: skill.manifest.invocation.userInvocable,
    argumentHint: skill.manifest.invocation.argumentHint,
    arguments: [...skill.manifest.invocation.argumentNames],
    takesArguments: skill.manifest.invocation.takesArguments,
    whenToUse: skill.manifest.invocation.whenToUse,
    problem: availabilityProblem(registry.availability(skill.name)),
    extension: extension.get(skill.name) ?? null,
    audit: audit.has(skill.name) ? auditEntry(audit.get(skill.name)!) : null,
  }));
}

function renderListText(entries: ListEntry[]): string {
  const nameWidth = Math.min(32, Math.max(...entries.map((e) => e.name.length)));
  const lines: string[] = [];
  let group = "";
  for (const entry of entries) {
    const heading = entry.label.toLowerCase() === entry.origin ? entry.label : `${entry.label} (${entry.origin})`;
    if (heading !== group) {
      if (group !== "") lines.push("");
      lines.push(heading);
      group = heading;
    }
    const notes = [entry.audit ? auditNote(entry.audit) : null, entry.modelInvocable ? null : "hidden from the model", entry.problem, extensionNote(entry.extension ?? undefined)].filter((n): n is string => n !== null);
    const prefix = notes.length > 0 ? `[${notes.join("; ")}] ` : "";
    lines.push(`  ${entry.name.padEnd(nameWidth)}  ${prefix}${oneLine(entry.description, DESCRIPTION_WIDTH)}`);
  }
  return `${lines.join("\n")}\n`;
}

function oneLine(text: string, width: number): string {
  const flat = oneLineText(text);
  const chars = [...flat];
  return chars.length <= width ? flat : `${chars.slice(0, width - 1).join("")}…`;
}
