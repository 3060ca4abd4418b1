import assert from "node:assert/strict";
import { test } from "node:test";
import { showInvisible } from "../../src/audit/invisible.js";

test("invisible characters: tag characters are written out, one escape each", () => {
  const hidden = [..."ignore"].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join("");
  assert.equal(showInvisible(`Deploy.${hidden}`), "Deploy.\\u{e0069}\\u{e0067}\\u{e006e}\\u{e006f}\\u{e0072}\\u{e0065}");
  assert.equal(showInvisible("\u{e0000}\u{e007f}"), "\\u{e0000}\\u{e007f}");
  // One past each end of the tag block is not a tag character.
  assert.equal(showInvisible("\u{dffff}"), "\u{dffff}");
  assert.equal(showInvisible("\u{e0080}"), "\u{e0080}");
});

test("invisible characters: bidi controls, marks and isolates are written out", () => {
  for (const code of [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c]) {
    const c = String.fromCodePoint(code);
    assert.equal(showInvisible(`a${c}b`), `a\\u{${code.toString(16)}}b`, code.toString(16));
  }
  // The neighbours of the ranges are ordinary text.
  for (const text of ["\u2029", "\u202f", "\u2065", "\u206a", "\u200a"]) assert.equal(showInvisible(text), text);
});

test("invisible characters: zero-width characters inside text are written out; a leading BOM stays", () => {
  assert.equal(showInvisible("ig\u200bnore"), "ig\\u{200b}nore");
  assert.equal(showInvisible("ig\u2060nore"), "ig\\u{2060}nore");
  assert.equal(showInvisible("\ufeff# Title"), "\ufeff# Title");
  assert.equal(showInvisible("# Ti\ufefftle"), "# Ti\\u{feff}tle");
  // A joiner between ASCII letters hides; between emoji or letters of a script that needs it, it joins.
  assert.equal(showInvisible("ig\u200dnore ig\u200cnore"), "ig\\u{200d}nore ig\\u{200c}nore");
  assert.equal(showInvisible("\u{1f468}\u200d\u{1f469}\u200d\u{1f467}"), "\u{1f468}\u200d\u{1f469}\u200d\u{1f467}");
  assert.equal(showInvisible("\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"), "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645");
  assert.equal(showInvisible("\u{1f468}\u200d\u200d\u{1f469}"), "\u{1f468}\\u{200d}\\u{200d}\u{1f469}");
  assert.equal(showInvisible("\u200d\u{1f469}"), "\\u{200d}\u{1f469}");
  assert.equal(showInvisible("\u{1f469}\u200d"), "\u{1f469}\\u{200d}");
});

test("invisible characters: controls are written out except tab, line feed and the CR of CRLF", () => {
  assert.equal(showInvisible("a\tb\nc\r\nd"), "a\tb\nc\r\nd");
  assert.equal(showInvisible("a\rb"), "a\\u{d}b");
  assert.equal(showInvisible("a\r"), "a\\u{d}");
  assert.equal(showInvisible("\u001b]52;c;ZXZpbA==\u0007"), "\\u{1b}]52;c;ZXZpbA==\\u{7}");
  assert.equal(showInvisible("\u001b[2J\u0000\u000b\u000c\u007f"), "\\u{1b}[2J\\u{0}\\u{b}\\u{c}\\u{7f}");
  assert.equal(showInvisible("\u0080\u009b\u009d\u009f\u00a0"), "\\u{80}\\u{9b}\\u{9d}\\u{9f}\u00a0");
});

test("invisible characters: visible text is returned unchanged, emoji presentation selectors included", () => {
  for (const text of ["", "plain", "caf\u00e9 \u4e2d\u6587 \u2764\ufe0f \u{1f680}", "\u2028", "a\\u{e0041}b"]) assert.equal(showInvisible(text), text);
  assert.equal(showInvisible("\u{e0100}"), "\\u{e0100}");
});
