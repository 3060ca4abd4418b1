/**
 * Splits SKILL.md text into frontmatter and body (SPEC §1).
 *
 * The frontmatter ends at the next line that is exactly `---` (trailing blanks and `\r`
 * tolerated), never at a `---` inside a value: a description that mentions `---` or a body
 * with horizontal rules must not end the frontmatter early, which is the bug of splitting
 * on the bare string.
 */
export type SplitResult =
  | { ok: true; frontmatter: string; body: string; /** 1-based line of the first frontmatter line */ firstLine: number }
  | { ok: false; code: "frontmatter_missing" | "frontmatter_unclosed"; message: string };

const FENCE = /^---[ \t]*\r?$/;

export function splitFrontmatter(input: string): SplitResult {
  // A BOM is an editor artefact, not content.
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const firstEnd = lineEnd(text, 0);
  if (!FENCE.test(text.slice(0, firstEnd))) {
    return { ok: false, code: "frontmatter_missing", message: "SKILL.md must start with YAML frontmatter (---)" };
  }
  let start = firstEnd + 1;
  const fmStart = start;
  while (start <= text.length) {
    const end = lineEnd(text, start);
    // Only a line that starts with the fence is cut out and matched: a slice of every line was
    // most of what splitting a frontmatter allocated.
    if (text.startsWith("---", start) && FENCE.test(text.slice(start, end))) {
      return {
        ok: true,
        frontmatter: text.slice(fmStart, start),
        body: text.slice(end + 1).trim(),
        firstLine: 2,
      };
    }
    if (end >= text.length) break;
    start = end + 1;
  }
  return { ok: false, code: "frontmatter_unclosed", message: "SKILL.md frontmatter not properly closed with ---" };
}

function lineEnd(text: string, from: number): number {
  const i = text.indexOf("\n", from);
  return i === -1 ? text.length : i;
}
