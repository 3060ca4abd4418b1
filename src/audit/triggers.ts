/**
 * What a text holds, found in one pass, so a rule that cannot match is skipped without reading
 * the text again (most files trip no rule, and a pass per rule was most of the audit's cost):
 * its words, lower-cased (letters, digits, `_`, `-`), and any literal a rule asks for.
 */
export interface Triggers {
  readonly text: string;
  /** Whether any of the words occurs (lower case). */
  any(...words: string[]): boolean;
  /** Whether the text holds any of these literals, as written. */
  holds(...literals: string[]): boolean;
}

const NOT_WORD = /[^a-z0-9_-]+/;

export function triggersOf(text: string): Triggers {
  let words: Set<string> | null = null;
  const wordSet = (): Set<string> => {
    // One native split of the lower-cased text: a match per word cost several times as much.
    words ??= new Set(text.toLowerCase().split(NOT_WORD));
    return words;
  };
  return {
    text,
    any: (...list) => {
      const set = wordSet();
      return list.some((w) => set.has(w));
    },
    holds: (...literals) => literals.some((l) => text.includes(l)),
  };
}
