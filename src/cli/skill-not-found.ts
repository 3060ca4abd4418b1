import path from "node:path";
import type { Diagnostic } from "../package/diagnostic.js";
import { isShellSafeName } from "../package/naming.js";
import { closeNames } from "../tool/suggest.js";
import { CliError, EXIT_FAILURE_FOUND } from "./exit.js";

/**
 * "No such skill" as a person at a terminal reads it: the tool's own message tells a model to
 * call the tool, which means nothing here, so commands say what to run instead. A skill that
 * failed to load is "not found" to the registry, but the person needs the reason.
 */
export function skillNotFound(name: string, known: readonly string[], diagnostics: readonly Diagnostic[]): CliError {
  const broken = diagnostics.filter((d) => d.severity === "error" && pathNamesSkill(d.path, name));
  if (broken.length > 0) {
    const reasons = broken.map((d) => `${d.path}: ${d.message}`).join("; ");
    return new CliError(`skill '${name}' could not be loaded: ${reasons}`, EXIT_FAILURE_FOUND);
  }
  // The person (or agent) reading this runs what it suggests in a shell: only names that are one
  // plain shell word are suggested (naming.ts), never one that is code or an option there.
  const close = closeNames(name, known.filter(isShellSafeName));
  const hint = close.length > 0 ? ` Did you mean: ${close.join(", ")}?` : " Run `skillport list` to see the available names.";
  return new CliError(`skill '${name}' not found.${hint}`, EXIT_FAILURE_FOUND);
}

function pathNamesSkill(p: string, name: string): boolean {
  const base = path.basename(p);
  return base === name || (/^skill\.md$/i.test(base) && path.basename(path.dirname(p)) === name);
}
