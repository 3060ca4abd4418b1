/**
 * What the runtime's audit says of each skill, for `list` and `doctor` (SPEC §12): which skills
 * are blocked and why, the warnings, and what a `{skill, rule}` pair accepted. SKILL.md was
 * judged as it loaded (and is kept in the parse cache), so that verdict costs nothing; `doctor`
 * also judges the rest of every package, a few at a time, within the package limits, where
 * `list` (run fresh again and again) says what loading found.
 */
import type { AuditState } from "../access/audit-verdict.js";
import type { ScopedRegistry } from "../access/types.js";
import { diagnostic, type Diagnostic } from "../package/diagnostic.js";
import { oneLineShown } from "../package/display-text.js";
import type { TextFinding } from "../package/types.js";
import type { RegisteredSkill } from "../registry/types.js";

/** Packages judged at once. */
const CONCURRENCY = 16;

export async function auditReport(registry: ScopedRegistry, skills: readonly RegisteredSkill[], { packages }: { packages: boolean }): Promise<Map<string, AuditState>> {
  const report = new Map<string, AuditState>();
  if (!packages) {
    for (const skill of skills) {
      const state = registry.auditNow?.(skill.name);
      if (state) report.set(skill.name, state);
    }
    return report;
  }
  if (!registry.audit) return report;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < skills.length) {
      const skill = skills[next++]!;
      const state = await registry.audit!(skill.name);
      if (state) report.set(skill.name, state);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, skills.length) }, worker));
  return report;
}

/** The audit as `list --json` gives it: verdict, the finding that blocks, every finding, what was accepted. */
export interface AuditEntry {
  mode: AuditState["mode"];
  verdict: AuditState["verdict"];
  blocking: TextFinding | null;
  findings: readonly TextFinding[];
  accepted: Array<{ rule: string; file: string; line: number }>;
  /** Whether the package's other files were judged too (activation, reads and `doctor` judge them). */
  packageJudged: boolean;
}

export function auditEntry(state: AuditState): AuditEntry {
  return {
    mode: state.mode,
    verdict: state.verdict,
    blocking: state.blocking,
    findings: state.findings,
    accepted: state.accepted.map(({ rule, file, line }) => ({ rule, file, line })),
    packageJudged: state.packageJudged,
  };
}

/** One phrase for `list`: why the skill is blocked, or which rules warn; null when it passes. */
export function auditNote(entry: AuditEntry): string | null {
  if (entry.blocking) return `blocked by the audit: ${entry.blocking.rule} in ${where(entry.blocking)}`;
  if (entry.verdict !== "warn") return null;
  const accepted = new Set(entry.accepted.map((a) => a.rule));
  const warned = [...new Set(entry.findings.map((f) => f.rule).filter((rule) => !accepted.has(rule)))];
  return `audit warnings: ${warned.join(", ")}`;
}

/**
 * `doctor`'s lines: an error for each finding that blocks (the skill is served nowhere), a
 * warning for each other finding that counts, a warning naming what a pair accepted (so an
 * accepted rule is never out of sight).
 */
export function auditDiagnostics(skill: RegisteredSkill, state: AuditState): Diagnostic[] {
  const found: Diagnostic[] = [];
  const at = (f: TextFinding) => `${skill.dir}/${f.file}`;
  for (const f of counted(state)) {
    if (f.severity === "block" && state.mode === "block") {
      found.push(diagnostic(at(f), "error", "audit_blocked", `skill '${skill.name}' is blocked by the audit and served nowhere: ${f.rule} (line ${f.line}): ${oneLineShown(f.message)}`));
      continue;
    }
    const demoted = f.severity === "block" ? ` (blocks, but the source's audit is "${state.mode}")` : "";
    found.push(diagnostic(at(f), "warning", "audit_warning", `skill '${skill.name}': ${f.rule} (line ${f.line})${demoted}: ${oneLineShown(f.message)}`));
  }
  if (state.accepted.length > 0) {
    const rules = [...new Set(state.accepted.map((f) => f.rule))];
    found.push(diagnostic(skill.skillFile, "warning", "audit_accepted", `skill '${skill.name}': accepted by the config, not counted: ${rules.join(", ")}`));
  }
  return found;
}

/** Findings that count: not accepted. */
function counted(state: AuditState): TextFinding[] {
  return state.findings.filter((f) => !state.accepted.includes(f));
}

function where(f: TextFinding): string {
  return `${oneLineShown(f.file)}:${f.line}`;
}
