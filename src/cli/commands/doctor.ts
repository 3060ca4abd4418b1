import path from "node:path";
import type { Command } from "commander";
import type { ScopedRegistry } from "../../access/types.js";
import { diagnostic, type Diagnostic } from "../../package/diagnostic.js";
import type { CommandHost } from "../command-host.js";
import { addCommonOptions, type CommonOptions } from "../common-options.js";
import { EXIT_FAILURE_FOUND, EXIT_OK, type ExitCode } from "../exit.js";
import { writeJson, type CliOutput } from "../output.js";
import { oneLineShown, withHiddenCharactersShown } from "../../package/display-text.js";
import { isScoped, withRuntime } from "../runtime-context.js";
import { compareSkills } from "../../registry/order.js";

export function registerDoctorCommand(program: Command, { out, run }: CommandHost): void {
  addCommonOptions(
    program
      .command("doctor")
      .description("report every problem found while loading skills: invalid skills, shadowed names, warnings, unmet requirements"),
  ).action((options: CommonOptions) => run(() => doctorCommand(options, out)));
}

export async function doctorCommand(options: CommonOptions, out: CliOutput): Promise<ExitCode> {
  return withRuntime(options, out, async ({ runtime, scope, cwd }): Promise<ExitCode> => {
    const registry = runtime.registry(scope);
    // A person acting as an agent or project sees what that scope sees, and no other's errors.
    const diagnostics = [...runtime.diagnostics(isScoped(scope) ? scope : undefined), ...requirementDiagnostics(registry)];
    const errors = diagnostics.filter((d) => d.severity === "error").length;
    const warnings = diagnostics.length - errors;
    const skills = registry.all().length;
    if (options.json) {
      writeJson(out, { skills, errors, warnings, diagnostics, registryDigest: await runtime.registryDigest() });
    } else {
      out.data(withHiddenCharactersShown(renderReport(diagnostics, cwd)));
      out.data(`${skills} skill${skills === 1 ? "" : "s"} loaded; ${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}\n`);
    }
    return errors > 0 ? EXIT_FAILURE_FOUND : EXIT_OK;
  });
}

/**
 * Unmet requirements are not load problems (the skill is fine, this machine is missing
 * something), so they come out as warnings; malformed requirements are the author's error.
 */
function requirementDiagnostics(registry: ScopedRegistry): Diagnostic[] {
  const found: Diagnostic[] = [];
  for (const skill of [...registry.all()].sort(compareSkills)) {
    const availability = registry.availability(skill.name);
    if (availability?.status === "unavailable") {
      found.push(diagnostic(skill.dir, "warning", "requirements_unmet", `skill '${skill.name}' is unavailable here: missing ${availability.missing.join(", ")}`));
    } else if (availability?.status === "invalid") {
      found.push(diagnostic(skill.skillFile, "error", "skill_unusable", `skill '${skill.name}' cannot be activated until its metadata.requirements is fixed: ${availability.message}`));
    }
  }
  return found;
}

function renderReport(diagnostics: Diagnostic[], cwd: string): string {
  const lines: string[] = [];
  for (const d of diagnostics) {
    lines.push(`${d.severity === "error" ? "error  " : "warning"} ${oneLineShown(shortPath(d.path, cwd))} [${d.code}]`);
    lines.push(`        ${d.message.replace(/\r\n|[\n\r\u2028\u2029]/g, "\n        ")}`);
  }
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}

// Paths under the working directory read better relative; anything else stays absolute so it is unambiguous.
function shortPath(p: string, cwd: string): string {
  const relative = path.relative(cwd, p);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : p;
}
