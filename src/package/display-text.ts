/**
 * Author text (names, descriptions, licence lines, file names) shown to a model or a person. A
 * project's skills are untrusted: a control character can redraw a terminal (ANSI escapes) or
 * end an XML document (NUL, ESC are not XML characters), and a bidi override, a tag character
 * or any other default-ignorable character makes text read differently from what it says
 * (tag characters spell words only a model sees). Those show nothing themselves, so they are
 * dropped from what is shown; the skill's own fields keep them as written.
 */

/**
 * Controls other than tab, line feed and carriage return; format characters (bidi marks and
 * overrides, tags, zero-width space); every other default-ignorable character (variation
 * selectors, the combining grapheme joiner, Hangul fillers, soft hyphen). The zero-width
 * joiner and non-joiner stay: scripts and emoji need them.
 */
const HIDDEN_CHARACTER = /(?![\u200c\u200d])[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
const HIDDEN = new RegExp(HIDDEN_CHARACTER.source, "gu");

/** `text` without the characters that show nothing but change how text around them reads. */
export function withoutHiddenCharacters(text: string): string {
  return text.replace(HIDDEN, "");
}

/**
 * `text` with each hidden character written out as `\u{…}`, for a person's terminal: an ANSI
 * sequence in a licence line then cannot clear the screen or retitle the window, and the
 * person sees that the character is there.
 */
export function withHiddenCharactersShown(text: string): string {
  return text.replace(HIDDEN, escaped);
}

/** As `withHiddenCharactersShown`, with line breaks written out too: for a value shown on one line of a table or listing. */
export function oneLineShown(text: string): string {
  return withHiddenCharactersShown(text).replace(/[\n\r\u2028\u2029]/g, escaped);
}

/**
 * Printable ASCII words with single spaces between them: already one line, with nothing hidden.
 * Most descriptions are this, and a catalog of thousands asked the Unicode rule of each.
 */
const PLAIN_LINE = /^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/;

/** `text` as one line: hidden characters dropped, every run of whitespace one space. */
export function oneLineText(text: string): string {
  if (PLAIN_LINE.test(text)) return text;
  return withoutHiddenCharacters(text).replace(/\s+/g, " ").trim();
}

/** Whether a name holds a character that cannot be shown on one line as itself: a control, a line separator, or a hidden character. */
export function hasUnshowableCharacter(name: string): boolean {
  return /[\p{Cc}\u2028\u2029\u200c\u200d]/u.test(name) || HIDDEN_CHARACTER.test(name);
}

function escaped(c: string): string {
  return `\\u{${c.codePointAt(0)!.toString(16)}}`;
}
