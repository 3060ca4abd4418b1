/**
 * Whether the audit keeps a skill from being served (SPEC §12), for every surface at once: the
 * scoped registry leaves such a skill out of what it offers, and the tool answers its activation
 * and reads with `skill_unavailable` naming the rule and the file.
 *
 * SKILL.md is judged when it loads (its findings ride on the record); the rest of the package
 * the first time the skill is activated, read or published, once per record (a changed SKILL.md
 * is a new record, judged again), within the package limits. A source's `audit` setting and
 * the `{skill, rule}` pairs a person accepted decide what the findings do.
 */
import { auditPackage, verdictOf, type Verdict } from "../audit/index.js";
import { oneLineShown } from "../package/display-text.js";
import type { TextFinding } from "../package/types.js";
import type { AuditMode, RegisteredSkill } from "../registry/types.js";

/** A finding a person has read in one skill and trusts: it no longer counts for that skill. */
export interface AcceptedFinding {
  /** The skill's name, exactly. */
  skill: string;
  /** The rule's id, exactly. */
  rule: string;
}

export interface AuditPolicy {
  accept?: readonly AcceptedFinding[];
}

/** What the audit found in a skill, as far as it has looked, and the finding that blocks it (if one does). */
export interface AuditState {
  /** The skill's source's setting. */
  mode: AuditMode;
  /**
   * `block` when a finding blocks (in a source that blocks), `warn` when findings remain that are
   * not accepted (a source set to `warn` turns its blocks into this), else `pass`; `off` judges nothing.
   */
  verdict: Verdict;
  /** Every finding so far: SKILL.md's, and the rest of the package's once judged. */
  findings: readonly TextFinding[];
  /** The findings a `{skill, rule}` pair accepted: shown to people, counted for nothing. */
  accepted: readonly TextFinding[];
  /** The first finding that blocks, not accepted, in a source that blocks; null when none does. */
  blocking: TextFinding | null;
  /** Whether the rest of the package has been judged too. */
  packageJudged: boolean;
}

const NONE: readonly TextFinding[] = Object.freeze([]);

/** The rest of each package's findings, per record: judged once, shared by every scope. */
const packageFindings = new WeakMap<RegisteredSkill, readonly TextFinding[]>();
const judging = new WeakMap<RegisteredSkill, Promise<readonly TextFinding[]>>();

export class AuditJudge {
  private readonly accepted = new Map<string, Set<string>>();

  constructor(policy: AuditPolicy | undefined) {
    for (const pair of policy?.accept ?? []) {
      let rules = this.accepted.get(pair.skill);
      if (!rules) this.accepted.set(pair.skill, (rules = new Set()));
      rules.add(pair.rule);
    }
  }

  /** What is known now, without reading anything. */
  stateNow(skill: RegisteredSkill): AuditState {
    if (skill.audit === "off") return { mode: "off", verdict: "pass", findings: NONE, accepted: NONE, blocking: null, packageJudged: true };
    const rest = packageFindings.get(skill);
    const findings = rest === undefined || rest.length === 0 ? (skill.findings ?? NONE) : [...(skill.findings ?? NONE), ...rest];
    const rules = this.accepted.get(skill.name);
    const accepted = rules ? findings.filter((f) => rules.has(f.rule)) : NONE;
    const blocking = this.blockingOf(skill, findings);
    const verdict: Verdict = blocking !== null ? "block" : verdictOf(findings, rules) === "pass" ? "pass" : "warn";
    return { mode: skill.audit ?? "block", verdict, findings, accepted, blocking, packageJudged: rest !== undefined };
  }

  /** The finding that blocks the skill, known now; most skills have no findings and cost a property read. */
  blockingNow(skill: RegisteredSkill): TextFinding | null {
    if (skill.audit !== undefined) return null;
    if (skill.findings === undefined && !packageFindings.has(skill)) return null;
    return this.stateNow(skill).blocking;
  }

  /** Everything, the rest of the package judged first when it has not been. */
  async state(skill: RegisteredSkill): Promise<AuditState> {
    if (skill.audit !== "off" && !packageFindings.has(skill)) await judgePackage(skill);
    return this.stateNow(skill);
  }

  private blockingOf(skill: RegisteredSkill, findings: readonly TextFinding[]): TextFinding | null {
    // `warn` serves the skill: its findings are for people to read (`list`, `doctor`).
    if (skill.audit !== undefined || findings.length === 0) return null;
    const accepted = this.accepted.get(skill.name);
    if (verdictOf(findings, accepted) !== "block") return null;
    return findings.find((f) => f.severity === "block" && !accepted?.has(f.rule)) ?? null;
  }
}

/**
 * The package's files other than SKILL.md, judged once per record; concurrent askers share the
 * one judgement. SKILL.md's findings are the record's own (judged as it loaded), so the package's
 * look at SKILL.md is dropped rather than counted twice.
 */
function judgePackage(skill: RegisteredSkill): Promise<readonly TextFinding[]> {
  let pending = judging.get(skill);
  if (!pending) {
    pending = auditPackage(skill.dir).then(
      (found) => {
        const rest = found.filter((f) => f.file !== "SKILL.md" && f.file !== "skill.md").map(({ rule, severity, file, line, message }) => Object.freeze({ rule, severity, file, line, message }));
        const kept = rest.length === 0 ? NONE : Object.freeze(rest);
        packageFindings.set(skill, kept);
        return kept;
      },
      // A package that cannot be walked now has nothing judged; the next ask tries again.
      () => {
        judging.delete(skill);
        return NONE;
      },
    );
    judging.set(skill, pending);
  }
  return pending;
}

/** The one sentence people and models are told about a blocked skill. */
export function blockedMessage(name: string, finding: TextFinding): string {
  // The message may quote what the file holds (a decoded payload, a host): one line, nothing hidden.
  return `Skill ${JSON.stringify(name)} is blocked by the audit: ${finding.rule} in ${oneLineShown(finding.file)} (line ${finding.line}): ${oneLineShown(finding.message)}`;
}
