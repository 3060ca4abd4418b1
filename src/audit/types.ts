/** What the audit says about a skill (SPEC §12): findings, each from one rule, and a verdict from them. */

export type Severity = "block" | "warn";
export type Verdict = "pass" | "warn" | "block";

export interface Finding {
  /** The rule's id (RULES). */
  rule: string;
  severity: Severity;
  /** Relative to the skill folder, `/`-separated. */
  file: string;
  /** 1-based. */
  line: number;
  /** The rule's reason, with what was seen when that says more (a decoded payload, the host). */
  message: string;
  /** The matched text, raw: whoever shows it to a person escapes invisible characters. */
  excerpt?: string;
}
