/**
 * Names one could pass for another (SPEC §12 `confusable-name`): the same after folding
 * look-alike letters (Cyrillic and Greek letters that look Latin, digits that look like
 * letters), or one edit away (a letter added, dropped, changed or two swapped) when long
 * enough that one edit is a typo and not a different word.
 */
import { CONFUSABLE_NAME } from "./rules.js";
import type { Finding } from "./types.js";

const LOOK_ALIKES: Record<string, string> = {
  а: "a", в: "b", е: "e", к: "k", м: "m", н: "h", о: "o", р: "p", с: "c", т: "t", у: "y", х: "x", ѕ: "s", і: "i", ј: "j", ԁ: "d", ӏ: "l", ԛ: "q", ԝ: "w",
  α: "a", β: "b", ε: "e", η: "n", ι: "i", κ: "k", ν: "v", ο: "o", ρ: "p", τ: "t", υ: "u", χ: "x", ω: "w",
  ɡ: "g", ı: "i", ȷ: "j", "0": "o", "1": "l", "|": "l", _: "-", ".": "-",
};

/** The name with look-alikes folded to the letter they pass for. */
export function skeleton(name: string): string {
  const folded = [...name.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase()].map((c) => LOOK_ALIKES[c] ?? c).join("");
  return folded.replace(/rn/g, "m").replace(/vv/g, "w").replace(/i/g, "l");
}

// Below this one edit turns a word into another word (`pdf`/`pdfs`, `api`/`app`).
const MIN_EDIT_LENGTH = 8;

/** Whether a and b are one insertion, deletion, substitution or transposition apart. */
export function oneEditApart(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  const [long, short] = a.length > b.length ? [a, b] : [b, a];
  return long.slice(i + 1) === short.slice(i);
}

export function confusableFindings(name: string, otherNames: readonly string[]): Finding[] {
  const mine = skeleton(name);
  const out: Finding[] = [];
  for (const other of otherNames) {
    if (other === name) continue;
    const lookAlike = skeleton(other) === mine;
    const typo = !lookAlike && Math.min(name.length, other.length) >= MIN_EDIT_LENGTH && oneEditApart(name.toLowerCase(), other.toLowerCase());
    if (!lookAlike && !typo) continue;
    const how = lookAlike ? "looks the same as" : "is one edit away from";
    out.push({
      rule: CONFUSABLE_NAME.id,
      severity: CONFUSABLE_NAME.severity,
      file: "SKILL.md",
      line: 1,
      message: `${CONFUSABLE_NAME.reason} (${JSON.stringify(name)} ${how} ${JSON.stringify(other)})`,
      excerpt: name,
    });
  }
  return out;
}
