/**
 * The warning that the reference validator (skills-ref, strictyaml) would refuse frontmatter
 * that loading accepted. Loading only marks the files that may be refused; the check itself runs
 * where diagnostics are read (`doctor`, `show`, a library's `runtime.diagnostics()`), because on
 * real skills it cost a list or a server start 10–20% of its time for warnings neither shows.
 */
import { diagnostic, type Diagnostic } from "./diagnostic.js";
import { readSkillFileSync } from "./skill-file.js";
import { splitFrontmatter } from "./split.js";
import { strictYamlProblem } from "./strict-yaml/index.js";

/**
 * The code of the mark loading leaves on a file not yet checked. A reader of raw snapshot
 * diagnostics sees it; `withReferenceChecks` turns it into `yaml_reference_refused` or drops it.
 */
export const REFERENCE_UNCHECKED = "yaml_reference_unchecked";

// What can make the reference's strict YAML refuse text the lenient parser took: flow
// collections, anchors, aliases, tags, merge keys, tabs. Only such text pays for a strict parse.
const MAYBE_STRICT_REFUSAL = /[[\]{}&*!\t]|<</;

/** Whether loading must leave a mark on this frontmatter text (cheap: one regular expression). */
export function mayBeReferenceRefused(frontmatter: string): boolean {
  return MAYBE_STRICT_REFUSAL.test(frontmatter);
}

/** The mark loading leaves: a warning whose message is filled in, or which is dropped, when read. */
export function referenceUnchecked(skillFile: string): Diagnostic {
  return diagnostic(skillFile, "warning", REFERENCE_UNCHECKED, "The reference validator's YAML dialect has not been checked yet");
}

/** Why the reference (strictyaml) would refuse frontmatter that loading accepted, or null. */
export function referenceRefusal(frontmatter: string): string | null {
  // The frontmatter text starts on the line after the opening `---`.
  return mayBeReferenceRefused(frontmatter) ? strictYamlProblem(frontmatter, 2) : null;
}

export function referenceRefusedWarning(skillFile: string, refusal: string): Diagnostic {
  return diagnostic(skillFile, "warning", "yaml_reference_refused", `The reference validator (skills-ref) refuses this frontmatter, so \`skillport validate\` does too: ${refusal}`);
}

const HEAD_ONLY = Object.freeze({ headOnly: true });

/** Each mark's answer, once: a snapshot keeps its marks, so `doctor` twice reads each file once. */
const checked = new WeakMap<Diagnostic, Diagnostic | null>();

function resolveMark(mark: Diagnostic): Diagnostic | null {
  let answer = checked.get(mark);
  if (answer !== undefined) return answer;
  // The file as it is now, read the way loading reads it: a file changed since loading is what
  // the next refresh loads, and what `validate` would read.
  const read = readSkillFileSync(mark.path, HEAD_ONLY);
  const split = read.ok ? splitFrontmatter(read.text) : null;
  const refusal = split?.ok ? referenceRefusal(split.frontmatter) : null;
  answer = refusal === null ? null : referenceRefusedWarning(mark.path, refusal);
  checked.set(mark, answer);
  return answer;
}

/** `list` with each mark replaced by its warning (in the mark's place) or left out. */
export function withReferenceChecks(list: readonly Diagnostic[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const d of list) {
    if (d.code !== REFERENCE_UNCHECKED) {
      out.push(d);
      continue;
    }
    const resolved = resolveMark(d);
    if (resolved !== null) out.push(resolved);
  }
  return out;
}

/** `list` without the marks, for a reader that needs no warnings (a count of errors, say). */
export function withoutReferenceMarks(list: readonly Diagnostic[]): Diagnostic[] {
  return list.filter((d) => d.code !== REFERENCE_UNCHECKED);
}
