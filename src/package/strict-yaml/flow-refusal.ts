/**
 * strictyaml's refusal of the first flow collection, reached without scanning token by token for the
 * shapes where the outcome is certain (a fifth of real frontmatter holds a flow list).
 */
import { parseFlat } from "../yaml.js";
import { NON_PRINTABLE } from "./marks.js";

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
export function leadingFlowRefusal(text: string): { line: number; column: number } | null {
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
