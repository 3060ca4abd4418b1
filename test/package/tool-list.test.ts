import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { splitToolList } from "../../src/package/manifest.js";

/** The rule, a character at a time: blanks and commas split, except inside parentheses. */
function splitByRule(text: string): string[] {
  const tools: string[] = [];
  let depth = 0;
  let current = "";
  for (const c of text) {
    if (c === "(") depth++;
    else if (c === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (c === "," || /\s/.test(c))) {
      if (current !== "") tools.push(current);
      current = "";
    } else current += c;
  }
  if (current !== "") tools.push(current);
  return tools;
}

test("a tool list splits on blanks and commas outside parentheses", () => {
  assert.deepEqual(splitToolList("Bash(git add:*) Read, Write"), ["Bash(git add:*)", "Read", "Write"]);
  assert.deepEqual(splitToolList("  a,,b\u00a0c\u3000d\ufeffe "), ["a", "b", "c", "d", "e"]);
  assert.deepEqual(splitToolList("x) y(z, w)"), ["x)", "y(z, w)"]);
  assert.deepEqual(splitToolList(""), []);
});

test("a tool list splits as the character-by-character rule does, for any text", () => {
  // Separators, every kind of white space, parentheses and characters outside the BMP (and a lone
  // surrogate half), where splitting by code unit and by character could part ways.
  const char = fc.constantFrom("a", "B", "(", ")", ",", " ", "\t", "\n", "\u000b", "\u00a0", "\u1680", "\u2028", "\ufeff", "\u3000", "é", "\u{1F600}", "\ud800", ":", "*");
  fc.assert(
    fc.property(fc.array(char, { maxLength: 30 }), (parts) => {
      const text = parts.join("");
      assert.deepEqual(splitToolList(text), splitByRule(text));
    }),
    { numRuns: 5000 },
  );
});
