/**
 * ruamel's Reader, Scanner and RoundTripScanner, and strictyaml's `check_token`, step for step:
 * the text of an error depends on exactly when each token is fetched.
 */
import { MarkedError, ReferenceCrash, pythonRepr } from "./error-text.js";
import { LINE_BREAKS, Mark, SPACE_TAB, THE_END, THE_END_SPACE_TAB, sliceText, type CodePoints } from "./marks.js";

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

export class Scanner {
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
