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
 * The words the rules ask about, found by one scan of the text's character codes that hashes
 * each run of word characters and looks the hash up, instead of a regular expression of 126
 * alternatives in any letter case (which was most of a load's audit) or splitting the text into
 * words (which allocated a string per word). A string is made only when a hash matches. The scan
 * is looser than a word of the split (`-` ends a run, so `x-curl` shows `curl`): it may run a
 * rule that then finds nothing, never skip one.
 */
export interface Vocabulary {
  readonly words: ReadonlySet<string>;
  /** Open-addressed hash table: a slot holds an index into `entries`, or -1. */
  readonly slots: Int32Array;
  readonly entries: readonly VocabularyEntry[];
}

interface VocabularyEntry {
  readonly word: string;
  /** The hash and length of the word's last run of word characters, which the scan meets. */
  readonly hash: number;
  readonly runLength: number;
  /** How many characters of the word come before that run (`invoke-` of `invoke-webrequest`). */
  readonly before: number;
}

// A word character as `\b` knows it ([A-Za-z0-9_]), by code unit: its lower case, or 0. Every
// code unit has an entry, so the scan reads one table per character and compares nothing else;
// the two characters that lower-case into ASCII (the Kelvin sign, the dotted capital I) are marked
// FOLDS: the split lower-cases them into words the scan cannot see, so a text holding one asks the
// split too.
const LOWER = new Uint8Array(0x10000);
const FOLDS = 1;
for (const c of "abcdefghijklmnopqrstuvwxyz0123456789_") LOWER[c.charCodeAt(0)] = c.charCodeAt(0);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZ") LOWER[c.charCodeAt(0)] = c.toLowerCase().charCodeAt(0);
LOWER[0x130] = FOLDS;
LOWER[0x212a] = FOLDS;
const isWordCode = (lower: number): boolean => lower > FOLDS;

const step = (hash: number, lower: number): number => (Math.imul(hash, 31) + lower) | 0;

function hashOf(run: string): number {
  let h = 0;
  for (let i = 0; i < run.length; i++) h = step(h, run.charCodeAt(i));
  return h;
}

export function vocabularyOf(words: Iterable<string>): Vocabulary {
  const set = new Set([...words].filter((w) => WORD_CHAR.test(w) && /^[a-z0-9_]/.test(w) && /[a-z0-9_]$/.test(w) && !w.includes("--")));
  const entries: VocabularyEntry[] = [...set].map((word) => {
    const last = word.slice(word.lastIndexOf("-") + 1);
    return { word, hash: hashOf(last), runLength: last.length, before: word.length - last.length };
  });
  // At most one slot in sixteen full: most runs of text are no word, and their look-up should
  // end at the first, empty, slot.
  let size = 16;
  while (size < entries.length * 16) size *= 2;
  const slots = new Int32Array(size).fill(-1);
  entries.forEach((e, i) => {
    let s = e.hash & (size - 1);
    while (slots[s] !== -1) s = (s + 1) & (size - 1);
    slots[s] = i;
  });
  return { words: set, slots, entries };
}

/**
 * The vocabulary's words in `text`: every run of word characters whose lower case is a word, or
 * ends one joined by hyphens (`Invoke-WebRequest`) that starts at a word boundary. Returns
 * whether the text holds a character that lower-cases into ASCII.
 */
function scanWords(text: string, vocabulary: Vocabulary, seen: Set<string>): boolean {
  const { slots, entries } = vocabulary;
  const mask = slots.length - 1;
  const n = text.length;
  let folds = false;
  let i = 0;
  while (i < n) {
    let lower = LOWER[text.charCodeAt(i)]!;
    if (!isWordCode(lower)) {
      if (lower === FOLDS) folds = true;
      i++;
      continue;
    }
    const start = i;
    let h = 0;
    do {
      h = step(h, lower);
      i++;
      lower = i < n ? LOWER[text.charCodeAt(i)]! : 0;
    } while (isWordCode(lower));
    for (let s = h & mask; slots[s] !== -1; s = (s + 1) & mask) {
      const e = entries[slots[s]!]!;
      if (e.hash !== h || e.runLength !== i - start) continue;
      const from = start - e.before;
      if (from < 0) continue;
      if (e.before > 0) {
        // A hyphenated word starts at a boundary: no word character before it.
        if (from > 0 && isWordCode(LOWER[text.charCodeAt(from - 1)]!)) continue;
      }
      if (text.slice(from, i).toLowerCase() === e.word) seen.add(e.word);
    }
  }
  return folds;
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

export function triggersOf(text: string, vocabulary?: Vocabulary): Triggers {
  let words: Set<string> | null = null;
  const wordSet = (): Set<string> => {
    // One native split of the lower-cased text: a match per word cost several times as much.
    words ??= new Set(text.toLowerCase().split(NOT_WORD));
    return words;
  };
  let seen: Set<string> | null = null;
  // Whether the text holds a character that lower-cases into ASCII: then a word is there when
  // the scan sees it (as the rules' patterns do) or the split does.
  let folds = false;
  const seenWords = (): Set<string> => {
    if (seen === null) {
      seen = new Set();
      folds = scanWords(text, vocabulary!, seen);
    }
    return seen;
  };
  const known = (w: string): boolean => vocabulary!.words.has(w);
  const inSplit = (list: readonly string[]): boolean => {
    const set = wordSet();
    return list.some((w) => set.has(w));
  };
  // Each literal is looked for once per text, as written: the rules that ask for one match it as written.
  const literalSeen = new Map<string, boolean>();
  const holdsLiteral = (l: string): boolean => {
    let found = literalSeen.get(l);
    if (found === undefined) literalSeen.set(l, (found = text.includes(l)));
    return found;
  };
  let nonAscii: boolean | undefined;
  return {
    text,
    any: (...list) => {
      // A word the scan was not told about (none, when the vocabulary came from the rules) is answered by both ways of reading words.
      if (vocabulary === undefined) return inSplit(list);
      const found = seenWords();
      // One look-up per word: most texts hold none of the vocabulary, and the rules ask often.
      let unknown = false;
      const none = found.size === 0;
      for (const w of list) {
        if (!known(w)) unknown = true;
        else if (!none && found.has(w)) return true;
      }
      if (unknown) return inSplit(list) || list.some((w) => new RegExp(`\\b${w.replace(/-/g, "\\-")}\\b`, "i").test(text));
      return folds && inSplit(list);
    },
    holds: (...literals) => literals.some(holdsLiteral),
    // UTF-8 takes more bytes than UTF-16 takes units exactly for a character past ASCII; the
    // length is counted natively, twenty times faster than a regular expression finds one.
    nonAscii: () => (nonAscii ??= Buffer.byteLength(text, "utf8") !== text.length),
  };
}
