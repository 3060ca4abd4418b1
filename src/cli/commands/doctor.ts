import os from "node:os";
import path from "node:path";
import type { Command } from "commander";
import type { ScopedRegistry } from "../../access/types.js";
import { diagnostic, type Diagnostic } from "../../package/diagnostic.js";
import type { CommandHost } from "../command-host.js";
import { addCommonOptions, type CommonOptions } from "../common-options.js";
import { CliError, EXIT_FAILURE_FOUND, EXIT_OK, EXIT_USAGE, type ExitCode } from "../exit.js";
import { recentReplicas, replicasByDigest, REPLICA_SEEN_WITHIN_MS, type ReplicaBeat } from "../../session/replicas.js";
import { writeJson, type CliOutput } from "../output.js";
import { oneLineShown, withHiddenCharactersShown } from "../../package/display-text.js";
import { isScoped, withRuntime } from "../runtime-context.js";
import { extensionReport, reportingOnPackages } from "../extension-report.js";
import { compareSkills } from "../../registry/order.js";
import { installedSkillDiagnostics } from "../installed-check.js";
import { auditDiagnostics, auditReport } from "../audit-report.js";

export interface DoctorOptions extends CommonOptions {
  store?: string;
}

export function registerDoctorCommand(program: Command, { out, run }: CommandHost): void {
  addCommonOptions(
    program
      .command("doctor")
      .description("report every problem found while loading skills: invalid skills, shadowed names, warnings, unmet requirements")
      .option("--store <store>", "also report the replicas serving this session store (postgres://…) and whether they serve different skills"),
  ).action((options: DoctorOptions) => run(() => doctorCommand(options, out)));
}

export async function doctorCommand(options: DoctorOptions, out: CliOutput): Promise<ExitCode> {
  // Read before the skills: a store that cannot be opened is a usage error, and says so first.
  const beats = options.store === undefined ? null : await recentBeats(options.store, process.cwd());
  return reportingOnPackages(() => withRuntime(options, out, async ({ runtime, scope, cwd }): Promise<ExitCode> => {
    const registry = runtime.registry(scope);
    const registryDigest = await runtime.registryDigest();
    const replicas = beats === null ? null : replicaReport(beats, storeShown(options.store!), registryDigest);
    // A person acting as an agent or project sees what that scope sees, and no other's errors.
    // Installed skills belong to the default folders; a run given its own roots or a bundle is about those alone.
    const installed = options.root?.length || options.bundle !== undefined ? [] : await installedSkillDiagnostics(cwd, os.homedir());
    const diagnostics = [
      ...runtime.diagnostics(isScoped(scope) ? scope : undefined),
      ...requirementDiagnostics(registry),
      ...(await skillAuditDiagnostics(registry)),
      ...(await extensionDiagnostics(registry)),
      ...installed,
      ...(replicas?.diagnostics ?? []),
    ];
    const errors = diagnostics.filter((d) => d.severity === "error").length;
    const warnings = diagnostics.length - errors;
    const skills = registry.all().length;
    if (options.json) {
      writeJson(out, {
        skills,
        errors,
        warnings,
        diagnostics,
        registryDigest,
        ...(replicas ? { replicas: replicas.json } : {}),
      });
    } else {
      out.data(withHiddenCharactersShown(renderReport(diagnostics, cwd)));
      if (replicas) out.data(withHiddenCharactersShown(replicas.text));
      out.data(`${skills} skill${skills === 1 ? "" : "s"} loaded; ${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}\n`);
    }
    return errors > 0 ? EXIT_FAILURE_FOUND : EXIT_OK;
  }));
}

/** The replicas heard from recently on a store; a store that cannot be opened is a usage error. */
async function recentBeats(spec: string, cwd: string): Promise<ReplicaBeat[]> {
  const { openSessionStore } = await import("../../session/open-store.js");
  let store;
  try {
    store = await openSessionStore(spec, cwd);
  } catch (error) {
    throw new CliError(`--store: ${(error as Error).message}`, EXIT_USAGE);
  }
  try {
    return await recentReplicas(store);
  } finally {
    await store.close();
  }
}

/**
 * The replicas heard from recently on a shared store, grouped by the digest each serves, beside
 * this machine's own digest. More than one digest among the replicas is an error: one
 * conversation may be answered from different skills depending on which replica a request
 * reaches. None heard from is a warning (nothing serves this store, or its replicas predate
 * heartbeats). This machine serving another digest than every replica is a warning, not an
 * error: an operator's checkout may differ from the deploy on purpose, but one checking the
 * bundle it is about to roll out wants to know.
 */
function replicaReport(beats: readonly ReplicaBeat[], where: string, ownDigest: string): { diagnostics: Diagnostic[]; json: unknown; text: string } {
  const groups = replicasByDigest(beats);
  const within = `${REPLICA_SEEN_WITHIN_MS / 60_000} minutes`;
  const diagnostics: Diagnostic[] = [];
  if (groups.length === 0) {
    diagnostics.push(diagnostic(where, "warning", "replicas_unseen", `no replica of this store was heard from in the last ${within}`));
  } else if (groups.length > 1) {
    const described = groups.map((group) => `${group.registryDigest} (${group.replicas.length} replica${group.replicas.length === 1 ? "" : "s"}: ${group.replicas.join(", ")})`);
    diagnostics.push(diagnostic(where, "error", "replicas_diverge", `replicas of this store serve different skills: ${described.join("; ")}`));
  }
  const matches = groups.some((group) => group.registryDigest === ownDigest);
  if (groups.length > 0 && !matches) {
    diagnostics.push(
      diagnostic(where, "warning", "replica_digest_differs", `this machine's skills (${ownDigest}) are not what any replica of this store serves (${groups.map((g) => g.registryDigest).join(", ")})`),
    );
  }
  const json = {
    store: where,
    seenWithinMs: REPLICA_SEEN_WITHIN_MS,
    thisMachine: { registryDigest: ownDigest, servedByAReplica: matches },
    digests: groups.map((group) => ({ registryDigest: group.registryDigest, replicas: beats.filter((beat) => beat.registryDigest === group.registryDigest) })),
  };
  const lines = [`replicas of ${where} heard from in the last ${within}:${groups.length === 0 ? " none" : ""}`];
  for (const group of groups) {
    lines.push(`  ${group.registryDigest}${group.registryDigest === ownDigest ? " (this machine's digest)" : ""}: ${group.replicas.join(", ")}`);
  }
  lines.push(`this machine: ${ownDigest}${groups.length === 0 ? "" : matches ? " (a replica serves the same)" : " (no replica serves it)"}`);
  return { diagnostics, json, text: `${lines.join("\n")}\n` };
}

/** A store as it may be shown: a URL without its password. */
function storeShown(spec: string): string {
  try {
    const url = new URL(spec);
    if (url.password !== "") url.password = "";
    return url.protocol === "postgres:" || url.protocol === "postgresql:" ? url.toString() : spec;
  } catch {
    return spec;
  }
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

/** What the audit says of each skill (SPEC §12): a blocked one is an error, since nothing serves it. */
async function skillAuditDiagnostics(registry: ScopedRegistry): Promise<Diagnostic[]> {
  const skills = [...registry.all()].sort(compareSkills);
  const report = await auditReport(registry, skills, { packages: true });
  return skills.flatMap((skill) => {
    const state = report.get(skill.name);
    return state ? auditDiagnostics(skill, state) : [];
  });
}

/**
 * Skills that MCP Skills Extension clients will not see, or see with metadata left out: warnings,
 * since the tool and the prompts still serve them, but a client that loads skills only through
 * the extension (and the server hiding the tool from it) would never know they exist.
 */
async function extensionDiagnostics(registry: ScopedRegistry): Promise<Diagnostic[]> {
  const skills = [...registry.all()].sort(compareSkills);
  const report = await extensionReport(registry, skills);
  const found: Diagnostic[] = [];
  for (const skill of skills) {
    const visibility = report.get(skill.name);
    if (visibility && !visibility.served) {
      found.push(
        diagnostic(skill.skillFile, "warning", "extension_unserved", `skill '${skill.name}' is not served to MCP Skills Extension clients (the tool and prompts still serve it): ${visibility.reason}`),
      );
    } else if (visibility && visibility.leftOut.length > 0) {
      found.push(
        diagnostic(
          skill.skillFile,
          "warning",
          "extension_metadata_left_out",
          `skill '${skill.name}' is served to MCP Skills Extension clients without ${visibility.leftOut.join(", ")}: the extension carries only text in metadata`,
        ),
      );
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
