import path from "node:path";
import type { Command } from "commander";
import type { Availability } from "../../access/types.js";
import type { Diagnostic } from "../../package/diagnostic.js";
import { oneLineShown, withHiddenCharactersShown } from "../../package/display-text.js";
import { setOwnProperty } from "../../package/own-property.js";
import { listResources, type ResourceListing } from "../../package/resources.js";
import type { RegisteredSkill } from "../../registry/types.js";
import { availabilityProblem } from "../availability-text.js";
import type { CommandHost } from "../command-host.js";
import { addCommonOptions, type CommonOptions } from "../common-options.js";
import { EXIT_OK, type ExitCode } from "../exit.js";
import { writeJson, type CliOutput } from "../output.js";
import { requirementsText } from "../requirement-text.js";
import { isScoped, withRuntime } from "../runtime-context.js";
import { skillNotFound } from "../skill-not-found.js";
import { withReferenceChecks } from "../../package/reference-check.js";

export function registerShowCommand(program: Command, { out, run }: CommandHost): void {
  addCommonOptions(
    program
      .command("show")
      .description("show one skill: its frontmatter fields, diagnostics and resource files")
      .argument("<name>", "skill name"),
  ).action((name: string, options: CommonOptions) => run(() => showCommand(name, options, out)));
}

export interface SkillDetails {
  name: string;
  description: string;
  origin: string;
  label: string;
  dir: string;
  skillFile: string;
  modelInvocable: boolean;
  /** false for `user-invocable: false`: not offered to people as an MCP prompt. */
  userInvocable: boolean;
  /** Takes text after its name (`argument-hint`, `arguments`, or `$ARGUMENTS` in the body): its prompt has arguments. */
  takesArguments: boolean;
  frontmatter: Record<string, unknown>;
  /** The parsed `metadata.requirements` tree as one expression; null when none declared. */
  requirements: string | null;
  availability: Availability | null;
  diagnostics: Diagnostic[];
  resources: ResourceListing;
}

export async function showCommand(name: string, options: CommonOptions, out: CliOutput): Promise<ExitCode> {
  return withRuntime(options, out, async ({ runtime, scope }): Promise<ExitCode> => {
    const registry = runtime.registry(scope);
    const skill = registry.all().find((s) => s.name === name);
    // A person acting as an agent or project sees what that scope sees, and no other's errors.
    const all = runtime.diagnostics(isScoped(scope) ? scope : undefined);
    if (!skill) throw skillNotFound(name, registry.all().map((s) => s.name), all);
    const details: SkillDetails = {
      name: skill.name,
      description: skill.description,
      origin: skill.origin,
      label: skill.label,
      dir: skill.dir,
      skillFile: skill.skillFile,
      modelInvocable: registry.get(skill.name) !== undefined,
      userInvocable: skill.manifest.invocation.userInvocable,
      takesArguments: skill.manifest.invocation.takesArguments,
      frontmatter: frontmatterOf(skill),
      requirements: skill.manifest.requirements ? requirementsText(skill.manifest.requirements) : null,
      availability: registry.availability(skill.name) ?? null,
      diagnostics: diagnosticsAbout(skill, all),
      resources: await listResources(skill.dir, { sourceRoots: runtime.snapshot().sourceRoots }),
    };
    if (options.json) writeJson(out, details);
    else out.data(withHiddenCharactersShown(renderDetails(details)));
    return EXIT_OK;
  });
}

/** The fields as the author wrote them (standard key names), leaving out what was not set. */
function frontmatterOf(skill: RegisteredSkill): Record<string, unknown> {
  const m = skill.manifest;
  const fields: Record<string, unknown> = { name: m.name, description: m.description };
  if (m.license !== undefined) fields.license = m.license;
  if (m.compatibility !== undefined) fields.compatibility = m.compatibility;
  if (Object.keys(m.metadata).length > 0) fields.metadata = m.metadata;
  if (m.allowedTools !== null) fields["allowed-tools"] = m.allowedTools;
  if (m.tools !== null) fields.tools = m.tools;
  if (m.disableModelInvocation) fields["disable-model-invocation"] = true;
  const invocation = m.invocation;
  if (invocation.argumentHint !== null) fields["argument-hint"] = invocation.argumentHint;
  if (invocation.argumentNames.length > 0) fields.arguments = [...invocation.argumentNames];
  if (!invocation.userInvocable) fields["user-invocable"] = false;
  if (invocation.whenToUse !== null) fields.when_to_use = invocation.whenToUse;
  for (const [key, value] of Object.entries(m.extra)) setOwnProperty(fields, key, value);
  return fields;
}

/** The skill's own load warnings plus every registry diagnostic about its directory (e.g. a copy it shadows). */
function diagnosticsAbout(skill: RegisteredSkill, all: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  const result: Diagnostic[] = [];
  const inside = (p: string): boolean => p === skill.dir || p.startsWith(skill.dir + path.sep);
  for (const d of [...withReferenceChecks(skill.diagnostics), ...all.filter((d) => inside(d.path) || (d.code === "shadowed" && d.message.includes(skill.dir)))]) {
    const key = `${d.path}\0${d.code}\0${d.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      result.push(d);
    }
  }
  return result;
}

function renderDetails(d: SkillDetails): string {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(d.frontmatter)) lines.push(`${key}: ${fieldText(value)}`);
  lines.push("");
  lines.push(`origin: ${d.label.toLowerCase() === d.origin ? d.origin : `${d.origin} (${d.label})`}`);
  lines.push(`directory: ${oneLineShown(d.dir)}`);
  lines.push(`file: ${oneLineShown(d.skillFile)}`);
  if (!d.modelInvocable) lines.push("model: hidden (disable-model-invocation, or not allowed in this scope)");
  lines.push(`prompt: ${!d.userInvocable ? "none (user-invocable: false)" : d.takesArguments ? "takes text after the name (prompt arguments)" : "takes no arguments"}`);
  if (d.requirements) lines.push(`requirements: ${d.requirements}`);
  lines.push(`availability: ${availabilityProblem(d.availability ?? undefined) ?? "available"}`);
  if (d.availability && d.availability.status !== "invalid" && d.availability.optionalMissing.length > 0) {
    lines.push(`optional, missing: ${d.availability.optionalMissing.join(", ")}`);
  }
  lines.push("");
  lines.push(d.diagnostics.length === 0 ? "diagnostics: none" : "diagnostics:");
  for (const diag of d.diagnostics) lines.push(`  ${diag.severity} ${diag.code}: ${diag.message.replace(/\r\n|[\n\r\u2028\u2029]/g, "\n    ")}`);
  lines.push("");
  const r = d.resources;
  lines.push(r.scripts.length + r.files.length === 0 && !r.truncated ? "resources: none" : "resources:");
  for (const file of [...r.scripts, ...r.files]) lines.push(`  ${oneLineShown(file)}`);
  if (r.truncated) lines.push("  (listing cut short: too many files or directories, or nested too deep)");
  return `${lines.join("\n")}\n`;
}

function fieldText(value: unknown): string {
  if (typeof value === "string") return value.includes("\n") ? `|\n${value.replace(/^/gm, "  ")}` : value;
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value.join(", ");
  return JSON.stringify(value);
}
