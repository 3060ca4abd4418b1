/**
 * Skill-name rules shared by lenient loading (warnings) and strict validation (errors), with
 * the reference validator's exact wording. Names are compared after NFKC and counted in code
 * points, so `café` typed with a combining accent names the same skill as the composed one.
 */
import { MAX_NAME_LENGTH } from "./limits.js";

export interface NameProblem {
  code: string;
  message: string;
}

export function normalizeName(name: string): string {
  return name.trim().normalize("NFKC");
}

/** Problems in reference order: length, case, edge hyphens, double hyphens, characters, directory. */
export function nameProblems(rawName: string, dirName: string | null): NameProblem[] {
  const name = normalizeName(rawName);
  const problems: NameProblem[] = [];
  const length = [...name].length;
  if (length > MAX_NAME_LENGTH) {
    problems.push({ code: "name_too_long", message: `Skill name '${name}' exceeds ${MAX_NAME_LENGTH} character limit (${length} chars)` });
  }
  if (name !== name.toLowerCase()) {
    problems.push({ code: "name_case", message: `Skill name '${name}' must be lowercase` });
  }
  if (name.startsWith("-") || name.endsWith("-")) {
    problems.push({ code: "name_hyphen_edge", message: "Skill name cannot start or end with a hyphen" });
  }
  if (name.includes("--")) {
    problems.push({ code: "name_double_hyphen", message: "Skill name cannot contain consecutive hyphens" });
  }
  // Any Unicode letter or digit, as the reference's `str.isalnum()` allows.
  if (!/^[\p{L}\p{N}-]*$/u.test(name)) {
    problems.push({
      code: "name_characters",
      message: `Skill name '${name}' contains invalid characters. Only letters, digits, and hyphens are allowed.`,
    });
  }
  if (dirName !== null && dirName.normalize("NFKC") !== name) {
    problems.push({ code: "name_mismatch", message: `Directory name '${dirName}' must match skill name '${name}'` });
  }
  return problems;
}
