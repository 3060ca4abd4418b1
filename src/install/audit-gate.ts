/**
 * The audit at the install door (SPEC §12): a skill that blocks is not installed unless the
 * person said `--allow-risky`, and then its lockfile entry records the rules accepted and the
 * rules version they were accepted under. Rules a lockfile entry already accepted stay accepted
 * for that skill (an update, a frozen install in CI): a person read them once. Warnings are
 * printed and install.
 */
import { auditPackage, confusableFindings, RULES_VERSION, verdictOf, type Finding } from "../audit/index.js";
import { findingText } from "../audit/finding-text.js";

export interface AuditGate {
  /** Whether the skill may be installed. */
  allowed: boolean;
  findings: Finding[];
  /** Block rules accepted for it (recorded in the lockfile); empty when none. */
  accepted: string[];
  /** One message per finding (and why it was refused), for the outcome. */
  messages: string[];
}

export interface GateOptions {
  allowRisky: boolean;
  /** Rules the lockfile entry already accepted for this skill. */
  previouslyAccepted: readonly string[];
  /** The skill's name and the other names installed beside it, for look-alike names. */
  name: string;
  installedNames: readonly string[];
}

export async function auditForInstall(dir: string, options: GateOptions): Promise<AuditGate> {
  const findings = [...(await auditPackage(dir)), ...confusableFindings(options.name, options.installedNames)];
  const blocking = [...new Set(findings.filter((f) => f.severity === "block").map((f) => f.rule))].sort();
  const before = new Set(options.previouslyAccepted);
  const accepted = options.allowRisky ? blocking : blocking.filter((rule) => before.has(rule));
  const allowed = verdictOf(findings, new Set(accepted)) !== "block";
  const messages = findings.map(findingText);
  if (!allowed) {
    const unaccepted = blocking.filter((rule) => !accepted.includes(rule));
    messages.unshift(`blocked by the audit (rules ${RULES_VERSION}): ${unaccepted.join(", ")}; read the findings, and install it with --allow-risky only if you trust it`);
  } else if (accepted.length > 0) {
    // The lockfile is committed and shared, so it is no grant at run time: a cloned repository's
    // lockfile could accept its own skill's findings. Serving needs the person's own config.
    const pairs = accepted.map((rule) => JSON.stringify({ skill: options.name, rule })).join(", ");
    messages.unshift(
      `audit rules accepted for this skill: ${accepted.join(", ")} (recorded in the lockfile with rules ${RULES_VERSION}); ` +
        `it is served only once your config accepts them too: "audit": {"accept": [${pairs}]} in a config named with --config (or the library's audit option)`,
    );
  }
  return { allowed, findings, accepted, messages };
}

export { RULES_VERSION };
