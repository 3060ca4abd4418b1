/**
 * Safe YAML for frontmatter (SPEC §1): unique keys, bounded aliases and depth, no tag that
 * constructs code.
 *
 * Two tiers, both giving YAML 1.2 core-schema results:
 * 1. A fast path for the common shape (scalar lines with the core schema's types, simple block
 *    scalars, folded plain and quoted scalars, lists of scalars or mappings, nested maps) — all
 *    but about one in a thousand real frontmatters, so a fresh process rarely imports `yaml`. It
 *    accepts only text whose meaning is unambiguous and hands anything else down, so it can
 *    never read a document differently from a real parser (property tests check that against
 *    `yaml`).
 * 2. `yaml` for everything else, with `maxAliasCount` (a "billion laughs" document fails fast),
 *    unique keys, and unknown tags refused. One full parser, so the rare document that needs
 *    it is read exactly one way; js-yaml is faster but reads whitespace-only lines of block
 *    scalars differently, and a skill must not mean two things.
 */
import { Buffer } from "node:buffer";
import { createRequire } from "node:module";
import type * as Yaml from "yaml";
import { MAX_YAML_ALIASES, MAX_YAML_DEPTH } from "./limits.js";
import { setOwnProperty } from "./own-property.js";

let fullParser: typeof Yaml | null = null;

/**
 * The `yaml` package, loaded on first need: importing it costs ~35 ms, which every CLI run and
 * every parse worker paid at start-up although the fast tier reads nearly every real
 * frontmatter without it. Its Node build is CommonJS, so it loads synchronously here. The one
 * way in for every user of the package: a dynamic `import()` of it, bundled into the command,
 * gave a module whose only export was `default`, so its named functions were undefined.
 */
export function yamlLibrary(): typeof Yaml {
  return (fullParser ??= createRequire(import.meta.url)("yaml") as typeof Yaml);
}

export type YamlResult =
  | {
      ok: true;
      /** Plain data only: null, booleans, numbers, strings, arrays and plain objects, no cycles. */
      value: unknown;
      /** Typed values (`!!binary`, `!!timestamp`, `!!omap`, `!!set`) read as plain data, one note each. */
      converted?: string[];
    }
  | { ok: false; message: string; /** 0-based line within the frontmatter, when known */ line?: number };

export function parseYaml(text: string): YamlResult {
  const fast = parseFlat(text);
  if (fast) return { ok: true, value: fast };
  const result = parseWithYaml(text);
  if (!result.ok) return result;
  return toPlainData(result.value);
}

/**
 * Quotes plain scalars that contain `: ` — the most common authoring mistake
 * (`description: Use when: the user asks`). Handles keys at any indentation (a `metadata:`
 * entry) and plain values wrapped onto more-indented lines, which YAML folds into one line
 * with single spaces; a ` #` comment stays a comment. Returns null when no line needed it, so
 * the caller knows a retry would change nothing.
 */
export function quotePlainScalarsWithColons(text: string): string | null {
  const lines = text.split("\n");
  const out: string[] = [];
  let changed = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const m = /^( *)([A-Za-z0-9_-]+):[ \t]+(.*?)(\r?)$/.exec(line);
    // A key with nothing after it opens a nested mapping or list: its lines are keys of their
    // own, read on their own, never the continuation of an empty value.
    if (!m || m[3] === "" || /^["'[{&*!%@`#]/.test(m[3]!)) {
      out.push(line);
      continue;
    }
    const indent = m[1]!.length;
    if (m[3]!.startsWith("|") || m[3]!.startsWith(">")) {
      // A block scalar's lines are its text, kept as written: "Format: type: summary" there is
      // prose, and quoting it would change what the skill says.
      out.push(line);
      while (i + 1 < lines.length && (lines[i + 1]!.trim() === "" || indentAt(lines[i + 1]!, 0) > indent)) out.push(lines[++i]!);
      continue;
    }
    const parts = [m[3]!];
    let j = i + 1;
    while (j < lines.length && lines[j]!.trim() !== "" && indentAt(lines[j]!, 0) > indent) {
      parts.push(lines[j]!.trim());
      j++;
    }
    let value = parts.map((p) => p.trim()).join(" ");
    let comment = "";
    const hash = value.indexOf(" #");
    if (hash !== -1) {
      comment = value.slice(hash);
      value = value.slice(0, hash).trimEnd();
    }
    if (!value.includes(": ")) {
      out.push(line);
      continue;
    }
    changed = true;
    out.push(`${m[1]}${m[2]}: "${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"${comment}${m[4]}`);
    i = j - 1;
  }
  return changed ? out.join("\n") : null;
}

/*
 * The fast tier reads the frontmatter in place, line by line through positions in the one
 * string, rather than splitting it into an array of line strings: a cold load runs this once per
 * skill, mostly before the code is optimised, and a string and an object per line were most of
 * what parsing a frontmatter allocated. The readers below hand back what they read through these
 * three variables, which each caller reads at once.
 */
/** The key and the value of the last line `readKeyLine` accepted. */
let lineKey = "";
let lineValue = "";
/** Where the last block scalar or nested mapping ended: the start of the line after it. */
let readTo = 0;

/** Where the line starting at `pos` ends: its `\n`, or the end of the text. */
function lineEnd(text: string, pos: number): number {
  const end = text.indexOf("\n", pos);
  return end === -1 ? text.length : end;
}

/**
 * Reads the line [`from`, `end`) as a `key: value` line whose key starts at `from`, as the pattern
 * `^([A-Za-z_][A-Za-z0-9_-]*):(?:[ ]+(.*?))?[ ]*\r?$` reads it: the value without its trailing
 * blanks and line-end `\r`, "" when there is none. The key is matched, the tail scanned by hand,
 * because that lazy pattern retries its tail at every character of a 400-character description,
 * which made it the largest single cost of loading a skill. A value holding a character the
 * pattern's `.` refuses (a lone `\r`, U+2028, U+2029) is handed on and refused by `flatScalar`,
 * so the document goes to the full parser exactly as a failed match sent it.
 */
function readKeyLine(text: string, from: number, end: number): boolean {
  // The key and its colon by a sticky `test`, which allocates no match: one native call where a
  // character loop cost a dozen interpreted steps per key until the code was optimised. Neither
  // part matches a `\n`, so the match cannot run past the line.
  KEY_AND_COLON.lastIndex = from;
  if (!KEY_AND_COLON.test(text)) return false;
  const colon = KEY_AND_COLON.lastIndex - 1;
  lineKey = commonKey(text, from, colon) ?? text.slice(from, colon);
  if (text.charCodeAt(end - 1) === 13) end--;
  while (end > colon + 1 && text.charCodeAt(end - 1) === 32) end--;
  let start = colon + 1;
  // `key:` then nothing but blanks (and the `\r`): no value.
  if (start >= end) {
    lineValue = "";
    return true;
  }
  // `key:value` with no blank after the colon is not a key line for this tier.
  if (text.charCodeAt(start) !== 32) return false;
  while (start < end && text.charCodeAt(start) === 32) start++;
  lineValue = text.slice(start, end);
  return true;
}

const KEY_AND_COLON = /[A-Za-z_][A-Za-z0-9_-]*:/y;

/**
 * A key the core schema reads as null or a boolean (`Null: x` has the key "", `True: x` the key
 * "true"), which this tier would keep as written. Only four- and five-letter keys can be one.
 */
function isNonStringKey(key: string): boolean {
  if (key.length === 4) return key === "null" || key === "Null" || key === "NULL" || key === "true" || key === "True" || key === "TRUE";
  return key.length === 5 && (key === "false" || key === "False" || key === "FALSE");
}

/**
 * The standard's own keys, as the literal strings: a slice is a new string per skill, and one
 * used as a property name is then looked up in V8's string table to be stored. Told apart by
 * length first, so a line costs one comparison, not one per key.
 */
function commonKey(text: string, from: number, end: number): string | undefined {
  switch (end - from) {
    case 4:
      return text.startsWith("name", from) ? "name" : undefined;
    case 7:
      return text.startsWith("license", from) ? "license" : undefined;
    case 8:
      return text.startsWith("metadata", from) ? "metadata" : undefined;
    case 11:
      return text.startsWith("description", from) ? "description" : undefined;
    case 13:
      return text.startsWith("compatibility", from) ? "compatibility" : text.startsWith("allowed-tools", from) ? "allowed-tools" : undefined;
    default:
      return undefined;
  }
}

/** What a regex `.` does not match, besides the `\n` that ends a line. */
const NOT_DOT = /[\r\u2028\u2029]/;
// Plain scalars that the core schema reads as something other than a string: exactly its null,
// boolean, integer and float patterns, so `version: 1.2.0` (a string to it) stays text.
const NON_STRING =
  /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?)$/;
const BLOCK_HEADER = /^([|>])(-?)$/;

/** Nesting the fast tier reads itself; deeper documents go to the full parser. */
const FAST_DEPTH = 6;

/** What a reader below returns for "not mine": every other value, `null` included, is data. */
const REFUSED: unique symbol = Symbol("refused");
type Read<T> = T | typeof REFUSED;

/**
 * The value the core schema gives a plain scalar that `NON_STRING` matched, computed as `yaml`
 * computes it (its core tags, in its order): `user-invocable: true`, `version: 2.0` and
 * `skills_count: 28` are a boolean and numbers there, and one was refused here and cost a
 * fresh process the import of `yaml`.
 */
function coreScalar(raw: string): null | boolean | number {
  switch (raw) {
    case "~":
    case "null":
    case "Null":
    case "NULL":
      return null;
    case "true":
    case "True":
    case "TRUE":
      return true;
    case "false":
    case "False":
    case "FALSE":
      return false;
  }
  const second = raw.charCodeAt(1);
  if (raw.charCodeAt(0) === 48 && second === 111) return parseInt(raw.slice(2), 8);
  if (raw.charCodeAt(0) === 48 && second === 120) return parseInt(raw.slice(2), 16);
  if (DECIMAL_INT.test(raw)) return parseInt(raw, 10);
  if (raw.endsWith("nan") || raw.endsWith("NaN") || raw.endsWith("NAN")) return NaN;
  if (raw.endsWith("inf") || raw.endsWith("Inf") || raw.endsWith("INF")) return raw.charCodeAt(0) === 45 ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  return parseFloat(raw);
}

const DECIMAL_INT = /^[-+]?[0-9]+$/;

/** A plain scalar's value: text, or what the core schema makes of it. */
function plainScalar(raw: string): string | null | boolean | number {
  return NON_STRING.test(raw) ? coreScalar(raw) : raw;
}

/**
 * The fast tier: block mappings (any nesting up to FAST_DEPTH) whose values are one-line plain or
 * quoted scalars (text, or the core schema's null, booleans and numbers), plain and quoted
 * scalars folded over more-indented lines, a plain scalar starting on the line after its key,
 * an empty value (null), block scalars (`|`, `|-`, `>`, `>-`, blank lines inside, no
 * more-indented lines), block lists of such scalars or of mappings (`- matcher: x`), one-line
 * flow lists (`[a, "b"]`) and flow mappings of such scalars (`{a: b}`) — what real frontmatter
 * writes. Returns null — "not mine, ask a real parser" — for anything else, so it never has to
 * know YAML's harder corners.
 */
export function parseFlat(text: string): Record<string, unknown> | null {
  // A `\r` ending the text is no CRLF: YAML keeps it in the value, which this tier does not.
  if (text.charCodeAt(text.length - 1) === 13) return null;
  const out = readMapping(text, 0, 0, 0, -1);
  // Stopped early: a line indented less than nothing cannot be, so something was not read.
  if (out === null || readTo < text.length) return null;
  // An empty document is null in YAML, not an empty mapping; let a real parser say so.
  return hasKeys(out) ? out : null;
}

function hasKeys(value: Record<string, unknown>): boolean {
  for (const key in value) if (Object.hasOwn(value, key)) return true;
  return false;
}

/**
 * The entries of a block mapping whose keys sit at column `indent`, from `pos` to the first line
 * indented less. The top level (`indent` 0) skips blank and `#` comment lines; nested levels
 * skip empty and space-only lines and hand anything else odd down. `firstKey`, when not -1, is
 * where the first key stands on the line at `pos`: a mapping that is a list item starts on its
 * `- ` line. Sets `readTo`.
 */
function readMapping(text: string, pos: number, indent: number, depth: number, firstKey: number): Record<string, unknown> | null {
  if (depth > FAST_DEPTH) return null;
  const out: Record<string, unknown> = {};
  while (pos < text.length) {
    const end = lineEnd(text, pos);
    let keyAt = firstKey;
    if (keyAt !== -1) firstKey = -1;
    else {
      if (indent === 0 ? isBlankRange(text, pos, end) || text.charCodeAt(pos) === 35 : isSpacesRange(text, pos, end)) {
        pos = end + 1;
        continue;
      }
      if (indent > 0) {
        const n = indentAt(text, pos);
        if (n < indent) break;
        if (n > indent) return null;
      }
      keyAt = pos + indent;
    }
    if (!readKeyLine(text, keyAt, end)) return null;
    const key = lineKey;
    const raw = lineValue;
    if (Object.hasOwn(out, key) || key === "__proto__" || isNonStringKey(key)) return null;
    pos = end + 1;
    const value = raw === "" ? readNested(text, pos, indent, depth) : readValue(text, pos, raw, indent);
    if (value === REFUSED) return null;
    out[key] = value;
    pos = readTo;
  }
  readTo = pos;
  return out;
}

/**
 * The value of `key:` with nothing after it: a block list, a more-indented mapping, a plain
 * scalar on the lines below, or null when the next line belongs to an outer level. Sets `readTo`.
 */
function readNested(text: string, pos: number, indent: number, depth: number): Read<unknown> {
  if (pos >= text.length) {
    readTo = pos;
    return null;
  }
  const end = lineEnd(text, pos);
  const n = indentAt(text, pos);
  const c = text.charCodeAt(pos + n);
  // A list may sit at its key's own column; a mapping must be indented further.
  if (c === 45 && n >= indent) return readBlockList(text, pos, n, depth) ?? REFUSED;
  // A blank line (or one of tabs) may be followed by anything; a real parser decides.
  if (pos + n >= end || c === 9 || c === 13) return REFUSED;
  if (n <= indent) {
    // The next line is a key (or comment) of an outer level, read there: this key has no value.
    readTo = pos;
    return null;
  }
  if (readKeyLine(text, pos + n, end)) return readMapping(text, pos, n, depth + 1, -1) ?? REFUSED;
  // Not a key: a plain scalar written below its key (it holds no `: ` and does not end in `:`,
  // or PLAIN_TEXT refuses it, so no line of it can be a key).
  const first = trimmedLine(text, pos + n, end);
  if (!PLAIN_TEXT.test(first)) return REFUSED;
  return readPlainLines(text, end + 1, first, indent);
}

/**
 * `- item` lines at column `indent`: one-line plain or quoted scalars, or mappings whose first
 * key stands on the `- ` line; empty and space-only lines between them allowed. Sets `readTo`.
 */
function readBlockList(text: string, pos: number, indent: number, depth: number): unknown[] | null {
  if (depth >= FAST_DEPTH) return null;
  const items: unknown[] = [];
  while (pos < text.length) {
    const end = lineEnd(text, pos);
    if (isSpacesRange(text, pos, end)) {
      pos = end + 1;
      continue;
    }
    const n = indentAt(text, pos);
    if (n < indent || (n === indent && text.charCodeAt(pos + n) !== 45)) break;
    if (n > indent || text.charCodeAt(pos + n + 1) !== 32) return null;
    let from = pos + n + 2;
    while (text.charCodeAt(from) === 32) from++;
    if (readKeyLine(text, from, end)) {
      // `- key: value` opens a mapping whose keys sit at the column of this first one.
      const item = readMapping(text, pos, from - pos, depth + 1, from);
      if (item === null) return null;
      items.push(item);
      pos = readTo;
      continue;
    }
    const raw = trimmedLine(text, from, end);
    // `- ` with nothing after it is a null item, or the start of a nested node: a real parser decides.
    const item = raw === "" ? REFUSED : flatScalar(raw);
    if (item === REFUSED) return null;
    items.push(item);
    pos = end + 1;
  }
  if (items.length === 0) return null;
  readTo = pos;
  return items;
}

/** [`from`, `end`) without the line-end `\r` and trailing blanks. */
function trimmedLine(text: string, from: number, end: number): string {
  if (text.charCodeAt(end - 1) === 13) end--;
  while (end > from && text.charCodeAt(end - 1) === 32) end--;
  return text.slice(from, end);
}

/**
 * The value written after `key: ` on a line of a mapping at column `indent`: a block scalar, a
 * one-line flow list or mapping, or a scalar, plain and quoted ones folded over the
 * more-indented lines after them. Sets `readTo`.
 */
function readValue(text: string, pos: number, raw: string, indent: number): Read<unknown> {
  // A header is one or two characters; most values are long text that need not be matched.
  const header = raw.length <= 2 ? BLOCK_HEADER.exec(raw) : null;
  if (header) return readBlockScalar(text, pos, indent, header[1] === "|", header[2] === "-") ?? REFUSED;
  readTo = pos;
  const first = raw.charCodeAt(0);
  if (first === 91) return readFlowList(raw) ?? REFUSED;
  if (first === 123) return readFlowMap(raw) ?? REFUSED;
  if ((first === 34 || first === 39) && quotedEnd(raw, 0, first) === -1) return readQuotedLines(text, pos, raw, indent, first);
  const value = flatScalar(raw);
  if (value === REFUSED || pos >= text.length || indentAt(text, pos) <= indent) return value;
  // A quoted scalar closed on its line cannot go on; a real parser says what the next line is.
  if (first === 34 || first === 39) return REFUSED;
  return readPlainLines(text, pos, raw, indent);
}

/**
 * A plain scalar whose first line is `first` (already checked) going on over the lines from
 * `pos` indented more than its key's column `indent`, folded with single spaces. Sets `readTo`.
 */
function readPlainLines(text: string, pos: number, first: string, indent: number): Read<unknown> {
  let folded = first;
  while (pos < text.length) {
    const end = lineEnd(text, pos);
    const n = indentAt(text, pos);
    if (n <= indent || pos + n >= end) break;
    const line = trimmedLine(text, pos + n, end);
    if (line === "" || !PLAIN_CONTINUATION.test(line)) return REFUSED;
    folded += ` ${line}`;
    pos = end + 1;
  }
  // A blank line inside would fold to a line break, and one before a more-indented line may not end it.
  if (pos < text.length && isBlankRange(text, pos, lineEnd(text, pos))) return REFUSED;
  readTo = pos;
  return plainScalar(folded);
}

/**
 * A quoted scalar that opens on its key's line (`first` is that line's value) and closes on a
 * later one, each further line indented more than the key's column `indent`: folded as YAML
 * folds flow scalars (a line break between two lines is one space, each empty line between them
 * one line break; blanks around the breaks dropped). What PyYAML writes for a long description.
 * Refused: tabs, a line of a double-quoted scalar ending in a backslash (an escaped break or
 * blank), text after the closing quote. Sets `readTo`.
 */
function readQuotedLines(text: string, pos: number, first: string, indent: number, quote: number): Read<string> {
  if (first.includes("\t") || NOT_DOT.test(first)) return REFUSED;
  let joined = first.slice(1);
  if (quote === 34 && joined.endsWith("\\")) return REFUSED;
  let breaks = 0;
  while (pos < text.length) {
    const rawEnd = lineEnd(text, pos);
    const end = rawEnd > pos && text.charCodeAt(rawEnd - 1) === 13 ? rawEnd - 1 : rawEnd;
    const n = indentAt(text, pos);
    if (pos + n === end) {
      breaks++;
      pos = rawEnd + 1;
      continue;
    }
    if (n <= indent) return REFUSED;
    const line = text.slice(pos + n, end);
    if (line.includes("\t") || NOT_DOT.test(line)) return REFUSED;
    const close = quotedEnd(line, -1, quote);
    const separator = breaks === 0 ? " " : "\n".repeat(breaks);
    breaks = 0;
    if (close === -1) {
      const part = line.trimEnd();
      if (quote === 34 && part.endsWith("\\")) return REFUSED;
      joined += separator + part;
      pos = rawEnd + 1;
      continue;
    }
    // Nothing but blanks may follow the closing quote.
    if (line.slice(close).trim() !== "") return REFUSED;
    joined += separator + line.slice(0, close - 1);
    readTo = rawEnd + 1;
    if (quote === 39) return joined.replace(/''/g, "'");
    return unescapeDoubleQuoted(joined) ?? REFUSED;
  }
  return REFUSED;
}

/** A one-line flow list of plain or quoted scalars, `[]` included; null for anything else. */
function readFlowList(raw: string): unknown[] | null {
  const items: unknown[] = [];
  let i = 1;
  const skipBlanks = () => {
    while (raw.charCodeAt(i) === 32) i++;
  };
  skipBlanks();
  if (raw.charCodeAt(i) === 93) return i === raw.length - 1 ? items : null;
  for (;;) {
    const c = raw.charCodeAt(i);
    let itemEnd: number;
    const quoted = c === 34 || c === 39;
    if (quoted) {
      itemEnd = quotedEnd(raw, i, c);
      if (itemEnd === -1) return null;
    } else {
      itemEnd = i;
      while (itemEnd < raw.length && !FLOW_STOP.test(raw[itemEnd]!)) itemEnd++;
      while (itemEnd > i && raw.charCodeAt(itemEnd - 1) === 32) itemEnd--;
    }
    const text = raw.slice(i, itemEnd);
    // A quoted item may hold any indicator (`"ray[data]"`); a plain one holding one is left to a real parser.
    if (!quoted && (text === "" || FLOW_INDICATOR.test(text))) return null;
    const item = flatScalar(text);
    if (item === REFUSED) return null;
    items.push(item);
    i = itemEnd;
    skipBlanks();
    const next = raw.charCodeAt(i);
    if (next === 93) return i === raw.length - 1 ? items : null;
    if (next !== 44) return null;
    i++;
    skipBlanks();
  }
}

/**
 * A one-line flow mapping of `key: scalar` entries (`metadata: {author: x, version: "1.0"}`),
 * `{}` included: plain keys as a block mapping's, each followed by `: `, and values as a flow
 * list's items but never holding a `:`. Null for anything else (a quoted or empty key or value,
 * nesting, a comment after it), which a real parser then reads.
 */
function readFlowMap(raw: string): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  let i = 1;
  const skipBlanks = () => {
    while (raw.charCodeAt(i) === 32) i++;
  };
  skipBlanks();
  if (raw.charCodeAt(i) === 125) return i === raw.length - 1 ? out : null;
  for (;;) {
    FLOW_KEY.lastIndex = i;
    if (!FLOW_KEY.test(raw)) return null;
    const key = raw.slice(i, FLOW_KEY.lastIndex - 2);
    if (Object.hasOwn(out, key) || key === "__proto__" || isNonStringKey(key)) return null;
    i = FLOW_KEY.lastIndex;
    skipBlanks();
    const c = raw.charCodeAt(i);
    let valueEnd: number;
    const quoted = c === 34 || c === 39;
    if (quoted) {
      valueEnd = quotedEnd(raw, i, c);
      if (valueEnd === -1) return null;
    } else {
      valueEnd = i;
      while (valueEnd < raw.length && !FLOW_MAP_STOP.test(raw[valueEnd]!)) valueEnd++;
      while (valueEnd > i && raw.charCodeAt(valueEnd - 1) === 32) valueEnd--;
    }
    const text = raw.slice(i, valueEnd);
    if (!quoted && (text === "" || FLOW_INDICATOR.test(text) || text.includes(":"))) return null;
    const value = flatScalar(text);
    if (value === REFUSED) return null;
    out[key] = value;
    i = valueEnd;
    skipBlanks();
    const next = raw.charCodeAt(i);
    if (next === 125) return i === raw.length - 1 ? out : null;
    if (next !== 44) return null;
    i++;
    skipBlanks();
  }
}

/** A flow mapping's plain key and the `: ` after it. */
const FLOW_KEY = /[A-Za-z_][A-Za-z0-9_-]*: /y;
const FLOW_MAP_STOP = /[,}]/;

/** Where the quoted scalar opening at `i` ends (after its closing quote); -1 when it does not. */
function quotedEnd(raw: string, i: number, quote: number): number {
  for (let j = i + 1; j < raw.length; j++) {
    const c = raw.charCodeAt(j);
    if (quote === 34 && c === 92) j++;
    else if (c === quote) {
      if (quote === 39 && raw.charCodeAt(j + 1) === 39) j++;
      else return j + 1;
    }
  }
  return -1;
}

const FLOW_STOP = /[,\]]/;
/** A plain scalar inside a flow collection ends at these; one holding them is left to a real parser. */
const FLOW_INDICATOR = /[[\]{},]/;

/**
 * Whether [`from`, `end`) is empty or only spaces (and a line-end `\r`): the blank lines the
 * nested levels accept. A tab there may be indentation YAML refuses; a real parser decides.
 */
function isSpacesRange(text: string, from: number, end: number): boolean {
  for (let i = from; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || (c === 13 && i === end - 1)) continue;
    return false;
  }
  return true;
}

/**
 * Whether [`from`, `end`) is a blank line as YAML sees one: spaces and tabs, and a `\r` only as
 * its last character (the first half of a CRLF). Not `trim()`'s idea of blank: YAML does not
 * take a no-break space, a vertical tab or a lone `\r` for white space, and a line holding one
 * must go to a real parser rather than be skipped.
 */
function isBlankRange(text: string, from: number, end: number): boolean {
  for (let i = from; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || (c === 13 && i === end - 1)) continue;
    return false;
  }
  return true;
}

/** Blanks at `pos`: the indentation of the line starting there. */
function indentAt(text: string, pos: number): number {
  let n = 0;
  while (text.charCodeAt(pos + n) === 32) n++;
  return n;
}

/**
 * A `|` or `>` block scalar of a key at column `parentIndent`, from `pos`: uniformly indented
 * lines, with empty lines inside (kept as line breaks) and after; `strip` for the `-` chomping
 * indicator. Null for what this tier leaves to a real parser: space-only lines (they may be
 * content), more-indented lines (folding keeps them apart), tabs, and, when folding, trailing
 * blanks. Sets `readTo`.
 */
function readBlockScalar(text: string, pos: number, parentIndent: number, literal: boolean, strip: boolean): string | null {
  let value = "";
  let indent = -1;
  let lines = 0;
  let breaks = 0;
  while (pos < text.length) {
    const rawEnd = lineEnd(text, pos);
    const end = rawEnd > pos && text.charCodeAt(rawEnd - 1) === 13 ? rawEnd - 1 : rawEnd;
    if (isBlankRange(text, pos, end)) {
      if (end > pos || indent === -1) return null;
      breaks++;
      pos = rawEnd + 1;
      continue;
    }
    const n = indentAt(text, pos);
    if (indent === -1) {
      if (n <= parentIndent) return null;
      indent = n;
    }
    if (n < indent) break;
    if (n > indent) return null;
    const tab = text.indexOf("\t", pos + n);
    if (tab !== -1 && tab < end) return null;
    if (!literal && text.charCodeAt(end - 1) === 32) return null;
    const line = text.slice(pos + n, end);
    if (lines === 0) value = line;
    else value += (literal ? "\n".repeat(breaks + 1) : breaks === 0 ? " " : "\n".repeat(breaks)) + line;
    lines++;
    breaks = 0;
    pos = rawEnd + 1;
  }
  if (indent === -1) return null;
  readTo = pos;
  return strip ? value : `${value}\n`;
}

const ESCAPES: Readonly<Record<string, string>> = {
  "0": "\0",
  a: "\x07",
  b: "\b",
  t: "\t",
  "\t": "\t",
  n: "\n",
  v: "\v",
  f: "\f",
  r: "\r",
  e: "\x1b",
  " ": " ",
  '"': '"',
  "/": "/",
  "\\": "\\",
  N: "\u0085",
  _: "\u00a0",
  L: "\u2028",
  P: "\u2029",
};
const HEX_LENGTH: Readonly<Record<string, number>> = { x: 2, u: 4, U: 8 };

/** A one-line double-quoted scalar's value, or null for anything YAML would refuse. */
function unescapeDoubleQuoted(inner: string): string | null {
  let i = inner.indexOf("\\");
  if (i === -1) return inner;
  // Runs between escapes are copied whole: a character at a time built a long rope per value.
  let out = "";
  let runStart = 0;
  for (; i !== -1; i = inner.indexOf("\\", runStart)) {
    out += inner.slice(runStart, i);
    const e = inner[++i];
    if (e === undefined) return null;
    const simple = ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      runStart = i + 1;
      continue;
    }
    const len = HEX_LENGTH[e];
    if (len === undefined) return null;
    const hex = inner.slice(i + 1, i + 1 + len);
    if (!HEX_DIGITS.test(hex) || hex.length !== len) return null;
    const code = parseInt(hex, 16);
    if (code > 0x10ffff) return null;
    out += String.fromCodePoint(code);
    runStart = i + 1 + len;
  }
  return out + inner.slice(runStart);
}

const HEX_DIGITS = /^[0-9A-Fa-f]*$/;

/**
 * A plain scalar the fast tier reads, in one pass: it opens with no indicator (a `-` only when
 * text follows it, as in `-21risk-automation`) and holds no tab, no `: ` (a mapping), no ` #` (a
 * comment), no `:` at its end and nothing a regex `.` refuses. Written as runs of ordinary
 * characters between the colons and blanks, which the regex engine scans without a
 * backtracking point per character: one native match, faster than the separate searches it
 * replaced, cold or optimised.
 */
const PLAIN_TEXT = /^(?:-(?=[^ \t\r\u2028\u2029])|(?![-?:,[\]{}#&*!|>'"%@`]))[^\t: \r\u2028\u2029]*(?:(?::(?=[^ \t\r\u2028\u2029])| (?!#))[^\t: \r\u2028\u2029]*)*$/;
/**
 * A further line of a plain scalar (its indentation dropped): the same, except that it may open
 * with any indicator but `#` (a comment): `"quoted phrase", more text` goes on a description.
 */
const PLAIN_CONTINUATION = /^(?!#)[^\t: \r\u2028\u2029]*(?:(?::(?=[^ \t\r\u2028\u2029])| (?!#))[^\t: \r\u2028\u2029]*)*$/;

/**
 * One-line quoted scalars, with an optional comment after them. Written unrolled — runs of
 * ordinary characters between escapes (or doubled quotes) — rather than as an alternation per
 * character, which gave the regex engine a backtracking point at every character of a value.
 */
const DOUBLE_QUOTED = /^"([^"\\]*(?:\\.[^"\\]*)*)"(?:[ ]+#.*)?$/;
const SINGLE_QUOTED = /^'([^']*(?:''[^']*)*)'(?:[ ]+#.*)?$/;

/** A one-line scalar's value: text, or the core schema's null, boolean or number for a plain one. */
function flatScalar(raw: string): Read<string | null | boolean | number> {
  const first = raw.charCodeAt(0);
  if (first === 34 || first === 39) {
    if (raw.includes("\t") || NOT_DOT.test(raw)) return REFUSED;
    if (first === 34) {
      const m = DOUBLE_QUOTED.exec(raw);
      return (m ? unescapeDoubleQuoted(m[1]!) : null) ?? REFUSED;
    }
    const m = SINGLE_QUOTED.exec(raw);
    return m ? m[1]!.replace(/''/g, "'") : REFUSED;
  }
  return PLAIN_TEXT.test(raw) ? plainScalar(raw) : REFUSED;
}

const DEPTH_MESSAGE = `frontmatter nests deeper than ${MAX_YAML_DEPTH} levels`;

function parseWithYaml(text: string): YamlResult {
  try {
    const doc = yamlLibrary().parseDocument(text, { version: "1.2", schema: "core", uniqueKeys: true, merge: false, prettyErrors: true, logLevel: "silent" });
    const problem = doc.errors[0] ?? doc.warnings.find((w) => w.code === "TAG_RESOLVE_FAILED");
    if (problem) {
      // Stack exhaustion inside the parser is reported as a document error: say what it means.
      if (/call stack/i.test(problem.message)) return { ok: false, message: DEPTH_MESSAGE };
      const line = problem.linePos?.[0]?.line;
      // The position is reported by the caller in SKILL.md lines; drop yaml's frontmatter-relative one.
      const message = problem.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
      return { ok: false, message, ...(line !== undefined ? { line: line - 1 } : {}) };
    }
    return { ok: true, value: doc.toJS({ maxAliasCount: MAX_YAML_ALIASES }) };
  } catch (e) {
    // The parser recurses per nesting level; a document deep enough to exhaust the stack is
    // refused with the same words as one that parses but nests too deep.
    if (e instanceof RangeError) return { ok: false, message: DEPTH_MESSAGE };
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * Everything past the parser sees plain data only, decided here once. `yaml` constructs more
 * than that for the YAML 1.1 tags it still knows (`!!binary` a Uint8Array, `!!timestamp` a Date,
 * `!!omap` a Map, `!!set` a Set) and can build cycles through aliases (`a: &x [*x]`); each of
 * those broke something downstream (a Uint8Array cannot be frozen, which failed the whole
 * registry's refresh; a cycle cannot be written as JSON). Typed values are read as the text or
 * the plain collection they stand for, with a note; a cycle, a value nested too deep, or any
 * other kind of object refuses the document. Shared nodes (aliases) are converted once and stay
 * shared, so the walk can never expand a reference bomb. Recursion is bounded by the depth limit.
 */
function toPlainData(value: unknown): YamlResult {
  const walk: PlainWalk = { done: new Map(), open: new Set(), notes: [], problem: null };
  const plain = plainValue(value, 0, "", walk);
  if (walk.problem !== null) return { ok: false, message: walk.problem };
  return walk.notes.length > 0 ? { ok: true, value: plain, converted: walk.notes } : { ok: true, value: plain };
}

interface PlainWalk {
  /** Objects already converted, to what: an alias reaches the same result. */
  done: Map<object, unknown>;
  /** Objects on the current path: meeting one again is a cycle. */
  open: Set<object>;
  notes: string[];
  problem: string | null;
}

/** More notes than this are summarised: a document of a thousand timestamps needs one warning, not a thousand. */
const MAX_CONVERSION_NOTES = 5;

function plainValue(node: unknown, depth: number, where: string, walk: PlainWalk): unknown {
  if (walk.problem !== null) return null;
  switch (typeof node) {
    case "string":
    case "boolean":
    case "number":
      return node;
    case "undefined":
      return null;
    case "bigint":
      note(walk, where, "a big integer", "read as its decimal text");
      return node.toString();
    case "object":
      break;
    default:
      walk.problem = `${label(where)} holds a value of kind ${typeof node}, which frontmatter cannot hold`;
      return null;
  }
  if (node === null) return null;
  if (walk.done.has(node)) return walk.done.get(node);
  if (walk.open.has(node)) {
    walk.problem = `${label(where)} refers to itself through an alias; frontmatter must be a tree`;
    return null;
  }
  if (depth >= MAX_YAML_DEPTH) {
    walk.problem = DEPTH_MESSAGE;
    return null;
  }
  walk.open.add(node);
  const result = plainObject(node, depth, where, walk);
  walk.open.delete(node);
  walk.done.set(node, result);
  return result;
}

function plainObject(node: object, depth: number, where: string, walk: PlainWalk): unknown {
  const proto = Object.getPrototypeOf(node) as unknown;
  if (Array.isArray(node) && proto === Array.prototype) {
    // Converted in place: the parser's output is this module's to change, and most of it is already plain.
    for (let i = 0; i < node.length; i++) {
      const item = node[i] as unknown;
      const converted = plainValue(item, depth + 1, `${where}[${i}]`, walk);
      if (converted !== item) node[i] = converted;
    }
    return node;
  }
  if (proto === Object.prototype || proto === null) {
    const record = node as Record<string, unknown>;
    const keys = Object.keys(record);
    for (let i = 0; i < keys.length; i++) {
      const item = record[keys[i]!];
      const converted = plainValue(item, depth + 1, child(where, keys[i]!), walk);
      if (converted !== item) setOwnProperty(record, keys[i]!, converted);
    }
    return node;
  }
  if (ArrayBuffer.isView(node)) {
    note(walk, where, "a !!binary value", "read as its base64 text");
    return Buffer.from(node.buffer, node.byteOffset, node.byteLength).toString("base64");
  }
  if (node instanceof Date) {
    note(walk, where, "a !!timestamp value", "read as its ISO 8601 text");
    const time = node.getTime();
    if (Number.isNaN(time)) return String(node);
    const iso = node.toISOString();
    // A date without a time of day is written back as the date alone.
    return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso;
  }
  if (node instanceof Map) {
    note(walk, where, "an ordered map (!!omap)", "read as a plain mapping");
    const record: Record<string, unknown> = {};
    for (const [key, item] of node) {
      const text = scalarKeyText(key);
      if (text === null) {
        walk.problem = `${label(where)} has a key that is not a scalar; frontmatter keys must be text`;
        return null;
      }
      if (Object.hasOwn(record, text)) {
        walk.problem = `${label(where)} has the key ${JSON.stringify(text)} twice`;
        return null;
      }
      setOwnProperty(record, text, plainValue(item, depth + 1, child(where, text), walk));
    }
    return record;
  }
  if (node instanceof Set) {
    note(walk, where, "a !!set", "read as a list of its members");
    const list: unknown[] = [];
    let i = 0;
    for (const item of node) list.push(plainValue(item, depth + 1, `${where}[${i++}]`, walk));
    return list;
  }
  walk.problem = `${label(where)} holds a value of an unsupported kind (${Object.prototype.toString.call(node).slice(8, -1)})`;
  return null;
}

function scalarKeyText(key: unknown): string | null {
  if (typeof key === "string") return key;
  if (key === null || key === undefined) return "";
  if (typeof key === "number" || typeof key === "boolean" || typeof key === "bigint") return String(key);
  return null;
}

function note(walk: PlainWalk, where: string, what: string, how: string): void {
  if (walk.notes.length < MAX_CONVERSION_NOTES) walk.notes.push(`${label(where)} is ${what}; ${how}`);
  else if (walk.notes.length === MAX_CONVERSION_NOTES) walk.notes.push("further typed values were read the same way");
}

function child(where: string, key: string): string {
  return where === "" ? key : `${where}.${key}`;
}

function label(where: string): string {
  return where === "" ? "The frontmatter" : `Frontmatter key ${where}`;
}
