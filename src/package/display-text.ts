/**
 * Author text (names, descriptions, licence lines) shown to a model or a person. A project's
 * skills are untrusted: a control character can redraw a terminal (ANSI escapes) or end an XML
 * document (NUL, ESC are not XML characters), and a bidi override or zero-width space can make
 * text read differently from what it says. Those show nothing themselves, so they are dropped
 * from what is shown; the skill's own fields keep them as written.
 */

/**
 * C0 and C1 controls other than tab, line feed and carriage return; bidi marks, embeddings,
 * overrides and isolates; zero-width space, word joiner and the byte-order mark. Zero-width
 * (non-)joiners stay: scripts and emoji need them.
 */
const HIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;

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
  return text.replace(HIDDEN, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

/** `text` as one line: hidden characters dropped, every run of whitespace one space. */
export function oneLineText(text: string): string {
  return withoutHiddenCharacters(text).replace(/\s+/g, " ").trim();
}

/** Whether a name holds a character that cannot be shown on one line as itself (a control, format or line-separator character). */
export function hasUnshowableCharacter(name: string): boolean {
  return /[\p{Cc}\p{Cf}\u2028\u2029]/u.test(name);
}
