/**
 * The audit (SPEC §12): a deterministic, offline judgement of a skill before it is installed or
 * served. Rules are data (rules.ts); this module is the face the other layers use.
 */
export type { Finding, Severity, Verdict } from "./types.js";
export type { Rule, RuleTarget } from "./rules.js";
export { RULES } from "./rules.js";
export { auditText, auditSkillMd, auditBytes } from "./scan.js";
export { auditPackage, type PackageAuditOptions } from "./package-audit.js";
export { confusableFindings } from "./confusable.js";
export { verdictOf } from "./verdict.js";

/** Changes whenever a rule is added, removed or changes what it matches: a lockfile records what it accepted under. */
export const RULES_VERSION: string = "2026-12-04.2";
