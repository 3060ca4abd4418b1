/**
 * The YAML dialect of the reference validator `skills-ref`: strictyaml 1.6 over its bundled
 * ruamel.yaml 0.17, reproduced so `validate` and `prompt --skills-ref` refuse what it refuses
 * with its exact words (ruamel's `mapping values are not allowed here`, strictyaml's `Found ugly
 * disallowed JSONesque flow mapping ...`, each with its `in "<unicode string>", line L, column
 * C:` context and caret line).
 *
 * The scanner, parser and composer follow ruamel's round-trip classes step for step, because the
 * text of an error depends on exactly when each token is fetched: which of two problems is met
 * first, and where the reader stands when it is. Positions count code points, as Python does.
 * Every scalar is text (strictyaml has no other type); flow collections, tags and anchors are
 * refused when the parser first looks at them, an alias is an undefined alias, a duplicate key or
 * sibling mappings at different indentation are refused while the mapping is built.
 *
 * Loading does not use this module: it is lenient YAML 1.2 (yaml.ts) and only warns where this
 * dialect would refuse (`strictYamlProblem`).
 */
import { parseFlat } from "./yaml.js";

export type StrictValue = string | StrictValue[] | StrictMap | MergeMarker;

/** A bare `<<` where a value stands: ruamel makes it an object that is no text, list or map. */
export class MergeMarker {
  readonly text = "<<";
}
export type StrictMap = Map<string, StrictValue>;

export type StrictYamlResult =
  | { ok: true; value: StrictValue | null }
  /** `message` is the text the reference prints after `Invalid YAML in frontmatter: `. */
  | { ok: false; message: string; crash?: undefined }
  /** The reference itself fails with a Python traceback here; `crash` says why, in plain words. */
  | { ok: false; crash: string; message?: undefined };

const NAME = "<unicode string>";
const THE_END = "\n\0\r\x85\u2028\u2029";
const THE_END_SPACE_TAB = " \n\0\t\r\x85\u2028\u2029";
const SPACE_TAB = " \t";
const LINE_BREAKS = "\r\n\x85\u2028\u2029";

// ---------------------------------------------------------------------------------------------
// Marks and errors

/**
 * The text as code points with a `\0` after it: the string itself when it has no surrogate (each
 * UTF-16 unit is then one code point, and indexing and slicing need no copy), an array otherwise.
 */
type CodePoints = string | readonly string[];

function sliceText(buf: CodePoints, start: number, end: number): string {
  return typeof buf === "string" ? buf.slice(start, end) : buf.slice(start, end).join("");
}

class Mark {
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

/**
 * ruamel's MarkedYAMLError, printed as its `__str__` prints it. Not an `Error`: it never leaves
 * this module, and capturing a stack trace for each was a fifth of a refused document's cost
 * (loading checks every frontmatter with a flow list this way).
 */
class MarkedError {
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
class ReferenceCrash extends Error {}

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

// ---------------------------------------------------------------------------------------------
// Tokens

type TokenType =
  | "<stream start>"
  | "<stream end>"
  | "<directive>"
  | "<document start>"
  | "<document end>"
  | "<block sequence start>"
  | "<block mapping start>"
  | "<block end>"
  | "["
  | "{"
  | "]"
  | "}"
  | "?"
  | ":"
  | "-"
  | ","
  | "<alias>"
  | "<anchor>"
  | "<tag>"
  | "<scalar>"
  | "<comment>";

interface Token {
  id: TokenType;
  start: Mark;
  end: Mark;
  value?: string;
  directive?: { name: string; value: unknown };
  tag?: [string | null, string];
  plain?: boolean;
  style?: string | null;
}

function token(id: TokenType, start: Mark, end: Mark, extra: Partial<Token> = {}): Token {
  return { id, start, end, ...extra };
}

interface SimpleKey {
  tokenNumber: number;
  required: boolean;
  index: number;
  line: number;
  column: number;
  mark: Mark;
}

const ESCAPE_REPLACEMENTS: Record<string, string> = {
  "0": "\0",
  a: "\x07",
  b: "\x08",
  t: "\x09",
  "\t": "\x09",
  n: "\x0A",
  v: "\x0B",
  f: "\x0C",
  r: "\x0D",
  e: "\x1B",
  " ": "\x20",
  '"': '"',
  "/": "/",
  "\\": "\\",
  N: "\x85",
  _: "\xA0",
  L: "\u2028",
  P: "\u2029",
};
const ESCAPE_CODES: Record<string, number> = { x: 2, u: 4, U: 8 };
const HEX = "0123456789ABCDEFabcdef";

function isAsciiAlnum(ch: string): boolean {
  return (ch >= "0" && ch <= "9") || (ch >= "A" && ch <= "Z") || (ch >= "a" && ch <= "z");
}

/** ruamel's `check_namespace_char` less `,[]{}`: what an anchor or alias name may hold. */
function isAnchorChar(ch: string): boolean {
  if (",[]{}".includes(ch)) return false;
  const c = ch.codePointAt(0) ?? 0;
  return (
    (c >= 0x21 && c <= 0x7e) ||
    (c >= 0xa0 && c <= 0xd7ff) ||
    (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff) ||
    (c >= 0x10000 && c <= 0x10ffff)
  );
}

const SURROGATE = /[\uD800-\uDFFF]/;
const FLOW_INDICATORS = ",[]{}";

// ---------------------------------------------------------------------------------------------
// Reader + scanner (ruamel Reader, Scanner, RoundTripScanner, strictyaml's check_token)

class Scanner {
  readonly buf: CodePoints;
  pointer = 0;
  index = 0;
  line = 0;
  column = 0;

  done = false;
  flowContext: string[] = [];
  tokens: Token[] = [];
  tokensTaken = 0;
  indent = -1;
  indents: number[] = [];
  allowSimpleKey = true;
  possibleSimpleKeys = new Map<number, SimpleKey>();
  yamlVersion: [number, number] | null = null;

  constructor(text: string) {
    this.buf = SURROGATE.test(text) ? [...Array.from(text), "\0"] : `${text}\0`;
    const mark = this.mark();
    this.tokens.push(token("<stream start>", mark, mark));
  }

  // Reader
  peek(i = 0): string {
    return this.buf[this.pointer + i] ?? "\0";
  }
  prefix(length = 1): string {
    return sliceText(this.buf, this.pointer, this.pointer + length);
  }
  forward(length = 1): void {
    while (length !== 0) {
      const ch = this.buf[this.pointer] ?? "\0";
      this.pointer += 1;
      this.index += 1;
      if (ch === "\n" || (ch === "\r" && this.buf[this.pointer] !== "\n")) {
        this.line += 1;
        this.column = 0;
      } else if (ch !== "\uFEFF") {
        this.column += 1;
      }
      length -= 1;
    }
  }
  mark(): Mark {
    return new Mark(this.buf, this.index, this.line, this.column, this.pointer);
  }

  get flowLevel(): number {
    return this.flowContext.length;
  }
  get v11(): boolean {
    return this.yamlVersion !== null && this.yamlVersion[0] === 1 && this.yamlVersion[1] === 1;
  }

  // Public methods (RoundTripScanner + strictyaml's refusals)
  // Up to four choices as parameters rather than a rest array: the parser asks this for nearly
  // every token, and an array per question was a large share of what a check allocated.
  checkToken(a?: TokenType, b?: TokenType, c?: TokenType, d?: TokenType): boolean {
    while (this.needMoreTokens()) this.fetchMoreTokens();
    this.gatherComments();
    const first = this.tokens[0];
    if (!first) return false;
    if (a === undefined) return true;
    const id = first.id;
    if (id !== a && id !== b && id !== c && id !== d) return false;
    if (first.id === "<tag>") {
      throw new MarkedError("While scanning", first.end, "Found disallowed tag tokens (do not specify types in markup)", first.start);
    }
    if (first.id === "[" || first.id === "{") {
      throw new MarkedError(
        "While scanning",
        first.start,
        "Found ugly disallowed JSONesque flow mapping (surround with ' and ' to make text appear literally)",
        first.end,
      );
    }
    if (first.id === "<anchor>") {
      throw new MarkedError(
        "While scanning",
        first.start,
        "Found confusing disallowed anchor token (surround with ' and ' to make text appear literally)",
        first.end,
      );
    }
    return true;
  }

  peekToken(): Token {
    while (this.needMoreTokens()) this.fetchMoreTokens();
    this.gatherComments();
    const first = this.tokens[0];
    if (!first) throw new ReferenceCrash("the YAML scanner ran out of tokens");
    return first;
  }

  getToken(): Token {
    while (this.needMoreTokens()) this.fetchMoreTokens();
    this.gatherComments();
    const t0 = this.tokens[0];
    if (!t0) throw new ReferenceCrash("the YAML scanner ran out of tokens");
    const t1 = this.tokens[1];
    if (t1 && t1.id === "<comment>" && ["<scalar>", ":", "]", "}"].includes(t0.id) && t0.end.line === t1.start.line) {
      this.tokensTaken += 1;
      this.tokens.splice(1, 1);
      this.fetchMoreTokens();
      while (this.tokens.length > 1 && this.tokens[1]?.id === "<comment>") {
        this.tokensTaken += 1;
        this.tokens.splice(1, 1);
        this.fetchMoreTokens();
      }
    } else if (t1 && t1.id === "<comment>" && t0.id === "<scalar>" && t0.end.line !== t1.start.line) {
      this.tokensTaken += 1;
      this.tokens.splice(1, 1);
      this.fetchMoreTokens();
      while (this.tokens.length > 1 && this.tokens[1]?.id === "<comment>") {
        this.tokensTaken += 1;
        this.tokens.splice(1, 1);
        this.fetchMoreTokens();
      }
    }
    this.tokensTaken += 1;
    return this.tokens.shift() as Token;
  }

  private gatherComments(): void {
    if (this.tokens.length === 0) return;
    if (this.tokens[0]?.id === "<comment>") {
      this.tokens.shift();
      this.tokensTaken += 1;
    }
    while (this.needMoreTokens()) {
      this.fetchMoreTokens();
      if (this.tokens.length === 0) return;
      if (this.tokens[0]?.id === "<comment>") {
        this.tokensTaken += 1;
        this.tokens.shift();
      }
    }
    if (!this.done && this.tokens.length < 2) this.fetchMoreTokens();
  }

  private needMoreTokens(): boolean {
    if (this.done) return false;
    if (this.tokens.length === 0) return true;
    this.stalepossibleSimpleKeys();
    return this.nextPossibleSimpleKey() === this.tokensTaken;
  }

  private fetchMoreTokens(): void {
    const comment = this.scanToNextToken();
    if (comment !== null) {
      this.tokens.push(token("<comment>", comment.start, comment.end));
      return;
    }
    this.stalepossibleSimpleKeys();
    this.unwindIndent(this.column);
    const ch = this.peek();
    if (ch === "\0") return this.fetchStreamEnd();
    if (ch === "%" && this.column === 0) return this.fetchDirective();
    if (ch === "-" && this.checkDocumentStart()) return this.fetchDocumentIndicator("<document start>");
    if (ch === "." && this.checkDocumentEnd()) return this.fetchDocumentIndicator("<document end>");
    if (ch === "[") return this.fetchFlowCollectionStart("[", "[");
    if (ch === "{") return this.fetchFlowCollectionStart("{", "{");
    if (ch === "]") return this.fetchFlowCollectionEnd("]");
    if (ch === "}") return this.fetchFlowCollectionEnd("}");
    if (ch === ",") return this.fetchFlowEntry();
    if (ch === "-" && THE_END_SPACE_TAB.includes(this.peek(1))) return this.fetchBlockEntry();
    if (ch === "?" && this.checkKey()) return this.fetchKey();
    if (ch === ":" && this.checkValue()) return this.fetchValue();
    if (ch === "*") return this.fetchAnchorLike("<alias>");
    if (ch === "&") return this.fetchAnchorLike("<anchor>");
    if (ch === "!") return this.fetchTag();
    if (ch === "|" && !this.flowLevel) return this.fetchBlockScalar("|");
    if (ch === ">" && !this.flowLevel) return this.fetchBlockScalar(">");
    if (ch === "'") return this.fetchFlowScalar("'");
    if (ch === '"') return this.fetchFlowScalar('"');
    if (this.checkPlain()) return this.fetchPlain();
    throw new MarkedError("while scanning for the next token", null, `found character ${pythonRepr(ch)} that cannot start any token`, this.mark());
  }

  // Simple keys
  private nextPossibleSimpleKey(): number | null {
    let min: number | null = null;
    for (const key of this.possibleSimpleKeys.values()) {
      if (min === null || key.tokenNumber < min) min = key.tokenNumber;
    }
    return min;
  }

  private stalepossibleSimpleKeys(): void {
    if (this.possibleSimpleKeys.size === 0) return;
    // Deleting the entry being visited is safe while iterating a Map: no copy needed.
    for (const [level, key] of this.possibleSimpleKeys) {
      if (key.line !== this.line || this.index - key.index > 1024) {
        if (key.required) throw new MarkedError("while scanning a simple key", key.mark, "could not find expected ':'", this.mark());
        this.possibleSimpleKeys.delete(level);
      }
    }
  }

  private savePossibleSimpleKey(): void {
    const required = !this.flowLevel && this.indent === this.column;
    if (this.allowSimpleKey) {
      this.removePossibleSimpleKey();
      this.possibleSimpleKeys.set(this.flowLevel, {
        tokenNumber: this.tokensTaken + this.tokens.length,
        required,
        index: this.index,
        line: this.line,
        column: this.column,
        mark: this.mark(),
      });
    }
  }

  private removePossibleSimpleKey(): void {
    const key = this.possibleSimpleKeys.get(this.flowLevel);
    if (key) {
      if (key.required) throw new MarkedError("while scanning a simple key", key.mark, "could not find expected ':'", this.mark());
      this.possibleSimpleKeys.delete(this.flowLevel);
    }
  }

  // Indentation
  private unwindIndent(column: number): void {
    if (this.flowLevel) return;
    while (this.indent > column) {
      const mark = this.mark();
      this.indent = this.indents.pop() ?? -1;
      this.tokens.push(token("<block end>", mark, mark));
    }
  }

  private addIndent(column: number): boolean {
    if (this.indent < column) {
      this.indents.push(this.indent);
      this.indent = column;
      return true;
    }
    return false;
  }

  // Fetchers
  private fetchStreamEnd(): void {
    this.unwindIndent(-1);
    this.removePossibleSimpleKey();
    this.allowSimpleKey = false;
    this.possibleSimpleKeys = new Map();
    const mark = this.mark();
    this.tokens.push(token("<stream end>", mark, mark));
    this.done = true;
  }

  private fetchDirective(): void {
    this.unwindIndent(-1);
    this.removePossibleSimpleKey();
    this.allowSimpleKey = false;
    this.tokens.push(this.scanDirective());
  }

  private fetchDocumentIndicator(id: "<document start>" | "<document end>"): void {
    this.unwindIndent(-1);
    this.removePossibleSimpleKey();
    this.allowSimpleKey = false;
    const start = this.mark();
    this.forward(3);
    this.tokens.push(token(id, start, this.mark()));
  }

  private fetchFlowCollectionStart(id: "[" | "{", push: string): void {
    this.savePossibleSimpleKey();
    this.flowContext.push(push);
    this.allowSimpleKey = true;
    const start = this.mark();
    this.forward();
    this.tokens.push(token(id, start, this.mark()));
  }

  private fetchFlowCollectionEnd(id: "]" | "}"): void {
    this.removePossibleSimpleKey();
    this.flowContext.pop();
    this.allowSimpleKey = false;
    const start = this.mark();
    this.forward();
    this.tokens.push(token(id, start, this.mark()));
  }

  private fetchFlowEntry(): void {
    this.allowSimpleKey = true;
    this.removePossibleSimpleKey();
    const start = this.mark();
    this.forward();
    this.tokens.push(token(",", start, this.mark()));
  }

  private fetchBlockEntry(): void {
    if (!this.flowLevel) {
      if (!this.allowSimpleKey) throw new MarkedError(null, null, "sequence entries are not allowed here", this.mark());
      if (this.addIndent(this.column)) {
        const mark = this.mark();
        this.tokens.push(token("<block sequence start>", mark, mark));
      }
    }
    this.allowSimpleKey = true;
    this.removePossibleSimpleKey();
    const start = this.mark();
    this.forward();
    this.tokens.push(token("-", start, this.mark()));
  }

  private fetchKey(): void {
    if (!this.flowLevel) {
      if (!this.allowSimpleKey) throw new MarkedError(null, null, "mapping keys are not allowed here", this.mark());
      if (this.addIndent(this.column)) {
        const mark = this.mark();
        this.tokens.push(token("<block mapping start>", mark, mark));
      }
    }
    this.allowSimpleKey = !this.flowLevel;
    this.removePossibleSimpleKey();
    const start = this.mark();
    this.forward();
    this.tokens.push(token("?", start, this.mark()));
  }

  private fetchValue(): void {
    const key = this.possibleSimpleKeys.get(this.flowLevel);
    if (key) {
      this.possibleSimpleKeys.delete(this.flowLevel);
      this.tokens.splice(key.tokenNumber - this.tokensTaken, 0, token("?", key.mark, key.mark));
      if (!this.flowLevel && this.addIndent(key.column)) {
        this.tokens.splice(key.tokenNumber - this.tokensTaken, 0, token("<block mapping start>", key.mark, key.mark));
      }
      this.allowSimpleKey = false;
    } else {
      if (!this.flowLevel && !this.allowSimpleKey) throw new MarkedError(null, null, "mapping values are not allowed here", this.mark());
      if (!this.flowLevel && this.addIndent(this.column)) {
        const mark = this.mark();
        this.tokens.push(token("<block mapping start>", mark, mark));
      }
      this.allowSimpleKey = !this.flowLevel;
      this.removePossibleSimpleKey();
    }
    const start = this.mark();
    this.forward();
    this.tokens.push(token(":", start, this.mark()));
  }

  private fetchAnchorLike(id: "<alias>" | "<anchor>"): void {
    this.savePossibleSimpleKey();
    this.allowSimpleKey = false;
    this.tokens.push(this.scanAnchor(id));
  }

  private fetchTag(): void {
    this.savePossibleSimpleKey();
    this.allowSimpleKey = false;
    this.tokens.push(this.scanTag());
  }

  private fetchBlockScalar(style: "|" | ">"): void {
    this.allowSimpleKey = true;
    this.removePossibleSimpleKey();
    this.tokens.push(this.scanBlockScalar(style));
  }

  private fetchFlowScalar(style: "'" | '"'): void {
    this.savePossibleSimpleKey();
    this.allowSimpleKey = false;
    this.tokens.push(this.scanFlowScalar(style));
  }

  private fetchPlain(): void {
    this.savePossibleSimpleKey();
    this.allowSimpleKey = false;
    this.tokens.push(this.scanPlain());
  }

  // Checkers
  checkDocumentStart(): boolean {
    return this.column === 0 && this.prefix(3) === "---" && THE_END_SPACE_TAB.includes(this.peek(3));
  }
  checkDocumentEnd(): boolean {
    return this.column === 0 && this.prefix(3) === "..." && THE_END_SPACE_TAB.includes(this.peek(3));
  }
  private checkKey(): boolean {
    if (this.flowLevel) return true;
    return THE_END_SPACE_TAB.includes(this.peek(1));
  }
  private checkValue(): boolean {
    if (this.v11) {
      if (this.flowLevel) return true;
    } else if (this.flowLevel) {
      if (this.flowContext[this.flowContext.length - 1] === "[") {
        if (!THE_END_SPACE_TAB.includes(this.peek(1))) return false;
      } else if (this.tokens.length > 0 && this.tokens[this.tokens.length - 1]?.id === ":") {
        if (!THE_END_SPACE_TAB.includes(this.peek(1))) return false;
      }
      return true;
    }
    return THE_END_SPACE_TAB.includes(this.peek(1));
  }
  private checkPlain(): boolean {
    const ch = this.peek();
    const indicators = "\0 \t\r\n\x85\u2028\u2029-?:,[]{}#&*!|>'\"%@`";
    if (this.v11) {
      return !indicators.includes(ch) || (!THE_END_SPACE_TAB.includes(this.peek(1)) && (ch === "-" || (!this.flowLevel && "?:".includes(ch))));
    }
    if (!indicators.includes(ch)) return true;
    const ch1 = this.peek(1);
    if (ch === "-" && !THE_END_SPACE_TAB.includes(ch1)) return true;
    if (ch === ":" && this.flowLevel && !SPACE_TAB.includes(ch1)) return true;
    return !THE_END_SPACE_TAB.includes(ch1) && (ch === "-" || (!this.flowLevel && "?:".includes(ch)));
  }

  // Scanners
  /** RoundTripScanner.scan_to_next_token: comments and runs of empty lines come back as comments. */
  private scanToNextToken(): { start: Mark; end: Mark } | null {
    if (this.index === 0 && this.peek() === "\uFEFF") this.forward();
    for (;;) {
      while (this.peek() === " ") this.forward();
      let ch = this.peek();
      if (ch === "#") {
        const start = this.mark();
        this.forward();
        while (!THE_END.includes(ch)) {
          ch = this.peek();
          if (ch === "\0") break;
          this.forward();
        }
        let br = this.scanLineBreak();
        while (br.length > 0) br = this.scanLineBreak();
        const end = this.mark();
        if (!this.flowLevel) this.allowSimpleKey = true;
        return { start, end };
      }
      if (this.scanLineBreak() !== "") {
        let start = this.mark();
        if (!this.flowLevel) this.allowSimpleKey = true;
        ch = this.peek();
        if (ch === "\n") {
          start = this.mark();
          let br = ch;
          while (br) br = this.scanLineBreak(true);
          return { start, end: this.mark() };
        }
      } else {
        return null;
      }
    }
  }

  private scanLineBreak(emptyLine = false): string {
    const ch = this.peek();
    if ("\r\n\x85".includes(ch)) {
      if (this.prefix(2) === "\r\n") this.forward(2);
      else this.forward();
      return "\n";
    }
    if ("\u2028\u2029".includes(ch)) {
      this.forward();
      return ch;
    }
    if (emptyLine && "\t ".includes(ch)) {
      this.forward();
      return ch;
    }
    return "";
  }

  private scanDirective(): Token {
    const start = this.mark();
    this.forward();
    const name = this.scanDirectiveName(start);
    let value: unknown = null;
    let end: Mark;
    if (name === "YAML") {
      value = this.scanYamlDirectiveValue(start);
      end = this.mark();
    } else if (name === "TAG") {
      value = this.scanTagDirectiveValue(start);
      end = this.mark();
    } else {
      end = this.mark();
      while (!THE_END.includes(this.peek())) this.forward();
    }
    this.scanDirectiveIgnoredLine(start);
    return token("<directive>", start, end, { directive: { name, value } });
  }

  private scanDirectiveName(start: Mark): string {
    let length = 0;
    let ch = this.peek(length);
    while (isAsciiAlnum(ch) || "-_:.".includes(ch)) {
      length += 1;
      ch = this.peek(length);
    }
    if (!length) {
      throw new MarkedError("while scanning a directive", start, `expected alphabetic or numeric character, but found ${pythonRepr(ch)}`, this.mark());
    }
    const value = this.prefix(length);
    this.forward(length);
    ch = this.peek();
    if (!"\0 \r\n\x85\u2028\u2029".includes(ch)) {
      throw new MarkedError("while scanning a directive", start, `expected alphabetic or numeric character, but found ${pythonRepr(ch)}`, this.mark());
    }
    return value;
  }

  private scanYamlDirectiveValue(start: Mark): [number, number] {
    while (this.peek() === " ") this.forward();
    const major = this.scanYamlDirectiveNumber(start);
    if (this.peek() !== ".") {
      throw new MarkedError("while scanning a directive", start, `expected a digit or '.', but found ${pythonRepr(this.peek())}`, this.mark());
    }
    this.forward();
    const minor = this.scanYamlDirectiveNumber(start);
    if (!"\0 \r\n\x85\u2028\u2029".includes(this.peek())) {
      throw new MarkedError("while scanning a directive", start, `expected a digit or ' ', but found ${pythonRepr(this.peek())}`, this.mark());
    }
    this.yamlVersion = [major, minor];
    return this.yamlVersion;
  }

  private scanYamlDirectiveNumber(start: Mark): number {
    const ch = this.peek();
    if (!(ch >= "0" && ch <= "9")) {
      throw new MarkedError("while scanning a directive", start, `expected a digit, but found ${pythonRepr(ch)}`, this.mark());
    }
    let length = 0;
    while (this.peek(length) >= "0" && this.peek(length) <= "9") length += 1;
    const value = Number.parseInt(this.prefix(length), 10);
    this.forward(length);
    return value;
  }

  private scanTagDirectiveValue(start: Mark): [string, string] {
    while (this.peek() === " ") this.forward();
    const handle = this.scanTagHandle("directive", start);
    if (this.peek() !== " ") {
      throw new MarkedError("while scanning a directive", start, `expected ' ', but found ${pythonRepr(this.peek())}`, this.mark());
    }
    while (this.peek() === " ") this.forward();
    const prefix = this.scanTagUri("directive", start);
    if (!"\0 \r\n\x85\u2028\u2029".includes(this.peek())) {
      throw new MarkedError("while scanning a directive", start, `expected ' ', but found ${pythonRepr(this.peek())}`, this.mark());
    }
    return [handle, prefix];
  }

  private scanDirectiveIgnoredLine(start: Mark): void {
    while (this.peek() === " ") this.forward();
    if (this.peek() === "#") while (!THE_END.includes(this.peek())) this.forward();
    const ch = this.peek();
    if (!THE_END.includes(ch)) {
      throw new MarkedError("while scanning a directive", start, `expected a comment or a line break, but found ${pythonRepr(ch)}`, this.mark());
    }
    this.scanLineBreak();
  }

  private scanAnchor(id: "<alias>" | "<anchor>"): Token {
    const start = this.mark();
    const name = this.peek() === "*" ? "alias" : "anchor";
    this.forward();
    let length = 0;
    let ch = this.peek(length);
    while (isAnchorChar(ch)) {
      length += 1;
      ch = this.peek(length);
    }
    if (!length) {
      throw new MarkedError(`while scanning an ${name}`, start, `expected alphabetic or numeric character, but found ${pythonRepr(ch)}`, this.mark());
    }
    const value = this.prefix(length);
    this.forward(length);
    if (!"\0 \t\r\n\x85\u2028\u2029?:,[]{}%@`".includes(ch)) {
      throw new MarkedError(`while scanning an ${name}`, start, `expected alphabetic or numeric character, but found ${pythonRepr(ch)}`, this.mark());
    }
    return token(id, start, this.mark(), { value });
  }

  private scanTag(): Token {
    const start = this.mark();
    let ch = this.peek(1);
    let handle: string | null;
    let suffix: string;
    if (ch === "<") {
      handle = null;
      this.forward(2);
      suffix = this.scanTagUri("tag", start);
      if (this.peek() !== ">") {
        throw new MarkedError("while parsing a tag", start, `expected '>', but found ${pythonRepr(this.peek())}`, this.mark());
      }
      this.forward();
    } else if (THE_END_SPACE_TAB.includes(ch)) {
      handle = null;
      suffix = "!";
      this.forward();
    } else {
      let length = 1;
      let useHandle = false;
      while (!"\0 \r\n\x85\u2028\u2029".includes(ch)) {
        if (ch === "!") {
          useHandle = true;
          break;
        }
        length += 1;
        ch = this.peek(length);
      }
      if (useHandle) {
        handle = this.scanTagHandle("tag", start);
      } else {
        handle = "!";
        this.forward();
      }
      suffix = this.scanTagUri("tag", start);
    }
    ch = this.peek();
    if (!"\0 \r\n\x85\u2028\u2029".includes(ch)) {
      throw new MarkedError("while scanning a tag", start, `expected ' ', but found ${pythonRepr(ch)}`, this.mark());
    }
    return token("<tag>", start, this.mark(), { tag: [handle, suffix] });
  }

  private scanBlockScalar(style: "|" | ">"): Token {
    const folded = style === ">";
    const chunks: string[] = [];
    const start = this.mark();
    this.forward();
    const [chomping, increment] = this.scanBlockScalarIndicators(start);
    this.scanBlockScalarIgnoredLine(start);
    let minIndent = this.indent + 1;
    let indent: number;
    let breaks: string[];
    let end: Mark;
    if (increment === null) {
      // ruamel keeps min_indent 0 for a top-level `|` or `>` (the condition needs another style).
      const scanned = this.scanBlockScalarIndentation();
      breaks = scanned.chunks;
      end = scanned.end;
      indent = Math.max(minIndent, scanned.maxIndent);
    } else {
      if (minIndent < 1) minIndent = 1;
      indent = minIndent + increment - 1;
      const scanned = this.scanBlockScalarBreaks(indent);
      breaks = scanned.chunks;
      end = scanned.end;
    }
    let lineBreak = "";
    while (this.column === indent && this.peek() !== "\0") {
      chunks.push(...breaks);
      const leadingNonSpace = !" \t".includes(this.peek());
      let length = 0;
      while (!THE_END.includes(this.peek(length))) length += 1;
      chunks.push(this.prefix(length));
      this.forward(length);
      lineBreak = this.scanLineBreak();
      const scanned = this.scanBlockScalarBreaks(indent);
      breaks = scanned.chunks;
      end = scanned.end;
      if (minIndent === 0 && (this.checkDocumentStart() || this.checkDocumentEnd())) break;
      if (this.column === indent && this.peek() !== "\0") {
        // The round-trip scanner marks folds with \a and the constructor removes them again.
        if (folded && lineBreak === "\n" && leadingNonSpace && !" \t".includes(this.peek())) {
          if (breaks.length === 0) chunks.push(" ");
        } else {
          chunks.push(lineBreak);
        }
      } else {
        break;
      }
    }
    const trailing: string[] = [];
    if (chomping === null || chomping === true) chunks.push(lineBreak);
    if (chomping === true) chunks.push(...breaks);
    else trailing.push(...breaks);
    const result = token("<scalar>", start, end, { value: chunks.join(""), plain: false, style });
    if (trailing.length > 0) {
      // The round-trip scanner gathers the comments after a kept-apart trailing break here.
      while (this.scanToNextToken() !== null) {
        /* comments are not kept */
      }
    }
    return result;
  }

  private scanBlockScalarIndicators(start: Mark): [boolean | null, number | null] {
    let chomping: boolean | null = null;
    let increment: number | null = null;
    let ch = this.peek();
    if ("+-".includes(ch) && ch !== "") {
      chomping = ch === "+";
      this.forward();
      ch = this.peek();
      if ("0123456789".includes(ch) && ch !== "") {
        increment = Number(ch);
        if (increment === 0) {
          throw new MarkedError("while scanning a block scalar", start, "expected indentation indicator in the range 1-9, but found 0", this.mark());
        }
        this.forward();
      }
    } else if ("0123456789".includes(ch) && ch !== "") {
      increment = Number(ch);
      if (increment === 0) {
        throw new MarkedError("while scanning a block scalar", start, "expected indentation indicator in the range 1-9, but found 0", this.mark());
      }
      this.forward();
      ch = this.peek();
      if ("+-".includes(ch) && ch !== "") {
        chomping = ch === "+";
        this.forward();
      }
    }
    ch = this.peek();
    if (!"\0 \r\n\x85\u2028\u2029".includes(ch)) {
      throw new MarkedError("while scanning a block scalar", start, `expected chomping or indentation indicators, but found ${pythonRepr(ch)}`, this.mark());
    }
    return [chomping, increment];
  }

  private scanBlockScalarIgnoredLine(start: Mark): void {
    while (this.peek() === " ") this.forward();
    if (this.peek() === "#") while (!THE_END.includes(this.peek())) this.forward();
    const ch = this.peek();
    if (!THE_END.includes(ch)) {
      throw new MarkedError("while scanning a block scalar", start, `expected a comment or a line break, but found ${pythonRepr(ch)}`, this.mark());
    }
    this.scanLineBreak();
  }

  private scanBlockScalarIndentation(): { chunks: string[]; maxIndent: number; end: Mark } {
    const chunks: string[] = [];
    let maxIndent = 0;
    let end = this.mark();
    while (" \r\n\x85\u2028\u2029".includes(this.peek())) {
      if (this.peek() !== " ") {
        chunks.push(this.scanLineBreak());
        end = this.mark();
      } else {
        this.forward();
        if (this.column > maxIndent) maxIndent = this.column;
      }
    }
    return { chunks, maxIndent, end };
  }

  private scanBlockScalarBreaks(indent: number): { chunks: string[]; end: Mark } {
    const chunks: string[] = [];
    let end = this.mark();
    while (this.column < indent && this.peek() === " ") this.forward();
    while (LINE_BREAKS.includes(this.peek())) {
      chunks.push(this.scanLineBreak());
      end = this.mark();
      while (this.column < indent && this.peek() === " ") this.forward();
    }
    return { chunks, end };
  }

  private scanFlowScalar(style: "'" | '"'): Token {
    const double = style === '"';
    const chunks: string[] = [];
    const start = this.mark();
    const quote = this.peek();
    this.forward();
    chunks.push(...this.scanFlowScalarNonSpaces(double, start));
    while (this.peek() !== quote) {
      chunks.push(...this.scanFlowScalarSpaces(double, start));
      chunks.push(...this.scanFlowScalarNonSpaces(double, start));
    }
    this.forward();
    return token("<scalar>", start, this.mark(), { value: chunks.join(""), plain: false, style });
  }

  private scanFlowScalarNonSpaces(double: boolean, start: Mark): string[] {
    const chunks: string[] = [];
    for (;;) {
      let length = 0;
      while (!" \n'\"\\\0\t\r\x85\u2028\u2029".includes(this.peek(length))) length += 1;
      if (length !== 0) {
        chunks.push(this.prefix(length));
        this.forward(length);
      }
      let ch = this.peek();
      if (!double && ch === "'" && this.peek(1) === "'") {
        chunks.push("'");
        this.forward(2);
      } else if ((double && ch === "'") || (!double && '"\\'.includes(ch))) {
        chunks.push(ch);
        this.forward();
      } else if (double && ch === "\\") {
        this.forward();
        ch = this.peek();
        const replacement = Object.hasOwn(ESCAPE_REPLACEMENTS, ch) ? ESCAPE_REPLACEMENTS[ch] : undefined;
        const codeLength = Object.hasOwn(ESCAPE_CODES, ch) ? ESCAPE_CODES[ch] : undefined;
        if (replacement !== undefined) {
          chunks.push(replacement);
          this.forward();
        } else if (codeLength !== undefined) {
          this.forward();
          for (let k = 0; k < codeLength; k++) {
            if (!HEX.includes(this.peek(k))) {
              throw new MarkedError(
                "while scanning a double-quoted scalar",
                start,
                `expected escape sequence of ${codeLength} hexdecimal numbers, but found ${pythonRepr(this.peek(k))}`,
                this.mark(),
              );
            }
          }
          const code = Number.parseInt(this.prefix(codeLength), 16);
          if (code > 0x10ffff) throw new ReferenceCrash(`an escape \\${ch} names no Unicode character`);
          chunks.push(String.fromCodePoint(code));
          this.forward(codeLength);
        } else if ("\n\r\x85\u2028\u2029".includes(ch)) {
          this.scanLineBreak();
          chunks.push(...this.scanFlowScalarBreaks(start));
        } else {
          throw new MarkedError("while scanning a double-quoted scalar", start, `found unknown escape character ${pythonRepr(ch)}`, this.mark());
        }
      } else {
        return chunks;
      }
    }
  }

  private scanFlowScalarSpaces(_double: boolean, start: Mark): string[] {
    const chunks: string[] = [];
    let length = 0;
    while (" \t".includes(this.peek(length))) length += 1;
    const whitespaces = this.prefix(length);
    this.forward(length);
    const ch = this.peek();
    if (ch === "\0") {
      throw new MarkedError("while scanning a quoted scalar", start, "found unexpected end of stream", this.mark());
    } else if (LINE_BREAKS.includes(ch)) {
      const lineBreak = this.scanLineBreak();
      const breaks = this.scanFlowScalarBreaks(start);
      if (lineBreak !== "\n") chunks.push(lineBreak);
      else if (breaks.length === 0) chunks.push(" ");
      chunks.push(...breaks);
    } else {
      chunks.push(whitespaces);
    }
    return chunks;
  }

  private scanFlowScalarBreaks(start: Mark): string[] {
    const chunks: string[] = [];
    for (;;) {
      const prefix = this.prefix(3);
      if ((prefix === "---" || prefix === "...") && THE_END_SPACE_TAB.includes(this.peek(3))) {
        throw new MarkedError("while scanning a quoted scalar", start, "found unexpected document separator", this.mark());
      }
      while (" \t".includes(this.peek())) this.forward();
      if (LINE_BREAKS.includes(this.peek())) chunks.push(this.scanLineBreak());
      else return chunks;
    }
  }

  private scanPlain(): Token {
    // The text as one string and the end as numbers, made into a mark once: a chunk array and a
    // mark per word of a long description were most of what a check allocated.
    let text = "";
    const start = this.mark();
    let endIndex = -1;
    let endLine = 0;
    let endColumn = 0;
    let endPointer = 0;
    const indent = this.indent + 1;
    let spaces: string[] | null = [];
    for (;;) {
      let length = 0;
      if (this.peek() === "#") break;
      let ch: string;
      // ruamel's test, reordered so an ordinary character costs one lookup: `:` is part of the
      // scalar unless a space or the end follows (then it ends it in any context); `?` is part
      // of it except in a YAML 1.1 flow context; the rest end it at a space, a break or the
      // end, or at a flow indicator inside a flow collection.
      const buf = this.buf;
      const at = this.pointer;
      const flow = this.flowLevel !== 0;
      const v11 = this.v11;
      for (;;) {
        ch = buf[at + length] ?? "\0";
        if (ch === ":") {
          if (THE_END_SPACE_TAB.includes(buf[at + length + 1] ?? "\0")) break;
        } else if (ch === "?") {
          if (v11 && flow) break;
        } else if (THE_END_SPACE_TAB.includes(ch) || (flow && FLOW_INDICATORS.includes(ch))) {
          break;
        }
        length += 1;
      }
      if (this.flowLevel && ch === ":" && !"\0 \t\r\n\x85\u2028\u2029,[]{}".includes(this.peek(length + 1))) {
        this.forward(length);
        throw new MarkedError(
          "while scanning a plain scalar",
          start,
          "found unexpected ':'",
          this.mark(),
          "Please check http://pyyaml.org/wiki/YAMLColonInFlowContext for details.",
        );
      }
      if (length === 0) break;
      this.allowSimpleKey = false;
      if (spaces !== null) for (let i = 0; i < spaces.length; i++) text += spaces[i];
      text += this.prefix(length);
      this.forward(length);
      endIndex = this.index;
      endLine = this.line;
      endColumn = this.column;
      endPointer = this.pointer;
      spaces = this.scanPlainSpaces(indent);
      if (spaces === null || spaces.length === 0 || this.peek() === "#" || (!this.flowLevel && this.column < indent)) break;
    }
    const end = endIndex === -1 ? start : new Mark(this.buf, endIndex, endLine, endColumn, endPointer);
    return token("<scalar>", start, end, { value: text, plain: true, style: null });
  }

  /** null where ruamel returns None (a document marker after a break). */
  private scanPlainSpaces(_indent: number): string[] | null {
    const chunks: string[] = [];
    let length = 0;
    while (this.peek(length) === " ") length += 1;
    const whitespaces = this.prefix(length);
    this.forward(length);
    const ch = this.peek();
    if (LINE_BREAKS.includes(ch)) {
      const lineBreak = this.scanLineBreak();
      this.allowSimpleKey = true;
      let prefix = this.prefix(3);
      if ((prefix === "---" || prefix === "...") && THE_END_SPACE_TAB.includes(this.peek(3))) return null;
      const breaks: string[] = [];
      while (" \r\n\x85\u2028\u2029".includes(this.peek())) {
        if (this.peek() === " ") {
          this.forward();
        } else {
          breaks.push(this.scanLineBreak());
          prefix = this.prefix(3);
          if ((prefix === "---" || prefix === "...") && THE_END_SPACE_TAB.includes(this.peek(3))) return null;
        }
      }
      if (lineBreak !== "\n") chunks.push(lineBreak);
      else if (breaks.length === 0) chunks.push(" ");
      chunks.push(...breaks);
    } else if (whitespaces) {
      chunks.push(whitespaces);
    }
    return chunks;
  }

  private scanTagHandle(name: string, start: Mark): string {
    let ch = this.peek();
    if (ch !== "!") throw new MarkedError(`while scanning a ${name}`, start, `expected '!', but found ${pythonRepr(ch)}`, this.mark());
    let length = 1;
    ch = this.peek(length);
    if (ch !== " ") {
      while (isAsciiAlnum(ch) || "-_".includes(ch)) {
        length += 1;
        ch = this.peek(length);
      }
      if (ch !== "!") {
        this.forward(length);
        throw new MarkedError(`while scanning a ${name}`, start, `expected '!', but found ${pythonRepr(ch)}`, this.mark());
      }
      length += 1;
    }
    const value = this.prefix(length);
    this.forward(length);
    return value;
  }

  private scanTagUri(name: string, start: Mark): string {
    const chunks: string[] = [];
    let length = 0;
    let ch = this.peek(length);
    while (isAsciiAlnum(ch) || "-;/?:@&=+$,_.!~*'()[]%".includes(ch) || (!this.v11 && ch === "#")) {
      if (ch === "%") {
        chunks.push(this.prefix(length));
        this.forward(length);
        length = 0;
        chunks.push(this.scanUriEscapes(name, start));
      } else {
        length += 1;
      }
      ch = this.peek(length);
    }
    if (length !== 0) {
      chunks.push(this.prefix(length));
      this.forward(length);
    }
    if (chunks.length === 0) throw new MarkedError(`while parsing a ${name}`, start, `expected URI, but found ${pythonRepr(ch)}`, this.mark());
    return chunks.join("");
  }

  private scanUriEscapes(name: string, start: Mark): string {
    const bytes: number[] = [];
    const mark = this.mark();
    while (this.peek() === "%") {
      this.forward();
      for (let k = 0; k < 2; k++) {
        if (!HEX.includes(this.peek(k))) {
          throw new MarkedError(
            `while scanning a ${name}`,
            start,
            `expected URI escape sequence of 2 hexdecimal numbers, but found ${pythonRepr(this.peek(k))}`,
            this.mark(),
          );
        }
      }
      bytes.push(Number.parseInt(this.prefix(2), 16));
      this.forward(2);
    }
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(bytes));
    } catch {
      // Python's own decoder message names the byte and position; keep to the start of it.
      throw new MarkedError(`while scanning a ${name}`, start, "'utf-8' codec can't decode the escaped bytes", mark);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Parser (ruamel Parser/RoundTripParser, block context only: strictyaml refuses every flow
// collection at the moment the parser would enter one)

type EventType = "StreamStart" | "StreamEnd" | "DocumentStart" | "DocumentEnd" | "Alias" | "Scalar" | "SequenceStart" | "SequenceEnd" | "MappingStart" | "MappingEnd";

interface ParseEvent {
  type: EventType;
  start: Mark;
  end: Mark;
  anchor?: string | null;
  tag?: string | null;
  implicit?: [boolean, boolean];
  value?: string;
}

const DEFAULT_TAGS: Record<string, string> = { "!": "!", "!!": "tag:yaml.org,2002:" };

class Parser {
  private current: ParseEvent | null = null;
  private states: (() => ParseEvent)[] = [];
  private marks: Mark[] = [];
  private state: (() => ParseEvent) | null = () => this.parseStreamStart();
  private tagHandles: Record<string, string> = {};

  constructor(private readonly scanner: Scanner) {}

  checkEvent(...choices: EventType[]): boolean {
    if (this.current === null && this.state) this.current = this.state();
    if (this.current !== null) {
      if (choices.length === 0) return true;
      return choices.includes(this.current.type);
    }
    return false;
  }

  peekEvent(): ParseEvent {
    if (this.current === null && this.state) this.current = this.state();
    if (this.current === null) throw new ReferenceCrash("the YAML parser ran out of events");
    return this.current;
  }

  getEvent(): ParseEvent {
    const event = this.peekEvent();
    this.current = null;
    return event;
  }

  private popState(): () => ParseEvent {
    const state = this.states.pop();
    if (!state) throw new ReferenceCrash("the YAML parser lost its state");
    return state;
  }

  private parseStreamStart(): ParseEvent {
    const t = this.scanner.getToken();
    this.state = () => this.parseImplicitDocumentStart();
    return { type: "StreamStart", start: t.start, end: t.end };
  }

  private parseImplicitDocumentStart(): ParseEvent {
    if (!this.scanner.checkToken("<directive>", "<document start>", "<stream end>")) {
      this.tagHandles = { ...DEFAULT_TAGS };
      const t = this.scanner.peekToken();
      this.states.push(() => this.parseDocumentEnd());
      this.state = () => this.parseBlockNode();
      return { type: "DocumentStart", start: t.start, end: t.start };
    }
    return this.parseDocumentStart();
  }

  private parseDocumentStart(): ParseEvent {
    while (this.scanner.checkToken("<document end>")) this.scanner.getToken();
    if (!this.scanner.checkToken("<stream end>")) {
      const start = this.scanner.peekToken().start;
      this.processDirectives();
      if (!this.scanner.checkToken("<document start>")) {
        const t = this.scanner.peekToken();
        throw new MarkedError(null, null, `expected '<document start>', but found ${pythonRepr(t.id)}`, t.start);
      }
      const t = this.scanner.getToken();
      this.states.push(() => this.parseDocumentEnd());
      this.state = () => this.parseDocumentContent();
      return { type: "DocumentStart", start, end: t.end };
    }
    const t = this.scanner.getToken();
    this.state = null;
    return { type: "StreamEnd", start: t.start, end: t.end };
  }

  private parseDocumentEnd(): ParseEvent {
    const t = this.scanner.peekToken();
    let end = t.start;
    if (this.scanner.checkToken("<document end>")) end = this.scanner.getToken().end;
    this.state = this.scanner.v11 ? () => this.parseDocumentStart() : () => this.parseImplicitDocumentStart();
    return { type: "DocumentEnd", start: t.start, end };
  }

  private parseDocumentContent(): ParseEvent {
    if (this.scanner.checkToken("<directive>", "<document start>", "<document end>", "<stream end>")) {
      const event = emptyScalar(this.scanner.peekToken().start);
      this.state = this.popState();
      return event;
    }
    return this.parseBlockNode();
  }

  private processDirectives(): void {
    let version: unknown = null;
    this.tagHandles = {};
    while (this.scanner.checkToken("<directive>")) {
      const t = this.scanner.getToken();
      const directive = t.directive as { name: string; value: unknown };
      if (directive.name === "YAML") {
        if (version !== null) throw new MarkedError(null, null, "found duplicate YAML directive", t.start);
        const [major] = directive.value as [number, number];
        if (major !== 1) throw new MarkedError(null, null, "found incompatible YAML document (version 1.* is required)", t.start);
        version = directive.value;
      } else if (directive.name === "TAG") {
        const [handle, prefix] = directive.value as [string, string];
        if (Object.hasOwn(this.tagHandles, handle)) throw new MarkedError(null, null, `duplicate tag handle ${pythonRepr(handle)}`, t.start);
        this.tagHandles[handle] = prefix;
      }
    }
    for (const key of Object.keys(DEFAULT_TAGS)) {
      if (!Object.hasOwn(this.tagHandles, key)) this.tagHandles[key] = DEFAULT_TAGS[key] as string;
    }
  }

  private parseBlockNode(): ParseEvent {
    return this.parseNode(true, false);
  }

  private parseNode(block: boolean, indentlessSequence: boolean): ParseEvent {
    const s = this.scanner;
    if (s.checkToken("<alias>")) {
      const t = s.getToken();
      this.state = this.popState();
      return { type: "Alias", start: t.start, end: t.end, anchor: t.value ?? "" };
    }
    // An anchor or a tag is refused by checkToken before anything else can happen to it.
    s.checkToken("<anchor>");
    s.checkToken("<tag>");
    const start = s.peekToken().start;
    let end = start;
    if (indentlessSequence && s.checkToken("-")) {
      end = s.peekToken().end;
      this.state = () => this.parseIndentlessSequenceEntry();
      return { type: "SequenceStart", start, end, anchor: null, tag: null };
    }
    if (s.checkToken("<scalar>")) {
      const t = s.getToken();
      end = t.end;
      const implicit: [boolean, boolean] = t.plain ? [true, false] : [false, true];
      this.state = this.popState();
      return { type: "Scalar", start, end, anchor: null, tag: null, implicit, value: t.value ?? "" };
    }
    // Refused here by strictyaml: `[` and `{`.
    s.checkToken("[");
    s.checkToken("{");
    if (block && s.checkToken("<block sequence start>")) {
      end = s.peekToken().start;
      this.state = () => this.parseBlockSequenceFirstEntry();
      return { type: "SequenceStart", start, end, anchor: null, tag: null };
    }
    if (block && s.checkToken("<block mapping start>")) {
      end = s.peekToken().start;
      this.state = () => this.parseBlockMappingFirstKey();
      return { type: "MappingStart", start, end, anchor: null, tag: null };
    }
    const t = s.peekToken();
    throw new MarkedError(`while parsing a ${block ? "block" : "flow"} node`, start, `expected the node content, but found ${pythonRepr(t.id)}`, t.start);
  }

  private parseBlockSequenceFirstEntry(): ParseEvent {
    this.marks.push(this.scanner.getToken().start);
    return this.parseBlockSequenceEntry();
  }

  private parseBlockSequenceEntry(): ParseEvent {
    const s = this.scanner;
    if (s.checkToken("-")) {
      const t = s.getToken();
      if (!s.checkToken("-", "<block end>")) {
        this.states.push(() => this.parseBlockSequenceEntry());
        return this.parseBlockNode();
      }
      this.state = () => this.parseBlockSequenceEntry();
      return emptyScalar(t.end);
    }
    if (!s.checkToken("<block end>")) {
      const t = s.peekToken();
      throw new MarkedError("while parsing a block collection", this.marks[this.marks.length - 1] ?? null, `expected <block end>, but found ${pythonRepr(t.id)}`, t.start);
    }
    const t = s.getToken();
    this.state = this.popState();
    this.marks.pop();
    return { type: "SequenceEnd", start: t.start, end: t.end };
  }

  private parseIndentlessSequenceEntry(): ParseEvent {
    const s = this.scanner;
    if (s.checkToken("-")) {
      const t = s.getToken();
      if (!s.checkToken("-", "?", ":", "<block end>")) {
        this.states.push(() => this.parseIndentlessSequenceEntry());
        return this.parseBlockNode();
      }
      this.state = () => this.parseIndentlessSequenceEntry();
      return emptyScalar(t.end);
    }
    const t = s.peekToken();
    this.state = this.popState();
    return { type: "SequenceEnd", start: t.start, end: t.start };
  }

  private parseBlockMappingFirstKey(): ParseEvent {
    this.marks.push(this.scanner.getToken().start);
    return this.parseBlockMappingKey();
  }

  private parseBlockMappingKey(): ParseEvent {
    const s = this.scanner;
    if (s.checkToken("?")) {
      const t = s.getToken();
      if (!s.checkToken("?", ":", "<block end>")) {
        this.states.push(() => this.parseBlockMappingValue());
        return this.parseNode(true, true);
      }
      this.state = () => this.parseBlockMappingValue();
      return emptyScalar(t.end);
    }
    if (!s.v11 && s.checkToken(":")) {
      this.state = () => this.parseBlockMappingValue();
      return emptyScalar(s.peekToken().start);
    }
    if (!s.checkToken("<block end>")) {
      const t = s.peekToken();
      throw new MarkedError("while parsing a block mapping", this.marks[this.marks.length - 1] ?? null, `expected <block end>, but found ${pythonRepr(t.id)}`, t.start);
    }
    const t = s.getToken();
    this.state = this.popState();
    this.marks.pop();
    return { type: "MappingEnd", start: t.start, end: t.end };
  }

  private parseBlockMappingValue(): ParseEvent {
    const s = this.scanner;
    if (s.checkToken(":")) {
      let t = s.getToken();
      if (!s.checkToken(":")) s.checkToken("?");
      if (!s.checkToken("?", ":", "<block end>")) {
        this.states.push(() => this.parseBlockMappingKey());
        return this.parseNode(true, true);
      }
      this.state = () => this.parseBlockMappingKey();
      // ruamel takes the next token's end as the empty value's mark when this one has no comment.
      t = s.peekToken();
      return emptyScalar(t.end);
    }
    this.state = () => this.parseBlockMappingKey();
    return emptyScalar(s.peekToken().start);
  }
}

function emptyScalar(mark: Mark): ParseEvent {
  return { type: "Scalar", start: mark, end: mark, anchor: null, tag: null, implicit: [true, false], value: "" };
}

// ---------------------------------------------------------------------------------------------
// Composer + strictyaml's constructor

interface ScalarNode {
  kind: "scalar";
  tag: string;
  value: string;
  start: Mark;
  end: Mark;
}
interface SequenceNode {
  kind: "sequence";
  items: YamlNode[];
  start: Mark;
  end: Mark;
}
interface MappingNode {
  kind: "mapping";
  pairs: [YamlNode, YamlNode][];
  start: Mark;
  end: Mark;
}
type YamlNode = ScalarNode | SequenceNode | MappingNode;

class Composer {
  constructor(private readonly parser: Parser) {}

  getSingleNode(): YamlNode | null {
    this.parser.getEvent();
    let document: YamlNode | null = null;
    if (!this.parser.checkEvent("StreamEnd")) document = this.composeDocument();
    if (!this.parser.checkEvent("StreamEnd")) {
      const event = this.parser.getEvent();
      throw new MarkedError("expected a single document in the stream", document?.start ?? null, "but found another document", event.start);
    }
    this.parser.getEvent();
    return document;
  }

  private composeDocument(): YamlNode {
    this.parser.getEvent();
    const node = this.composeNode();
    this.parser.getEvent();
    return node;
  }

  private composeNode(): YamlNode {
    if (this.parser.checkEvent("Alias")) {
      const event = this.parser.getEvent();
      // strictyaml refuses every anchor, so every alias is undefined.
      throw new MarkedError(null, null, `found undefined alias ${pythonRepr(event.anchor ?? "")}`, event.start);
    }
    if (this.parser.checkEvent("Scalar")) {
      const event = this.parser.getEvent();
      const value = event.value ?? "";
      const tag = event.implicit?.[0] && value === "<<" ? "merge" : "str";
      return { kind: "scalar", tag, value, start: event.start, end: event.end };
    }
    if (this.parser.checkEvent("SequenceStart")) {
      const start = this.parser.getEvent();
      const items: YamlNode[] = [];
      while (!this.parser.checkEvent("SequenceEnd")) items.push(this.composeNode());
      const end = this.parser.getEvent();
      return { kind: "sequence", items, start: start.start, end: end.end };
    }
    if (this.parser.checkEvent("MappingStart")) {
      const start = this.parser.getEvent();
      const pairs: [YamlNode, YamlNode][] = [];
      while (!this.parser.checkEvent("MappingEnd")) {
        const key = this.composeNode();
        const value = this.composeNode();
        pairs.push([key, value]);
      }
      const end = this.parser.getEvent();
      return { kind: "mapping", pairs, start: start.start, end: end.end };
    }
    throw new ReferenceCrash("the YAML composer met an unexpected event");
  }
}

const MERGE_NOTE =
  "\nTo suppress this check see:\n   http://yaml.readthedocs.io/en/latest/api.html#duplicate-keys\n\n" +
  "Duplicate keys will become an error in future releases, and are errors\nby default when using the new API.\n";

/** strictyaml's constructor: every scalar is text; duplicate keys and uneven sibling mappings refused. */
function construct(node: YamlNode): StrictValue {
  if (node.kind === "scalar") return node.tag === "merge" ? new MergeMarker() : node.value;
  if (node.kind === "sequence") return node.items.map(construct);
  // Merge keys are taken out first (ruamel's flatten_mapping); strictyaml keeps none of their keys.
  let merged = false;
  const pairs: [YamlNode, YamlNode][] = [];
  for (const [key, value] of node.pairs) {
    if (key.kind === "scalar" && key.tag === "merge") {
      if (merged) throw new MarkedError("while constructing a mapping", node.start, 'found duplicate key "<<"', key.start, MERGE_NOTE);
      if (value.kind === "mapping") {
        construct(value);
      } else if (value.kind === "sequence") {
        for (const sub of value.items) {
          if (sub.kind !== "mapping") {
            throw new MarkedError("while constructing a mapping", node.start, `expected a mapping for merging, but found ${sub.kind}`, sub.start);
          }
          construct(sub);
        }
      } else {
        throw new MarkedError("while constructing a mapping", node.start, `expected a mapping or list of mappings for merging, but found ${value.kind}`, value.start);
      }
      merged = true;
      continue;
    }
    pairs.push([key, value]);
  }
  const map: StrictMap = new Map();
  for (const [keyNode, valueNode] of pairs) {
    const key = construct(keyNode);
    if (typeof key !== "string") {
      if (Array.isArray(key)) throw new ReferenceCrash("a mapping key that is a list is not allowed (the reference fails on it)");
      throw new MarkedError("while constructing a mapping", node.start, "found unhashable key", keyNode.start);
    }
    const value = construct(valueNode);
    if (map.has(key)) throw new MarkedError("While parsing", keyNode.start, `Duplicate key '${key}' found`, keyNode.end);
    map.set(key, value);
  }
  let column: number | null = null;
  for (const [, valueNode] of pairs) {
    if (valueNode.kind !== "mapping") continue;
    if (column === null) column = valueNode.start.column;
    if (valueNode.start.column !== column) {
      throw new MarkedError("While parsing", valueNode.start, "Found mapping with indentation inconsistent with previous mapping", valueNode.end);
    }
  }
  return map;
}

// ruamel's Reader refuses these before scanning; strictyaml then fails on the error's missing
// marks, so the reference prints a traceback rather than a message.
const NON_PRINTABLE = /[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/** Loads frontmatter text the way `strictyaml.load` does (the reference's parser). */
export function loadStrictYaml(text: string): StrictYamlResult {
  const bad = NON_PRINTABLE.exec(text);
  if (bad) {
    const code = bad[0].codePointAt(0) ?? 0;
    const before = text.slice(0, bad.index).split("\n");
    const where = `line ${before.length}, column ${[...(before.at(-1) ?? "")].length + 1}`;
    return { ok: false, crash: `control character U+${code.toString(16).toUpperCase().padStart(4, "0")} at ${where} is not allowed in YAML` };
  }
  try {
    const scanner = new Scanner(text);
    const node = new Composer(new Parser(scanner)).getSingleNode();
    if (node === null) return { ok: true, value: null };
    return { ok: true, value: construct(node) };
  } catch (error) {
    if (error instanceof MarkedError) return { ok: false, message: error.text() };
    if (error instanceof ReferenceCrash) return { ok: false, crash: error.message };
    if (error instanceof RangeError) return { ok: false, crash: "it is nested too deeply" };
    throw error;
  }
}

/**
 * Why the reference would refuse this frontmatter's YAML, in one line, or null when it reads it.
 * For the loader's warning: the skill loads, but `validate` (and the reference) will say this.
 * `firstLine` is the SKILL.md line the text starts on.
 */
export function strictYamlProblem(text: string, firstLine = 1): string | null {
  const refusal = leadingFlowRefusal(text);
  if (refusal !== null) return `${FLOW_REFUSAL} (SKILL.md line ${refusal.line + firstLine}, column ${refusal.column + 2})`;
  return problemLine(loadStrictYaml(text), firstLine);
}

const FLOW_REFUSAL = "Found ugly disallowed JSONesque flow mapping (surround with ' and ' to make text appear literally)";

/** The one line `strictYamlProblem` makes of a full read's result (exported for the test that holds its shortcut to the full read). */
export function problemLine(result: StrictYamlResult, firstLine = 1): string | null {
  if (result.ok) return null;
  if (result.crash !== undefined) return result.crash;
  const lines = result.message.split("\n");
  // The problem is the last line that is neither a mark (`  in ...`) nor a snippet under one.
  const problem = lines.filter((line) => line !== "" && !line.startsWith(" ")).at(-1) ?? lines[0] ?? "";
  const marks = [...result.message.matchAll(/line (\d+), column (\d+):/g)];
  const where = marks.at(-1);
  return where ? `${problem} (SKILL.md line ${Number(where[1]) + firstLine - 1}, column ${where[2]})` : problem;
}

/** A flow item the scanner reads without complaint: plain ordinary characters, or quoted without escapes. */
const ITEM = String.raw`(?:[A-Za-z0-9_./+][A-Za-z0-9_./+ -]*?|"[^"\\]*"|'[^']*')`;
/**
 * The line holding the first flow collection: `key: [items]` or `key: {key: item, ...}` at any
 * indentation, with nothing after it.
 */
const FLOW_LINE = new RegExp(
  String.raw`^ *[A-Za-z_][A-Za-z0-9_-]*: +(?:\[ *(?:${ITEM}(?: *, *${ITEM})*)? *\]|\{ *(?:[A-Za-z_][A-Za-z0-9_-]*: +${ITEM}(?: *, *[A-Za-z_][A-Za-z0-9_-]*: +${ITEM})*)? *\}) *$`,
);
/** What the line after it may be: blank, or a key (of a mapping or a list item) the scanner starts reading. */
const NEXT_LINE = /^ *$|^ *(?:- +)?[A-Za-z_][A-Za-z0-9_-]*:(?: |$)/;
/** A block scalar's header (`key: |`, `key: >-`). */
const BLOCK_SCALAR = /: +[|>]/;
/**
 * A block scalar header that is not a bare one (`|`, `>-`, `|+` and the end of the line): an
 * indentation indicator, whose count the content must then match, or text after it.
 */
const UNUSUAL_BLOCK_HEADER = /: +[|>](?![-+]? *$)/m;
const POSITION_TEXT = /line \d+, column \d+:/;
/**
 * Characters, escapes and comments this shortcut leaves to the full reader. Of the escapes only
 * `\"` and `\\` pass (real descriptions often quote a phrase this way): the reference's
 * scanner takes both in a double-quoted scalar, and outside one a backslash is plain text.
 */
const NOT_SIMPLE = /\\(?!["\\])|[&*!\t\r\uFEFF\u0085\u2028\u2029\uD800-\uDFFF]|<<|(?:^|\s)#/;

/**
 * strictyaml's refusal of the first flow collection (`tags: [a, b]`, a fifth of real
 * frontmatter), without scanning the document token by token, for the shape where the outcome
 * is certain: the text up to that line is plain block YAML that the lenient fast tier reads
 * (key lines, block lists, nested mappings, one-line quoted scalars, folded plain scalars, bare
 * block scalars when the collection is a top-level key; no comment, tab, anchor, tag, alias or
 * escape other than `\"` and `\\`), the line is `key: [simple items]` (or
 * `{key: item}`), and the line after it is blank or starts with a key. The reader then fails
 * exactly there, when its parser first looks at the collection: what the scanner reads ahead
 * before that (the rest of the line and the first token of the next) holds nothing it could
 * refuse. Returns where the collection opens (0-based line and code-point column, which the
 * text before it, free of surrogates, makes its UTF-16 offset), or null to ask the full reader.
 * A differential test holds it to the full reader's answer.
 */
function leadingFlowRefusal(text: string): { line: number; column: number } | null {
  const open = text.search(/[[{]/);
  if (open === -1) return null;
  const lineStart = text.lastIndexOf("\n", open) + 1;
  let lineEnd = text.indexOf("\n", open);
  if (lineEnd === -1) lineEnd = text.length;
  let nextEnd = text.indexOf("\n", lineEnd + 1);
  if (nextEnd === -1) nextEnd = text.length;
  const next = lineEnd < text.length ? text.slice(lineEnd + 1, nextEnd) : "";
  if (NOT_SIMPLE.test(text.slice(0, nextEnd)) || NON_PRINTABLE.test(text)) return null;
  const flowLine = text.slice(lineStart, lineEnd);
  // Text on that line that reads like a position would be taken for the reader's mark by
  // `problemLine`, which the full reader's message then decides.
  if (!FLOW_LINE.test(flowLine) || POSITION_TEXT.test(flowLine) || !NEXT_LINE.test(next)) return null;
  // A block scalar above is fine when the collection's line is a top-level key: a line at
  // column 0 always ends a block scalar (its text is indented at least one space), in the
  // reference's scanner as in the fast tier.
  const before = text.slice(0, lineStart);
  if (BLOCK_SCALAR.test(before) && (flowLine.startsWith(" ") || UNUSUAL_BLOCK_HEADER.test(before))) return null;
  // Everything through the collection's line, read by the fast tier: a structure it takes is one
  // the reference's scanner and parser also take, with the collection a value where it stands
  // (not, say, text folded into a plain scalar above it).
  if (parseFlat(text.slice(0, lineEnd + 1)) === null) return null;
  let line = 0;
  for (let at = text.indexOf("\n"); at !== -1 && at < lineStart; at = text.indexOf("\n", at + 1)) line += 1;
  return { line, column: open - lineStart };
}
