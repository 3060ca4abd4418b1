// Property tests: the frontmatter splitter and parser never throw anything but our own
// results, and the fast flat path never disagrees with a full YAML parser.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { parseDocument } from "yaml";
import { readFrontmatter } from "../../src/package/frontmatter.js";
import { loadSkillFile } from "../../src/package/load.js";
import { splitFrontmatter } from "../../src/package/split.js";
import { parseFlat, parseYaml } from "../../src/package/yaml.js";

const stamp = { size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0 };
const yamlish = fc.stringMatching(/^[a-z:\-\n "'|>#&*![\]{}0-9.~\t\\]{0,80}$/);

test("arbitrary text never throws out of split, parse or load", () => {
  fc.assert(
    fc.property(fc.oneof(fc.string({ maxLength: 400 }), fc.string({ unit: "binary", maxLength: 200 }), yamlish.map((s) => `---\n${s}\n---\nbody`)), (text) => {
      splitFrontmatter(text);
      parseYaml(text);
      const result = loadSkillFile("/x/SKILL.md", "/x", text, stamp);
      // Either a skill or at least one error explains why not.
      assert.ok(result.skill !== null || result.diagnostics.some((d) => d.severity === "error"));
    }),
    { numRuns: 2000 },
  );
});

test("arbitrary YAML-shaped frontmatter gives a value or a message, never an exception", () => {
  fc.assert(
    fc.property(yamlish, (text) => {
      const r = parseYaml(text);
      assert.ok(r.ok || (typeof r.message === "string" && r.message.length > 0));
    }),
    { numRuns: 3000 },
  );
});

const key = fc.stringMatching(/^[a-z][a-z0-9_-]{0,10}$/);
const scalarText = fc.stringMatching(/^[ -~]{0,40}$/);
// A plain value opening with a quote is an unterminated quoted scalar, which `yaml` tolerates
// across lines and we refuse: not a disagreement worth a generator.
const plainText = scalarText.filter((s) => !/^['"]/.test(s));
const flatLine = fc.tuple(key, fc.oneof(plainText, scalarText.map((s) => JSON.stringify(s.replace(/[\\"]/g, ""))), scalarText.map((s) => `'${s.replace(/'/g, "''")}'`)));

const escaped = fc
  .array(fc.oneof(scalarText, fc.constantFrom("\\n", "\\t", '\\"', "\\\\", "\\u00e9", "\\x41", "\\U0001F600", "\\/", "\\q", "\\u12")), { maxLength: 5 })
  .map((parts) => `"${parts.join("").replace(/(^|[^\\])"/g, "$1")}"`);
const blockLine = fc.stringMatching(/^[ -~]{0,30}$/);
const blockScalar = fc
  .tuple(fc.constantFrom("|", "|-", ">", ">-", "|+"), fc.array(fc.tuple(fc.constantFrom("  ", "  ", "   ", ""), blockLine), { minLength: 1, maxLength: 4 }))
  .map(([header, body]) => `${header}\n${body.map(([indent, text]) => indent + text).join("\n")}`);
const nestedMap = fc
  .array(fc.tuple(fc.constantFrom("  ", "  ", "    "), key, fc.oneof(plainText, escaped)), { minLength: 0, maxLength: 3 })
  .map((pairs) => `\n${pairs.map(([indent, k, v]) => `${indent}${k}: ${v}`).join("\n")}`);
const entry = fc.oneof(flatLine, fc.tuple(key, escaped), fc.tuple(key, blockScalar), fc.tuple(key, nestedMap));

test("no parser tier reads a document differently from the yaml package", () => {
  // Counted so the property cannot pass by refusing everything: both tiers must really compare.
  let compared = 0;
  let comparedOnFastPath = 0;
  fc.assert(
    fc.property(fc.array(entry, { maxLength: 6 }), (pairs) => {
      const text = pairs.map(([k, v]) => (v.startsWith("\n") ? `${k}:${v}` : `${k}: ${v}`)).join("\n");
      const doc = parseDocument(text, { version: "1.2", schema: "core", uniqueKeys: true, logLevel: "silent" });
      // Invalid or merely tolerated (unknown tag) for the reference parser: refusing is our choice there.
      if (doc.errors.length > 0 || doc.warnings.length > 0) return;
      let expected: unknown;
      try {
        expected = doc.toJS();
      } catch {
        return; // e.g. an alias to a missing anchor
      }
      const ours = parseYaml(text);
      // Refusing an odd document (with a message) is allowed; reading it differently is not.
      if (!ours.ok) return;
      // Through JSON: `-0` is an integer zero to one parser and negative zero to the other, and no
      // frontmatter consumer can tell them apart.
      const plain = (v: unknown) => JSON.parse(JSON.stringify(v ?? null));
      assert.deepEqual(plain(ours.value), plain(expected), JSON.stringify(text));
      compared++;
      if (parseFlat(text) !== null) comparedOnFastPath++;
    }),
    { numRuns: 10000 },
  );
  assert.ok(compared >= 3000, `only ${compared} of 10000 runs compared the parsers`);
  assert.ok(comparedOnFastPath >= 1000, `only ${comparedOnFastPath} runs went through the fast path`);
});

test("a generated valid skill round-trips", () => {
  const name = fc.stringMatching(/^[a-z0-9]{1,10}(-[a-z0-9]{1,10}){0,3}$/);
  const description = fc.string({ minLength: 1, maxLength: 300 }).filter((s) => s.trim().length > 0 && !s.includes("\u0000"));
  const body = fc.string({ maxLength: 500 });
  fc.assert(
    fc.property(name, description, body, (n, d, b) => {
      // Quoted: a bare `0` or `1e3` is a number in YAML, which is the author's mistake, not ours.
      const text = `---\nname: ${JSON.stringify(n)}\ndescription: ${JSON.stringify(d)}\n---\n${b}`;
      const fm = readFrontmatter(text, { allowRetry: false });
      assert.ok(fm.ok, JSON.stringify(text));
      const result = loadSkillFile(`/s/${n}/SKILL.md`, `/s/${n}`, text, stamp);
      assert.ok(result.skill, JSON.stringify(result.diagnostics));
      assert.equal(result.skill.name, n);
      assert.equal(result.skill.description, d.trim());
      assert.equal(fm.body, b.trim());
    }),
    { numRuns: 2000 },
  );
});

test("the fast tier reads key lines with any spacing, line ends and odd characters as yaml does", () => {
  // The key-line scanner replaced a pattern; this drives the corners it has to get right: no
  // blank after the colon, runs of blanks, trailing blanks before a `\r`, a lone `\r` inside,
  // and the line separators a regex `.` refuses.
  const separator = fc.constantFrom(":", ": ", ":  ", ":   ", ":\t");
  const tail = fc.constantFrom("", " ", "  ", "\r", " \r", "  \r", "\r\r", "\u2028", " \u2029");
  const value = fc.oneof(plainText, fc.constantFrom("a\rb", "x\u2028y", "v  ", "\u00e9t\u00e9", "a: b"));
  const line = fc.tuple(key, separator, value, tail).map(([k, s, v, t]) => `${k}${s}${v}${t}`);
  const nested = fc.tuple(key, fc.array(fc.tuple(key, separator, value, tail), { minLength: 1, maxLength: 3 })).map(
    ([k, pairs]) => `${k}:\n${pairs.map(([nk, s, v, t]) => `  ${nk}${s}${v}${t}`).join("\n")}`,
  );
  let onFastPath = 0;
  fc.assert(
    fc.property(fc.array(fc.oneof(line, nested), { minLength: 1, maxLength: 5 }), (lines) => {
      // Frontmatter as the splitter hands it over always ends with a newline, so a `\r` before
      // it is half of a CRLF, never a lone `\r` at the end of the document.
      const text = `${lines.join("\n")}\n`;
      const fast = parseFlat(text);
      if (fast === null) return;
      onFastPath++;
      const doc = parseDocument(text, { version: "1.2", schema: "core", uniqueKeys: true, logLevel: "silent" });
      assert.equal(doc.errors.length, 0, `fast tier accepted what yaml refuses: ${JSON.stringify(text)}`);
      assert.deepEqual(JSON.parse(JSON.stringify(fast)), JSON.parse(JSON.stringify(doc.toJS())), JSON.stringify(text));
    }),
    { numRuns: 5000 },
  );
  assert.ok(onFastPath >= 100, `only ${onFastPath} runs went through the fast path`);
});

test("documents the fast tier once read differently from yaml are now read as yaml reads them", () => {
  // Found by a differential fuzz against `yaml`: CRLF blank lines before a whitespace-only line
  // still inside a block, a tab after a block, keys the core schema reads as null or booleans,
  // lines that `trim()` calls blank but YAML does not, and a `\r` ending the text.
  const documents = [
    "a: |\r\n  x\r\n\r\n\r\n   \r\nb: c\r\n",
    "a: |\n  x\n\n\t\n",
    "null: x\n",
    "Null: x\n",
    "True: x\n",
    "FALSE: x\n",
    "m:\n  True: x\n",
    "True: a\ntrue: b\n",
    "null: a\nNULL: b\n",
    "a: b\n\u00a0\nc: d\n",
    "a: b\n\u2028\nc: d\n",
    "a: b\n\v\nc: d\n",
    "a: b\n\r\r\nc: d\n",
    "a: b\n\r \nc: d\n",
    "a: b\n \r \n",
    "m:\n  k: v\n\u00a0\nc: d\n",
    "a: b\r",
  ];
  for (const text of documents) {
    const doc = parseDocument(text, { version: "1.2", schema: "core", uniqueKeys: true, logLevel: "silent" });
    const ours = parseYaml(text);
    if (doc.errors.length > 0) {
      assert.equal(ours.ok, false, `yaml refuses ${JSON.stringify(text)}, so must we`);
      continue;
    }
    assert.ok(ours.ok, JSON.stringify(text));
    assert.deepEqual(JSON.parse(JSON.stringify(ours.value)), JSON.parse(JSON.stringify(doc.toJS())), JSON.stringify(text));
    const fast = parseFlat(text);
    if (fast !== null) assert.deepEqual(JSON.parse(JSON.stringify(fast)), JSON.parse(JSON.stringify(doc.toJS())), `fast tier: ${JSON.stringify(text)}`);
  }
});

// The shapes real frontmatter writes (PERFORMANCE.md, "What real skills look like"): nested
// mappings, block and flow lists, quoted scalars, block scalars with blank lines inside, plain
// scalars folded over several lines. The fast tier must read each of them as `yaml` does, and
// most of them itself.
const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_.\/-]{0,12}$/);
const oddText = fc.stringMatching(/^[ -~\u00e9\u2014]{0,30}$/);
const realScalar = fc.oneof(
  word,
  fc.array(word, { minLength: 1, maxLength: 6 }).map((w) => w.join(" ")),
  oddText.map((s) => JSON.stringify(s)),
  oddText.map((s) => `'${s.replace(/'/g, "''")}'`),
  fc.constantFrom("1.0", "1.2.0", "0x1F", "0x1g", "0o17", "0o8", "1e5", "1E+5", "+.5", "-1.", "08", "1_000", "0b1", ".5e3", "1.2.3e4", "+", "-.inf", "+.NaN", "true", "null", "~", "2026-01-01", "a: b", "x # y", "-x", "- x", "[a]", "{a: b}", "'a' b", "\"a\" b", "*ref", "&a x", "!tag x", "a,b", "a]", "#c"),
);
const flowItem = fc.oneof(word, oddText.map((s) => JSON.stringify(s)), oddText.map((s) => `'${s.replace(/'/g, "''")}'`), fc.constantFrom("", " ", "a b", "1", "a: b", "{a: b}", "[x]", "\"x\" y"));
const flowList = fc
  .tuple(fc.array(flowItem, { maxLength: 5 }), fc.constantFrom(", ", ",", " , ", ",  "), fc.constantFrom("", " ", "  "), fc.constantFrom("", "", ",", " # c", " x"))
  .map(([items, sep, pad, tail]) => `[${pad}${items.join(sep)}${pad}${tail === "," ? "," : ""}]${tail === "," ? "" : tail}`);
// Flow mappings as `metadata: {author: x, version: "1.0"}` writes them, and the corners around
// them: no blank or several after the colon, a blank before it, quoted or empty keys and values,
// values holding a colon or an indicator, a comment or text after the closing brace.
const flowKey = fc.oneof(key, fc.constantFrom("null", "True", "1", "\"k\"", "'k'", "", "a b", "k:x", "__proto__"));
const flowValue = fc.oneof(flowItem, fc.constantFrom("b:c", "http://x", "x :y", "a #b", "~", "1.0", "'a:b'", "\"{x}\""));
const flowMap = fc
  .tuple(fc.array(fc.tuple(flowKey, fc.constantFrom(": ", ": ", ":  ", ":", " : "), flowValue), { maxLength: 4 }), fc.constantFrom(", ", ",", " , "), fc.constantFrom("", " "), fc.constantFrom("", "", ",", " # c", " x"))
  .map(([entries, sep, pad, tail]) => `{${pad}${entries.map(([k, colon, v]) => `${k}${colon}${v}`).join(sep)}${pad}${tail === "," ? "," : ""}}${tail === "," ? "" : tail}`);
const lineEnding = fc.constantFrom("\n", "\n", "\n", "\r\n");
type Node = { kind: "scalar" | "flow"; text: string } | { kind: "list"; items: string[]; compact: boolean } | { kind: "map"; entries: Array<[string, Node]> } | { kind: "block"; header: string; lines: string[] } | { kind: "folded"; lines: string[] };
const blockBodyLine = fc.oneof(fc.stringMatching(/^[ -~]{1,30}$/), fc.constantFrom("", "", "  indented", "x  ", "# not a comment", "- not a list"));
const leaf: fc.Arbitrary<Node> = fc.oneof(
  { weight: 5, arbitrary: realScalar.map((text): Node => ({ kind: "scalar", text })) },
  { weight: 2, arbitrary: flowList.map((text): Node => ({ kind: "flow", text })) },
  { weight: 2, arbitrary: flowMap.map((text): Node => ({ kind: "flow", text })) },
  { weight: 2, arbitrary: fc.tuple(fc.array(realScalar, { minLength: 1, maxLength: 4 }), fc.boolean()).map(([items, compact]): Node => ({ kind: "list", items, compact })) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom("|", ">", "|-", ">-", "|+", ">2"), fc.array(blockBodyLine, { minLength: 1, maxLength: 5 })).map(([header, lines]): Node => ({ kind: "block", header, lines })) },
  { weight: 1, arbitrary: fc.array(fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(" ")), { minLength: 2, maxLength: 4 }).map((lines): Node => ({ kind: "folded", lines })) },
);
const nodeOf = (depth: number): fc.Arbitrary<Node> =>
  depth === 0
    ? leaf
    : fc.oneof({ weight: 3, arbitrary: leaf }, { weight: 1, arbitrary: fc.array(fc.tuple(key, nodeOf(depth - 1)), { minLength: 1, maxLength: 4 }).map((entries): Node => ({ kind: "map", entries })) });

function renderEntry(k: string, node: Node, indent: string, step: string, blankBetween: boolean): string[] {
  const inner = indent + step;
  switch (node.kind) {
    case "scalar":
    case "flow":
      return [`${indent}${k}: ${node.text}`];
    case "list":
      return [`${indent}${k}:`, ...node.items.map((item, i) => `${node.compact ? indent : inner}- ${item}${blankBetween && i === 0 ? "\n" : ""}`)];
    case "map":
      return [`${indent}${k}:`, ...node.entries.flatMap(([nk, child], i) => [...(blankBetween && i === 1 ? [""] : []), ...renderEntry(nk, child, inner, step, blankBetween)])];
    case "block":
      return [`${indent}${k}: ${node.header}`, ...node.lines.map((line) => (line === "" ? "" : inner + line))];
    case "folded":
      return [`${indent}${k}: ${node.lines[0]}`, ...node.lines.slice(1).map((line) => `${inner} ${line}`)];
  }
}

test("real frontmatter shapes: the fast tier reads what it takes as yaml does, and takes most of them", () => {
  let compared = 0;
  let fast = 0;
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.tuple(key, nodeOf(2)), { selector: ([k]) => k, minLength: 1, maxLength: 6 }),
      fc.constantFrom("  ", "  ", "    ", " "),
      lineEnding,
      fc.boolean(),
      (entries, step, eol, blankBetween) => {
        const text = `${entries.flatMap(([k, node]) => renderEntry(k, node, "", step, blankBetween)).join("\n").replace(/\n/g, eol)}${eol}`;
        const doc = parseDocument(text, { version: "1.2", schema: "core", uniqueKeys: true, logLevel: "silent" });
        const flat = parseFlat(text);
        if (doc.errors.length > 0 || doc.warnings.length > 0) {
          assert.equal(flat, null, `fast tier accepted what yaml refuses or warns about: ${JSON.stringify(text)}`);
          return;
        }
        let expected: unknown;
        try {
          expected = JSON.parse(JSON.stringify(doc.toJS()));
        } catch {
          assert.equal(flat, null, `fast tier accepted an alias to nothing: ${JSON.stringify(text)}`);
          return;
        }
        const ours = parseYaml(text);
        assert.ok(ours.ok, JSON.stringify(text));
        assert.deepEqual(JSON.parse(JSON.stringify(ours.value)), expected, JSON.stringify(text));
        compared++;
        if (flat === null) return;
        fast++;
        assert.deepEqual(JSON.parse(JSON.stringify(flat)), expected, `fast tier: ${JSON.stringify(text)}`);
      },
    ),
    { numRuns: 6000 },
  );
  assert.ok(compared >= 2000, `only ${compared} runs compared the parsers`);
  assert.ok(fast >= compared * 0.3, `only ${fast} of ${compared} valid documents went through the fast tier`);
});

test("one-line flow mappings: the fast tier reads the ones it takes as yaml does, and takes the common ones", () => {
  let fast = 0;
  fc.assert(
    fc.property(key, flowMap, (k, map) => {
      const text = `name: x\n${k === "name" ? "other" : k}: ${map}\n`;
      const flat = parseFlat(text);
      if (flat === null) return;
      fast++;
      const doc = parseDocument(text, { version: "1.2", schema: "core", uniqueKeys: true, logLevel: "silent" });
      assert.equal(doc.errors.length + doc.warnings.length, 0, `fast tier accepted what yaml refuses or warns about: ${JSON.stringify(text)}`);
      assert.deepEqual(JSON.parse(JSON.stringify(flat)), JSON.parse(JSON.stringify(doc.toJS())), JSON.stringify(text));
    }),
    { numRuns: 5000 },
  );
  assert.ok(fast >= 300, `only ${fast} of 5000 flow mappings went through the fast tier`);
  assert.deepEqual(parseFlat('metadata: {author: review, version: "1.0"}\n'), { metadata: { author: "review", version: "1.0" } });
  assert.deepEqual(parseFlat("metadata: {}\n"), { metadata: {} });
});

// The shapes real frontmatter writes that once sent a fresh process to the `yaml` package (and
// its import): typed plain scalars (`user-invocable: true`, `version: 2.0`, `count: 28`), plain
// scalars opening with `-`, folded lines opening with a quote or another indicator, quoted
// scalars over several lines (what PyYAML writes), a plain scalar on the line below its key,
// empty values, lists of mappings (`hooks:`), and quoted flow items holding indicators.
const typedText = fc.oneof(
  fc.constantFrom("true", "False", "TRUE", "null", "Null", "~", "0", "-0", "+0", "007", "28", "-12", "+5", "2.0", "1.", ".5", "-.5", "1e3", "1E+3", "2.5e-4", "12345678901234567890"),
  fc.constantFrom("0o17", "0o8", "0x1F", "0xg", ".inf", "-.Inf", "+.INF", ".NaN", "+.nan", "1_000", "0b1", "1.2.0", "2026-03-05", "1e", "e3", "--1", "+-1"),
  fc.integer().map(String),
  fc.double({ noNaN: true }).map(String),
);
const dashText = fc.oneof(fc.constantFrom("-", "- ", "-x", "--x", "---", "-21risk-automation", "-:", "-#x", "- x", "-\tx", "-.inf", "-1"), word.map((w) => `-${w}`));
const continuationLine = fc.oneof(
  { weight: 3, arbitrary: fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(" ")) },
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom('"', "'", "-", "- ", "[", "{", "]", "}", "&", "*", "!", "|", ">", "%", "@", "`", "?", "? ", ":", ": ", ",", "#", " #", "x: ", "x:", "\t"), word).map(([lead, w]) => `${lead}${w}`) },
  { weight: 1, arbitrary: fc.constantFrom("1", "true", "null", "x # c", "x #c", "a:b", '"a", "b",', "'it''s'") },
);
const quotedPart = fc.oneof(
  word,
  fc.stringMatching(/^[ -~\u00e9]{0,20}$/),
  fc.constantFrom("it''s", "it's", '\\"q\\"', "\\n", "\\t", "\\u00e9", "\\x41", "\\q", "\\", "a\\ ", " x ", "#", "a: b", "'", '"', "''", "  "),
);
type NewNode =
  | { kind: "scalar"; text: string }
  | { kind: "continued"; first: string; lines: string[]; below: boolean }
  | { kind: "quoted"; quote: string; first: string; lines: string[]; last: string; after: string; flush: boolean }
  | { kind: "empty" }
  | { kind: "maps"; items: Array<Array<[string, NewNode]>>; pad: string }
  | { kind: "list"; items: string[] };
const newLeaf: fc.Arbitrary<NewNode> = fc.oneof(
  { weight: 3, arbitrary: fc.oneof(typedText, dashText, realScalar).map((text): NewNode => ({ kind: "scalar", text })) },
  { weight: 2, arbitrary: fc.tuple(fc.oneof(word, typedText, dashText), fc.array(continuationLine, { minLength: 1, maxLength: 3 }), fc.boolean()).map(([first, lines, below]): NewNode => ({ kind: "continued", first, lines, below })) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom('"', "'"), quotedPart, fc.array(fc.oneof(quotedPart, fc.constant("")), { maxLength: 4 }), fc.oneof(quotedPart, fc.constant("")), fc.constantFrom("", "", " ", " x", " # c"), fc.boolean())
      .map(([quote, first, lines, last, after, flush]): NewNode => ({ kind: "quoted", quote, first, lines, last, after, flush })),
  },
  { weight: 1, arbitrary: fc.constant<NewNode>({ kind: "empty" }) },
  { weight: 1, arbitrary: fc.array(fc.oneof(typedText, dashText, oddText.map((s) => JSON.stringify(s)), fc.constantFrom('"ray[data]"', "'a, b'", '"{x}"', '""', "''")), { minLength: 1, maxLength: 4 }).map((items): NewNode => ({ kind: "list", items })) },
);
const newNode: fc.Arbitrary<NewNode> = fc.oneof(
  { weight: 4, arbitrary: newLeaf },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.array(fc.uniqueArray(fc.tuple(key, newLeaf), { selector: ([k]) => k, minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }), fc.constantFrom(" ", " ", "   "))
      .map(([items, pad]): NewNode => ({ kind: "maps", items, pad })),
  },
);

function renderNew(k: string, node: NewNode, indent: string, step: string): string[] {
  const inner = indent + step;
  switch (node.kind) {
    case "scalar":
      return [`${indent}${k}: ${node.text}`];
    case "continued":
      return node.below ? [`${indent}${k}:`, `${inner}${node.first}`, ...node.lines.map((line) => `${inner}${line}`)] : [`${indent}${k}: ${node.first}`, ...node.lines.map((line) => `${inner}${line}`)];
    case "quoted":
      // `flush`: the closing line at the key's own column, which YAML refuses.
      return [`${indent}${k}: ${node.quote}${node.first}`, ...node.lines.map((line) => (line === "" ? "" : `${inner}${line}`)), `${node.flush ? indent : inner}${node.last}${node.quote}${node.after}`];
    case "empty":
      return [`${indent}${k}:`];
    case "list":
      return [`${indent}${k}: [${node.items.join(", ")}]`];
    case "maps":
      return [
        `${indent}${k}:`,
        ...node.items.flatMap((entries) => {
          const column = `${inner}-${node.pad}`.replace(/./g, " ");
          return entries.flatMap(([nk, child], i) => {
            const lines = renderNew(nk, child, column, step);
            return i === 0 ? [`${inner}-${node.pad}${lines[0]!.trimStart()}`, ...lines.slice(1)] : lines;
          });
        }),
      ];
  }
}

test("shapes that once went to yaml: the fast tier reads each one it takes exactly as yaml does, and takes most valid ones", () => {
  let valid = 0;
  let fast = 0;
  fc.assert(
    fc.property(fc.uniqueArray(fc.tuple(key, newNode), { selector: ([k]) => k, minLength: 1, maxLength: 5 }), fc.constantFrom("  ", "  ", " ", "    "), lineEnding, (entries, step, eol) => {
      const text = `${entries.flatMap(([k, node]) => renderNew(k, node, "", step)).join("\n").replace(/\n/g, eol)}${eol}`;
      const doc = parseDocument(text, { version: "1.2", schema: "core", uniqueKeys: true, merge: false, logLevel: "silent" });
      const flat = parseFlat(text);
      if (doc.errors.length > 0 || doc.warnings.length > 0) {
        assert.equal(flat, null, `fast tier accepted what yaml refuses or warns about: ${JSON.stringify(text)}`);
        return;
      }
      valid++;
      if (flat === null) return;
      fast++;
      // Strictly: a number where yaml has text, `-0` for `0`, or a NaN anywhere would show.
      assert.deepStrictEqual(flat, doc.toJS(), `fast tier: ${JSON.stringify(text)}`);
    }),
    { numRuns: 8000 },
  );
  assert.ok(valid >= 2000, `only ${valid} valid documents were generated`);
  assert.ok(fast >= valid * 0.5, `only ${fast} of ${valid} valid documents went through the fast tier`);
});

test("frontmatter shapes from public skills that once went to yaml are read on the fast tier, as yaml reads them", () => {
  // Each the shape of a real SKILL.md frontmatter that the fast tier once handed to `yaml`.
  const documents = [
    "name: -21risk-automation\ndescription: \"Automate 21risk tasks.\"\nrequires:\n  mcp: [rube]\n",
    "name: clean-code\nallowed-tools: Read, Write, Edit\nversion: 2.0\npriority: CRITICAL\n",
    "name: x\nuser-invocable: true\ndisable-model-invocation: false\n",
    "metadata:\n  version: 2.0.0\n  updated: 2026-03-05\n  skills_count: 28\n  ratio: .5\n  big: 12345678901234567890\n  off: ~\n",
    "description: 'Master of defensive Bash scripting for production automation, CI/CD\n\n  pipelines, and system utilities. Expert in safe, portable, and testable shell\n\n  scripts.\n\n  '\nrisk: critical\ndate_added: '2026-02-27'\n",
    'description: "A long one\n  with an \\"escape\\" and \\u00e9,\n\n  and a break"\n',
    "description: This skill should be used when the user asks to \"analyze\n  competitors\", \"assess competitive landscape\", or requests\n  competitive strategy analysis.\nmetadata:\n  version: 1.0.0\n",
    "description:\n  Mermaid diagram specialist for creating flowcharts,\n  and architecture visualizations\nusage:\n  Use when documenting\noutput: Mermaid diagrams\n",
    "hooks:\n  PostToolUse:\n    - matcher: \"Bash\"\n      hooks:\n        - type: command\n          command: \"echo \\\"[$(date)] done\\\" >> ~/.log\"\n",
    "metadata:\n  skill-contributors:\n    - name: A Person\n      role: Author\n    - name: Team\n      role: Review\n",
    "tags: [Data Processing, Ray]\ndependencies: [\"ray[data]\", pyarrow, 'a, b']\nversions: [1, 2.5, true, null]\n",
    "argument-hint:\nlicense: MIT\nnested:\n  empty:\n  next: x\n",
  ];
  for (const text of documents) {
    const doc = parseDocument(text, { version: "1.2", schema: "core", uniqueKeys: true, merge: false, logLevel: "silent" });
    assert.equal(doc.errors.length + doc.warnings.length, 0, `yaml reads ${JSON.stringify(text)}`);
    const flat = parseFlat(text);
    assert.notEqual(flat, null, `fast tier refused ${JSON.stringify(text)}`);
    assert.deepStrictEqual(flat, doc.toJS(), JSON.stringify(text));
  }
  assert.deepStrictEqual(parseFlat("a: 0x1F\nb: 0o17\nc: -.inf\nd: .NaN\ne: 1e3\n"), { a: 31, b: 15, c: Number.NEGATIVE_INFINITY, d: Number.NaN, e: 1000 });
});
