import fs from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { oneLineShown, withHiddenCharactersShown } from "../../package/display-text.js";
import { validateSkill } from "../../package/validate.js";
import type { CommandHost } from "../command-host.js";
import { EXIT_FAILURE_FOUND, EXIT_OK, EXIT_USAGE, type ExitCode } from "../exit.js";
import { writeJson, type CliOutput } from "../output.js";

export interface ValidateOptions {
  json?: boolean;
}

/** One argument's outcome. `pathError` set means the argument named no skill at all (exit 2). */
export interface ValidationResult {
  path: string;
  valid: boolean;
  errors: string[];
  pathError?: string;
}

export function registerValidateCommand(program: Command, { out, run }: CommandHost): void {
  program
    .command("validate")
    .description("check skills strictly against the Agent Skills standard (the skills-ref checks and messages)")
    .argument("<path...>", "a skill directory, or its SKILL.md file")
    .option("--json", "print machine-readable JSON on stdout")
    .action((paths: string[], options: ValidateOptions) => run(() => validateCommand(paths, options, out)));
}

export async function validateCommand(paths: string[], options: ValidateOptions, out: CliOutput): Promise<ExitCode> {
  const results: ValidationResult[] = [];
  for (const given of paths) results.push(await validateOne(given));
  if (options.json) {
    writeJson(out, { valid: results.every((r) => r.valid), results });
  } else {
    for (const result of results) printResult(result, out);
  }
  if (results.some((r) => r.pathError)) return EXIT_USAGE;
  return results.every((r) => r.valid) ? EXIT_OK : EXIT_FAILURE_FOUND;
}

async function validateOne(given: string): Promise<ValidationResult> {
  const target = skillDirectoryOf(given);
  if ("pathError" in target) return { path: displayPath(given), valid: false, errors: [], pathError: target.pathError };
  const errors = await validateSkill(target.dir);
  return { path: target.display, valid: errors.length === 0, errors };
}

/** A directory is the skill; a SKILL.md (any case, as skills-ref accepts) means its directory. */
function skillDirectoryOf(given: string): { dir: string; display: string } | { pathError: string } {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(given);
  } catch {
    return { pathError: `Path does not exist: ${given}` };
  }
  if (stat.isDirectory()) return { dir: given, display: displayPath(given) };
  if (stat.isFile() && path.basename(given).toLowerCase() === "skill.md") {
    const dir = path.dirname(given);
    return { dir, display: displayPath(dir) };
  }
  return { pathError: `Not a skill directory or SKILL.md file: ${given} (pass the directory that holds SKILL.md)` };
}

// skills-ref prints the path the way Python's pathlib shows it: no trailing separator.
function displayPath(given: string): string {
  const trimmed = given.replace(/[\\/]+$/, "");
  return trimmed === "" ? given : trimmed;
}

function printResult(result: ValidationResult, out: CliOutput): void {
  // A path or name written to redraw the terminal or to add lines is shown as escapes, not obeyed.
  if (result.pathError) {
    out.log(oneLineShown(result.pathError));
  } else if (result.valid) {
    out.data(`Valid skill: ${oneLineShown(result.path)}\n`);
  } else {
    // A message keeps its own line breaks (the reference's text), its later lines indented under it.
    const items = result.errors.map((e) => `  - ${withHiddenCharactersShown(e).replace(/\r\n|[\n\r\u2028\u2029]/g, "\n    ")}\n`);
    out.data(`Validation failed for ${oneLineShown(result.path)}:\n${items.join("")}`);
  }
}
