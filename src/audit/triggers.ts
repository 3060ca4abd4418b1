/**
 * What a text holds, found in one pass, so a rule that cannot match is skipped without reading
 * the text again (most files trip no rule, and a pass per rule was most of the audit's cost):
 * its words, lower-cased (letters, digits, `_`, `-`), and any literal a rule asks for.
 */
import { Buffer } from "node:buffer";

export interface Triggers {
  readonly text: string;
  /** Whether any of the words occurs (lower case). */
  any(...words: string[]): boolean;
  /** Whether the text holds any of these literals, as written. */
  holds(...literals: string[]): boolean;
  /** Whether the text holds a character past ASCII (every invisible character is one). */
  nonAscii(): boolean;
}

const NOT_WORD = /[^a-z0-9_-]+/;
const WORD_CHAR = /^[a-z0-9_-]+$/;

/**
 * The words the rules ask about, found with one regular-expression pass instead of splitting
 * the whole text into words (which allocated a string per word and cost most of a load's audit).
 * The pass is looser than a word of the split (`\b` treats `-` as a boundary, so `x-curl` shows
 * `curl`): it may run a rule that then finds nothing, never skip one.
 */
export interface Vocabulary {
  readonly words: ReadonlySet<string>;
  /** The literals the pass also looks for (as written; found in any letter case, which only runs more rules). */
  readonly literals: ReadonlySet<string>;
  /** Each literal looked for (lower case), with the literals it starts with: the pass reports the longest. */
  readonly within: ReadonlyMap<string, readonly string[]>;
  readonly pattern: RegExp;
}

// Characters whose lower case is an ASCII letter (the Kelvin sign, the dotted capital I): the
// split lower-cases them into words the pass cannot see, so a text holding one asks the split too.
const FOLDS_TO_ASCII = String.raw`[\u0130\u212a]`;
const PRINTABLE_ASCII = /^[\x20-\x7e]{2,}$/;

const byLength = (a: string, b: string): number => b.length - a.length || (a < b ? -1 : 1);
const escapeLiteral = (l: string): string => l.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

export function vocabularyOf(words: Iterable<string>, literals: Iterable<string> = []): Vocabulary {
  const set = new Set([...words].filter((w) => WORD_CHAR.test(w)));
  // A literal is looked for at every position the pass does not consume a word from; one that
  // could start inside a word of the vocabulary is searched for apart, by `includes`: it lies in
  // the word, or starts with the word's end and then (the word ending at a boundary) a character
  // that is not a word's.
  const overlaps = (lower: string): boolean =>
    [...set].some((w) =>
      [...w].some((_, i) => {
        const end = w.slice(i);
        return end.startsWith(lower) || (lower.startsWith(end) && !/\w/.test(lower[end.length]!));
      }),
    );
  const lits = new Set([...literals].filter((l) => PRINTABLE_ASCII.test(l) && !overlaps(l.toLowerCase())));
  const lower = [...new Set([...lits].map((l) => l.toLowerCase()))];
  const within = new Map(lower.map((l) => [l, lower.filter((o) => l.startsWith(o))] as const));
  // Longest first, so an alternative that is a prefix of another does not hide it.
  const wordAlternatives = [...set].sort(byLength).map((w) => w.replace(/-/g, "\\-"));
  const literalAlternatives = [...lits].sort(byLength).map(escapeLiteral);
  const parts = [`\\b(?:${wordAlternatives.join("|")})\\b`];
  // A look-ahead: it consumes nothing, so a literal never hides a word or literal after its start.
  if (literalAlternatives.length > 0) parts.push(`(?=(${literalAlternatives.join("|")}))`);
  parts.push(FOLDS_TO_ASCII);
  return { words: set, literals: lits, within, pattern: new RegExp(parts.join("|"), "gi") };
}

/**
 * Every word the `needs` tests ask `any` about, found by running each test against answers
 * drawn at random (a fixed seed): an `a && b || c` asks about b and c only under some answers.
 * A word this misses is still answered right, by the split, only slower.
 */
export function wordsAskedBy(needs: ReadonlyArray<(t: Triggers) => boolean>, trials = 64, literalsAsked?: Set<string>): Set<string> {
  const asked = new Set<string>();
  let seed = 0x9e3779b9;
  const coin = (): boolean => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return (seed & 0x10000) !== 0;
  };
  const probe: Triggers = {
    text: "",
    any: (...words) => {
      for (const w of words) asked.add(w);
      return coin();
    },
    holds: (...literals) => {
      for (const l of literals) literalsAsked?.add(l);
      return coin();
    },
    nonAscii: () => coin(),
  };
  for (const need of needs) for (let i = 0; i < trials; i++) need(probe);
  return asked;
}

const literalPatterns = new Map<string, RegExp>();

/** One pass for a list of literals instead of one `includes` per literal (the credential stores are 29). */
function literalPattern(literals: readonly string[]): RegExp {
  const key = literals.join("\0");
  let re = literalPatterns.get(key);
  if (re === undefined) {
    re = new RegExp(literals.map((l) => l.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&")).join("|"));
    literalPatterns.set(key, re);
  }
  return re;
}

export function triggersOf(text: string, vocabulary?: Vocabulary): Triggers {
  let words: Set<string> | null = null;
  const wordSet = (): Set<string> => {
    // One native split of the lower-cased text: a match per word cost several times as much.
    words ??= new Set(text.toLowerCase().split(NOT_WORD));
    return words;
  };
  let seen: Set<string> | null = null;
  const seenLiterals = new Set<string>();
  // Whether the text holds a character that lower-cases into ASCII: then a word is there when
  // the pass sees it (as the rules' patterns do) or the split does.
  let folds = false;
  const seenWords = (): Set<string> => {
    if (seen === null) {
      seen = new Set();
      for (const m of text.matchAll(vocabulary!.pattern)) {
        if (m[1] !== undefined) {
          for (const l of vocabulary!.within.get(m[1].toLowerCase()) ?? []) seenLiterals.add(l);
          continue;
        }
        const w = m[0].toLowerCase();
        if (vocabulary!.words.has(w)) seen.add(w);
        else folds = true;
      }
    }
    return seen;
  };
  const known = (w: string): boolean => vocabulary!.words.has(w);
  const inSplit = (list: readonly string[]): boolean => {
    const set = wordSet();
    return list.some((w) => set.has(w));
  };
  let nonAscii: boolean | undefined;
  return {
    text,
    any: (...list) => {
      // A word the pass was not told about (none, when the vocabulary came from the rules) is answered by both ways of reading words.
      if (vocabulary === undefined) return inSplit(list);
      if (!list.every(known)) return inSplit(list) || list.some((w) => new RegExp(`\\b${w.replace(/-/g, "\\-")}\\b`, "i").test(text));
      const found = seenWords();
      return list.some((w) => found.has(w)) || (folds && inSplit(list));
    },
    holds: (...literals) => {
      if (vocabulary !== undefined && literals.some((l) => vocabulary.literals.has(l))) {
        seenWords();
        if (literals.some((l) => vocabulary.literals.has(l) && seenLiterals.has(l.toLowerCase()))) return true;
        literals = literals.filter((l) => !vocabulary.literals.has(l));
        if (literals.length === 0) return false;
      }
      return literals.length === 1 ? text.includes(literals[0]!) : literalPattern(literals).test(text);
    },
    // UTF-8 takes more bytes than UTF-16 takes units exactly for a character past ASCII; the
    // length is counted natively, twenty times faster than a regular expression finds one.
    nonAscii: () => (nonAscii ??= Buffer.byteLength(text, "utf8") !== text.length),
  };
}
