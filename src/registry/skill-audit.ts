/**
 * SKILL.md judged while it loads (SPEC §12): the inspection the registry's walks hand the
 * loader, in a parse worker or on the registry's thread alike, so the findings travel with the
 * record (through the workers' messages and the parse cache, whose code hash covers the audit).
 */
import { auditSkillMd } from "../audit/index.js";
import type { SkillTextInspector, TextFinding } from "../package/types.js";

const NONE: readonly TextFinding[] = Object.freeze([]);

/** The findings of SKILL.md's text, without excerpts: a record holds metadata, not the text. */
export const inspectSkillText: SkillTextInspector = (text, frontmatter) => {
  const findings = auditSkillMd(text, frontmatter);
  if (findings.length === 0) return NONE;
  return findings.map(({ rule, severity, file, line, message }) => ({ rule, severity, file, line, message }));
};
