/**
 * A finding as a person reads it (SPEC §12): `file:line  rule  reason`, then the matched text
 * with invisible characters shown as escapes, so what hid in the file is seen in the report.
 */
import { showInvisible } from "./invisible.js";
import type { Finding } from "./types.js";

const EXCERPT_SHOWN = 160;

export function findingLine(f: Finding): string {
  return `${f.file}:${f.line}  ${f.rule} (${f.severity})  ${showInvisible(f.message)}`;
}

/** The matched text, escaped and on one line; "" when the finding has none. */
export function findingExcerpt(f: Finding): string {
  if (!f.excerpt) return "";
  const shown = showInvisible(f.excerpt.replace(/\s+/g, " ").trim());
  return shown.length > EXCERPT_SHOWN ? `${shown.slice(0, EXCERPT_SHOWN)}…` : shown;
}

/** Both, the excerpt indented under the line: what `add` and `audit` print. */
export function findingText(f: Finding): string {
  const excerpt = findingExcerpt(f);
  return excerpt ? `${findingLine(f)}\n    > ${excerpt}` : findingLine(f);
}
