import fs from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { oneLineShown } from "../../package/display-text.js";
import { referenceSkillFile, validateSkillSync } from "../../package/validate.js";
import { discoverSource, isInside } from "../../registry/discover.js";
import { TimeSlicer } from "../../registry/time-slice.js";
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
    .argument("<path...>", "a skill directory, its SKILL.md file, or a folder of skills (each is checked)")
    .option("--json", "print machine-readable JSON on stdout")
    .action((paths: string[], options: ValidateOptions) => run(() => validateCommand(paths, options, out)));
}

export async function validateCommand(paths: string[], options: ValidateOptions, out: CliOutput): Promise<ExitCode> {
  const results: ValidationResult[] = [];
  for (const given of paths) results.push(...(await validateGiven(given)));
  if (options.json) {
    writeJson(out, { valid: results.every((r) => r.valid), results });
  } else {
    for (const result of results) printResult(result, out);
  }
  if (results.some((r) => r.pathError)) return EXIT_USAGE;
  return results.every((r) => r.valid) ? EXIT_OK : EXIT_FAILURE_FOUND;
}

/**
 * One argument's results: one per skill. A folder that is no skill itself but holds skills
 * stands for each skill discovery finds in it (SPEC §1), nested folders included, as a source
 * given to `list --root` would serve them (the reference would only say `Missing required
 * file: SKILL.md`).
 */
export async function validateGiven(given: string): Promise<ValidationResult[]> {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(given);
  } catch {
    return [{ path: pythonPath(given), valid: false, errors: [], pathError: `Path does not exist: ${given}` }];
  }
  if (stat.isFile() && path.basename(given).toLowerCase() === "skill.md") return [validateOne(pythonPath(path.dirname(given)))];
  if (stat.isDirectory() && referenceSkillFile(given) === null) {
    const skills = await skillsIn(given);
    if (skills.length > 0) return skills.map((dir) => validateOne(pythonPath(dir)));
  }
  return [validateOne(pythonPath(given))];
}

function validateOne(dir: string): ValidationResult {
  const errors = validateSkillSync(dir);
  return { path: dir, valid: errors.length === 0, errors };
}

/**
 * The skill folders discovery finds below `dir`, in its walk order (names sorted at each level),
 * each written from `dir` as given, so the report names them as the user typed the folder.
 */
async function skillsIn(dir: string): Promise<string[]> {
  const realRoot = fs.realpathSync.native(dir);
  const found = await discoverSource(dir, new TimeSlicer());
  return found.found.map((skill) => (isInside(skill.dir, realRoot) ? path.join(dir, path.relative(realRoot, skill.dir)) : skill.dir));
}

/**
 * A path as Python's pathlib prints it, which is how the reference names the skill: no empty
 * or `.` components, no trailing separator, `.` for nothing.
 */
export function pythonPath(given: string): string {
  const absolute = given.startsWith("/");
  // POSIX keeps exactly two leading slashes as they are.
  const lead = absolute ? (given.startsWith("//") && !given.startsWith("///") ? "//" : "/") : "";
  const parts = given.split("/").filter((part) => part !== "" && part !== ".");
  const text = lead + parts.join("/");
  return text === "" ? "." : text;
}

/**
 * A directory or skill name written to redraw the terminal (an escape sequence) or to reorder
 * what it shows (a bidi override) is shown as `\u{…}`, not obeyed. Nothing else is touched, so
 * the report keeps the reference's bytes for what real skills hold (emoji variation selectors,
 * zero-width joiners); YAML text cannot hold controls at all, the reference's reader refuses them.
 */
const TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/gu;

function withTerminalControlsShown(text: string): string {
  return text.replace(TERMINAL_CONTROL, (c) => `\\u{${c.codePointAt(0)?.toString(16)}}`);
}

/**
 * A YAML error keeps the reference's lines (its context lines are the point of it); any other
 * message is one line, since what it quotes (a name, a directory name) is the author's and a line
 * break in it would forge a row of the report.
 */
function shownMessage(message: string): string {
  return message.startsWith("Invalid YAML in frontmatter: ") ? withTerminalControlsShown(message) : oneLineShown(message);
}

function printResult(result: ValidationResult, out: CliOutput): void {
  // A path written to redraw the terminal or to add lines is shown as escapes, not obeyed.
  if (result.pathError) {
    out.log(oneLineShown(result.pathError));
  } else if (result.valid) {
    out.data(`Valid skill: ${oneLineShown(result.path)}\n`);
  } else {
    out.data(`Validation failed for ${oneLineShown(result.path)}:\n${result.errors.map((e) => `  - ${shownMessage(e)}\n`).join("")}`);
  }
}
