/**
 * One text file as the rules read it: its lines, with a shell line continuation (`\` at the end
 * of a line) blanked so that a command split over lines is judged as the one command it is,
 * while every offset still names the line it came from.
 */

export type FileKind = "markdown" | "script" | "other";

export interface DocLine {
  /** The line's text, continuations blanked (a continued line holds the rest of the command). */
  readonly text: string;
  /** 1-based number of the physical line the text starts on. */
  readonly number: number;
}

export interface TextDoc {
  readonly file: string;
  readonly kind: FileKind;
  /** The text as read. */
  readonly text: string;
  /** Logical lines: a continued command is one entry, numbered by its first line. */
  readonly lines: readonly DocLine[];
  /** How many decodings deep this text is (0: the file itself). */
  readonly depth: number;
}

const MARKDOWN = /\.(?:md|mdx|markdown|txt|rst)$/i;
const SCRIPT =
  /\.(?:sh|bash|zsh|fish|ksh|py|pyw|js|mjs|cjs|ts|mts|cts|jsx|tsx|rb|pl|pm|php|ps1|psm1|bat|cmd|vbs|lua|go|rs|swift|kt|java|cs|applescript|scpt|command|tool)$/i;

export function kindOf(file: string, text: string): FileKind {
  if (MARKDOWN.test(file)) return "markdown";
  if (SCRIPT.test(file) || text.startsWith("#!")) return "script";
  return "other";
}

export function textDoc(file: string, text: string, depth = 0, kind: FileKind = kindOf(file, text)): TextDoc {
  const physical = text.split("\n");
  const lines: DocLine[] = [];
  for (let i = 0; i < physical.length; i++) {
    const first = i;
    let line = physical[i]!.replace(/\r$/, "");
    // Bounded: a file of nothing but backslashes is still one pass.
    while (/\\$/.test(line) && i + 1 < physical.length) {
      i++;
      line = `${line.slice(0, -1)} ${physical[i]!.replace(/\r$/, "")}`;
    }
    lines.push({ text: line, number: first + 1 });
  }
  return { file, kind, text, lines, depth };
}

/** The 1-based line of a character offset in `text`. */
export function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}
