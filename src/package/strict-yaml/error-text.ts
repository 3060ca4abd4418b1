/**
 * How the reference words a refusal: ruamel's MarkedYAMLError as its `__str__` prints it, Python's
 * `repr()` for the `%r` in its messages, and the crashes where it prints a traceback instead.
 */
import { Mark } from "./marks.js";

/**
 * ruamel's MarkedYAMLError, printed as its `__str__` prints it. Not an `Error`: it never leaves
 * this folder, and capturing a stack trace for each was a fifth of a refused document's cost
 * (loading checks every frontmatter with a flow list this way).
 */
export class MarkedError {
  constructor(
    readonly context: string | null,
    readonly contextMark: Mark | null,
    readonly problem: string | null,
    readonly problemMark: Mark | null,
    readonly note: string | null = null,
  ) {}

  text(): string {
    const lines: string[] = [];
    if (this.context !== null) lines.push(this.context);
    const c = this.contextMark;
    const p = this.problemMark;
    if (c !== null && (this.problem === null || p === null || c.line !== p.line || c.column !== p.column)) {
      lines.push(c.toString());
    }
    if (this.problem !== null) lines.push(this.problem);
    if (p !== null) lines.push(p.toString());
    if (this.note) lines.push(this.note);
    return lines.join("\n");
  }
}

/** Where the reference does not report but crashes (an uncaught Python exception). */
export class ReferenceCrash extends Error {}

/** Python's `repr()` of a string, for the `%r` in ruamel's messages. */
export function pythonRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === quote || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (code >= 0x80 && !isPrintable(ch)) {
      if (code <= 0xff) out += `\\x${code.toString(16).padStart(2, "0")}`;
      else if (code <= 0xffff) out += `\\u${code.toString(16).padStart(4, "0")}`;
      else out += `\\U${code.toString(16).padStart(8, "0")}`;
    } else out += ch;
  }
  return out + quote;
}

const NOT_PRINTABLE = /[\p{C}\p{Z}]/u;
function isPrintable(ch: string): boolean {
  return ch === " " || !NOT_PRINTABLE.test(ch);
}
