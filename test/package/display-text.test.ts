import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { oneLineText, withoutHiddenCharacters } from "../../src/package/display-text.js";

/** The rule itself, without the shortcut for text that is already one plain line. */
function oneLineByRule(text: string): string {
  return withoutHiddenCharacters(text).replace(/\s+/g, " ").trim();
}

test("one line: the shortcut for plain ASCII words gives what the rule gives, for any text", () => {
  // Mostly printable ASCII and spaces, so the shortcut's edges (a double space, a leading or
  // trailing space, a tab, a control, DEL, one character past ASCII) are met often.
  const near = fc.constantFrom(" ", "  ", "\t", "\n", "\u0000", "\u001f", "\u007f", "\u0080", "\u00a0", "\u200b", "é", "\u{1F600}");
  const char = fc.oneof({ weight: 8, arbitrary: fc.string({ unit: "grapheme-ascii", maxLength: 1 }) }, { weight: 2, arbitrary: near });
  fc.assert(
    fc.property(fc.array(char, { maxLength: 40 }), (parts) => {
      const text = parts.join("");
      assert.equal(oneLineText(text), oneLineByRule(text));
    }),
    { numRuns: 5000 },
  );
  for (const text of ["", "a", "a b", " a", "a ", "a  b", "a\tb", "a\u007fb", "a\u00a0b", "~!", "a\u200bb"]) assert.equal(oneLineText(text), oneLineByRule(text), JSON.stringify(text));
});
