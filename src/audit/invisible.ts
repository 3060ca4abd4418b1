/**
 * Characters that show nothing, or that change how the text around them reads, written out as
 * visible escapes wherever text reaches a model or a terminal (SPEC §12: the model never
 * receives invisible characters unmarked).
 *
 * Tag characters spell words only a model reads; bidi controls make text read in another order
 * than it is stored; zero-width characters split or hide words; controls (ESC, BEL, the C1
 * range) redraw a terminal, retitle it or write its clipboard (OSC 52). Dropping them would hide
 * that they were there, so each is replaced by the one escape form the project uses everywhere:
 * `\u{…}`, the code point in lowercase hexadecimal (`\u{e0041}`, `\u{202e}`, `\u{1b}`).
 *
 * The same rule serves the model and the terminal: what hides text from a model is what
 * redraws a terminal, and one function keeps the two from drifting apart.
 */

/**
 * Controls other than tab and line feed (a carriage return is matched apart: it stays before a
 * line feed); the Arabic letter mark, the Mongolian vowel separator, the zero-width space, the
 * bidi marks, embeddings, overrides and isolates; the word joiner and the invisible operators;
 * the byte-order mark (kept only at the very start, where editors write it); tag characters;
 * the supplementary variation selectors (a byte per selector smuggles text behind one emoji).
 * The zero-width non-joiner and joiner are matched apart, since scripts and emoji need them.
 */
const INVISIBLE =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]|\r(?!\n)|[\u200c\u200d]/gu;

/** Whether anything in `text` could be written out; most text has nothing, and is returned as is. */
const ANY = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]/u;

/** `text` with every invisible character written out as `\u{…}`; everything else as written. */
export function showInvisible(text: string): string {
  if (!ANY.test(text)) return text;
  return text.replace(INVISIBLE, (c: string, offset: number, whole: string) => (kept(c, offset, whole) ? c : escape(c)));
}

function kept(c: string, offset: number, whole: string): boolean {
  if (c === "\ufeff") return offset === 0;
  if (c === "\u200c" || c === "\u200d") return joins(whole, offset);
  return false;
}

/**
 * A non-joiner or joiner stays where a script or an emoji sequence uses it: between two visible
 * characters outside ASCII (Persian words, family emoji, `❤️‍🔥`). Next to ASCII, next to a
 * space or another invisible character, it only hides something (`ig\u{200d}nore`, or a run of
 * them encoding bits), so it is written out.
 */
function joins(whole: string, offset: number): boolean {
  const before = codePointBefore(whole, offset);
  const after = whole.codePointAt(offset + 1);
  return joinable(before) && joinable(after);
}

function joinable(code: number | undefined): boolean {
  if (code === undefined || code < 0x80) return false;
  const c = String.fromCodePoint(code);
  return !/[\s\u200c\u200d]/u.test(c) && !ANY.test(c);
}

function codePointBefore(text: string, offset: number): number | undefined {
  if (offset === 0) return undefined;
  const last = text.charCodeAt(offset - 1);
  if (last >= 0xdc00 && last <= 0xdfff && offset >= 2) return text.codePointAt(offset - 2);
  return last;
}

function escape(c: string): string {
  return `\\u{${c.codePointAt(0)!.toString(16)}}`;
}
