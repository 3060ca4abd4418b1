/** A skill's verdict from its findings (SPEC §12): the worst severity among the rules not accepted. */
import type { Finding, Verdict } from "./types.js";

export function verdictOf(findings: readonly Finding[], accepted?: ReadonlySet<string>): Verdict {
  let verdict: Verdict = "pass";
  for (const f of findings) {
    // An accepted rule is one a person has read in this skill and trusts: it no longer counts.
    if (accepted?.has(f.rule)) continue;
    if (f.severity === "block") return "block";
    verdict = "warn";
  }
  return verdict;
}
