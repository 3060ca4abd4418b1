/**
 * The reader's view of the text (ruamel's Reader and Mark): code points, line and column, and the
 * `in "<unicode string>", line L, column C:` context with its caret line that every message ends with.
 */

const NAME = "<unicode string>";
export const THE_END = "\n\0\r\x85\u2028\u2029";
export const THE_END_SPACE_TAB = " \n\0\t\r\x85\u2028\u2029";
export const SPACE_TAB = " \t";
export const LINE_BREAKS = "\r\n\x85\u2028\u2029";

// ---------------------------------------------------------------------------------------------
// Marks and errors

/**
 * The text as code points with a `\0` after it: the string itself when it has no surrogate (each
 * UTF-16 unit is then one code point, and indexing and slicing need no copy), an array otherwise.
 */
export type CodePoints = string | readonly string[];

export function sliceText(buf: CodePoints, start: number, end: number): string {
  return typeof buf === "string" ? buf.slice(start, end) : buf.slice(start, end).join("");
}

export class Mark {
  constructor(
    readonly buffer: CodePoints,
    readonly index: number,
    readonly line: number,
    readonly column: number,
    readonly pointer: number,
  ) {}

  private snippet(indent = 4, maxLength = 75): string {
    const buf = this.buffer;
    const stop = "\0\r\n\x85\u2028\u2029";
    let head = "";
    let start = this.pointer;
    while (start > 0 && !stop.includes(buf[start - 1] ?? "\0")) {
      start -= 1;
      if (this.pointer - start > maxLength / 2 - 1) {
        head = " ... ";
        start += 5;
        break;
      }
    }
    let tail = "";
    let end = this.pointer;
    while (end < buf.length && !stop.includes(buf[end] ?? "\0")) {
      end += 1;
      if (end - this.pointer > maxLength / 2 - 1) {
        tail = " ... ";
        end -= 5;
        break;
      }
    }
    const text = sliceText(buf, start, end);
    return `${" ".repeat(indent)}${head}${text}${tail}\n${" ".repeat(indent + this.pointer - start + head.length)}^ (line: ${this.line + 1})`;
  }

  toString(): string {
    return `  in "${NAME}", line ${this.line + 1}, column ${this.column + 1}:\n${this.snippet()}`;
  }
}

// ruamel's Reader refuses these before scanning; strictyaml then fails on the error's missing
// marks, so the reference prints a traceback rather than a message.
export const NON_PRINTABLE = /[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
