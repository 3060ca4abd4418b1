/**
 * The level-1 skill catalog for a system prompt (SPEC §6).
 *
 * The output is a pure function of the skill list and the options: the same skills always give
 * the same bytes, so the prompt prefix stays cache-stable across turns and processes.
 *
 * Fitting a budget is arithmetic, not trial and error: the length any cut would render to is
 * summed from per-skill lengths (the escaped name, the escaped description up to the cut), so
 * the catalog is rendered once, at the cut chosen. Measuring trial renders cost about twenty
 * whole catalogs per fit, ~400 ms at 10,000 skills.
 */
import type { SkillInfo } from "../access/types.js";
import { compareNames, ORIGIN_RANK } from "../registry/order.js";
import { showInvisible } from "../audit/invisible.js";
import { oneLineText } from "../package/display-text.js";
import type { Origin } from "../registry/types.js";
import { escapeXml } from "./xml-escape.js";

export type CatalogFormat = "xml" | "markdown";

export interface CatalogOptions {
  format?: CatalogFormat;
  /** Upper bound on the output length in characters (Unicode code points). */
  budgetChars?: number;
}

/**
 * Descriptions are never shortened below this many characters: past that point a description
 * no longer tells the model when to use the skill, and dropping whole low-precedence skills is
 * the more honest trade.
 */
export const MIN_DESCRIPTION_CHARS = 32;

const ELLIPSIS = "…";
const SURROGATE = /[\uD800-\uDFFF]/;
const WHITE_SPACE = /\s/;

type OmissionStyle = "names" | "count";
type Omission = { style: OmissionStyle; names: string[] };

/**
 * One catalog markup, as the lines it is built from. Every variable part arrives escaped, and
 * every piece is the literal text plus what is inserted, so a piece's length is its length with
 * empty insertions plus theirs: that is what lets a cut be measured without rendering it.
 */
interface Markup {
  escape(text: string): string;
  open: readonly string[];
  groupOpen(label: string): string[];
  groupClose: readonly string[];
  entry(name: string, description: string): string;
  omission(style: OmissionStyle, count: number, names: string): string[];
  close: readonly string[];
}

const XML: Markup = {
  escape: escapeXml,
  open: ["<available_skills>"],
  groupOpen: (label) => [`<skill_group label="${label}">`],
  groupClose: ["</skill_group>"],
  entry: (name, description) => `<skill><name>${name}</name><description>${description}</description></skill>`,
  omission: (style, count, names) => [
    style === "names" ? `<skills_omitted count="${count}">${names}</skills_omitted>` : `<skills_omitted count="${count}"/>`,
  ],
  close: ["</available_skills>"],
};

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]<>#|]/g, (char) => `\\${char}`);
}

const MARKDOWN: Markup = {
  escape: escapeMarkdown,
  open: ["## Available skills"],
  groupOpen: (label) => ["", `### ${label}`],
  groupClose: [],
  entry: (name, description) => `- **${name}**: ${description}`,
  omission: (style, count, names) => {
    const noun = count === 1 ? "skill" : "skills";
    return [
      "",
      style === "names"
        ? `${count} more ${noun} left out to fit the catalog budget: ${names}.`
        : `${count} more ${noun} left out to fit the catalog budget.`,
    ];
  },
  close: [],
};

function codePoints(text: string): number {
  if (!SURROGATE.test(text)) return text.length;
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** Code points of lines joined by "\n", counting one separator per line (the caller drops the last). */
function linesLength(lines: readonly string[]): number {
  let total = 0;
  for (const line of lines) total += codePoints(line) + 1;
  return total;
}

/** One skill of the catalog with what measuring its cuts needs. */
interface Entry {
  name: string;
  /** One line: line breaks inside a description would break the one-skill-per-line layout. */
  description: string;
  origin: Origin;
  label: string;
  /** Code points of the description, and of it escaped. */
  points: number;
  escapedPoints: number;
  /**
   * Null for a description measured in place (escaping leaves it as it is, and every character
   * is one code unit). Otherwise the markup that escapes it, and once a cut has been measured,
   * its first code points (as many as the longest cut measured keeps) and the escaped length of
   * each prefix of them (`cutTable`).
   */
  markup: Markup | null;
  chars: string[] | null;
  escapedPrefix: Int32Array | null;
}

/** Deterministic order: origin precedence, then group label, then name. */
function ordered(skills: readonly SkillInfo[], markup: Markup): Entry[] {
  return skills
    .map((skill): Entry => {
      // Invisible characters are shown, not dropped: a model told nothing was there trusts the rest.
      const description = oneLineText(showInvisible(skill.description));
      const plain = !SURROGATE.test(description) && markup.escape(description) === description;
      return {
        name: skill.name,
        description,
        origin: skill.origin,
        label: skill.label,
        points: plain ? description.length : codePoints(description),
        escapedPoints: plain ? description.length : codePoints(markup.escape(description)),
        markup: plain ? null : markup,
        chars: null,
        escapedPrefix: null,
      };
    })
    .sort(
      (a, b) =>
        ORIGIN_RANK[a.origin] - ORIGIN_RANK[b.origin] || compareNames(a.label, b.label) || compareNames(a.name, b.name),
    );
}

/** Escaped code points of each character, per markup: escaping is character by character. */
const escapedLengths = new WeakMap<Markup, Map<string, number>>();

/**
 * The first code points of `entry`'s description, at least `count` of them (all when it has
 * fewer), and the escaped length of each prefix of those; worked out once, and again only for a
 * longer cut. A budget cuts most descriptions of a large catalog to a few dozen characters, so
 * the rest of each is never walked.
 */
function cutTable(entry: Entry & { markup: Markup }, count: number): { chars: string[]; prefix: Int32Array } {
  if (entry.chars === null || entry.escapedPrefix === null || (entry.chars.length < count && entry.chars.length < entry.points)) {
    let lengths = escapedLengths.get(entry.markup);
    if (!lengths) escapedLengths.set(entry.markup, (lengths = new Map()));
    const chars: string[] = [];
    for (const char of entry.description) {
      if (chars.length === count) break;
      chars.push(char);
    }
    const prefix = new Int32Array(chars.length + 1);
    for (let i = 0; i < chars.length; i++) {
      const char = chars[i]!;
      let length = lengths.get(char);
      if (length === undefined) lengths.set(char, (length = codePoints(entry.markup.escape(char))));
      prefix[i + 1] = prefix[i]! + length;
    }
    entry.chars = chars;
    entry.escapedPrefix = prefix;
  }
  return { chars: entry.chars, prefix: entry.escapedPrefix };
}

function shorten(text: string, cap: number): string {
  // Fewer code units than the cap means fewer code points too; without surrogates they are one.
  if (text.length <= cap) return text;
  if (!SURROGATE.test(text)) return text.slice(0, Math.max(cap - 1, 0)).trimEnd() + ELLIPSIS;
  const chars = Array.from(text);
  if (chars.length <= cap) return text;
  return chars.slice(0, Math.max(cap - 1, 0)).join("").trimEnd() + ELLIPSIS;
}

/** Escaped code points of `shorten(entry.description, cap)`, without building it. */
function descriptionLength(entry: Entry, cap: number, ellipsis: number): number {
  if (entry.points <= cap) return entry.escapedPoints;
  let kept = Math.max(cap - 1, 0);
  // `shorten` trims the white space the cut leaves at its end.
  if (entry.markup === null) {
    while (kept > 0 && WHITE_SPACE.test(entry.description[kept - 1]!)) kept--;
    return kept + ellipsis;
  }
  // The cut keeps `kept` code points at most, so only those are walked.
  const { chars, prefix } = cutTable(entry as Entry & { markup: Markup }, kept);
  while (kept > 0 && WHITE_SPACE.test(chars[kept - 1]!)) kept--;
  return prefix[kept]! + ellipsis;
}

function groups(entries: readonly Entry[]): Array<{ label: string; entries: Entry[] }> {
  const result: Array<{ key: string; label: string; entries: Entry[] }> = [];
  for (const entry of entries) {
    const key = `${entry.origin}\u0000${entry.label}`;
    const last = result[result.length - 1];
    if (last && last.key === key) last.entries.push(entry);
    else result.push({ key, label: entry.label, entries: [entry] });
  }
  return result;
}

function render(markup: Markup, entries: readonly Entry[], cap: number, omission: Omission | null): string {
  const lines = [...markup.open];
  for (const group of groups(entries)) {
    lines.push(...markup.groupOpen(markup.escape(group.label)));
    for (const entry of group.entries) lines.push(markup.entry(markup.escape(entry.name), markup.escape(shorten(entry.description, cap))));
    lines.push(...markup.groupClose);
  }
  if (omission) lines.push(...markup.omission(omission.style, omission.names.length, markup.escape(omission.names.join(", "))));
  lines.push(...markup.close);
  return lines.join("\n");
}

/**
 * The rendered length of every cut of one ordered catalog: the first `kept` skills, descriptions
 * cut to `cap`, and optionally a closing line naming or counting the rest. Equal to
 * `codePoints(render(...))` for the same cut, by construction.
 */
class CutLengths {
  private readonly frame: number;
  private readonly entryFrame: number;
  private readonly ellipsis: number;
  private readonly separator: number;
  /** Per skill: its line without the description; per prefix: the groups it opens. */
  private readonly lineFrames: Float64Array;
  private readonly groupsBefore: Float64Array;
  /** Escaped names of the skills from index i on, joined as the omission line joins them. */
  private readonly namesFrom: Float64Array;
  /** Per prefix: lines with descriptions cut to `prefixCap`, computed once for the drop search. */
  private prefixCap = Number.NaN;
  private linesBefore: Float64Array | null = null;

  constructor(
    private readonly markup: Markup,
    private readonly entries: readonly Entry[],
  ) {
    const n = entries.length;
    this.frame = linesLength(markup.open) + linesLength(markup.close);
    this.entryFrame = codePoints(markup.entry("", "")) + 1;
    this.ellipsis = codePoints(markup.escape(ELLIPSIS));
    this.separator = codePoints(markup.escape(", "));
    const groupFrame = linesLength(markup.groupOpen("")) + linesLength(markup.groupClose);
    this.lineFrames = new Float64Array(n);
    this.groupsBefore = new Float64Array(n + 1);
    this.namesFrom = new Float64Array(n + 1);
    let previous = "";
    for (let i = 0; i < n; i++) {
      const entry = entries[i]!;
      this.lineFrames[i] = this.entryFrame + codePoints(markup.escape(entry.name));
      const key = `${entry.origin}\u0000${entry.label}`;
      const opens = i === 0 || key !== previous;
      previous = key;
      this.groupsBefore[i + 1] = this.groupsBefore[i]! + (opens ? groupFrame + codePoints(markup.escape(entry.label)) : 0);
    }
    for (let i = n - 1; i >= 0; i--) {
      this.namesFrom[i] = this.namesFrom[i + 1]! + this.lineFrames[i]! - this.entryFrame + (i < n - 1 ? this.separator : 0);
    }
  }

  /** Length of the first `kept` skills with descriptions cut to `cap`, and the omission line in `style`. */
  length(kept: number, cap: number, style: OmissionStyle | null): number {
    let total = this.frame - 1 + this.groupsBefore[kept]!;
    if (cap === this.prefixCap && this.linesBefore) total += this.linesBefore[kept]!;
    else for (let i = 0; i < kept; i++) total += this.lineFrames[i]! + descriptionLength(this.entries[i]!, cap, this.ellipsis);
    if (style !== null) {
      const rest = this.entries.length - kept;
      total += linesLength(this.markup.omission(style, rest, "")) + (style === "names" ? this.namesFrom[kept]! : 0);
    }
    return total;
  }

  /** Makes `length(kept, cap, …)` constant-time in `kept` for this one `cap`. */
  fixCap(cap: number): void {
    const n = this.entries.length;
    const lines = new Float64Array(n + 1);
    for (let i = 0; i < n; i++) lines[i + 1] = lines[i]! + this.lineFrames[i]! + descriptionLength(this.entries[i]!, cap, this.ellipsis);
    this.linesBefore = lines;
    this.prefixCap = cap;
  }
}

/** Largest `value` in [low, high] with `fits(value)`, given that `fits` is monotone decreasing. */
function largestFitting(low: number, high: number, fits: (value: number) => boolean): number {
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  return low;
}

/**
 * Renders the catalog, or "" when there are no skills (no empty block). With a budget, every
 * description is first cut to one common length (longest first, so all shrink evenly, never
 * below MIN_DESCRIPTION_CHARS); if that is not enough, skills are dropped from the end of the
 * order (lowest-precedence origin first) and a closing line says how many, and which when that
 * fits too. A budget too small even for that note yields "".
 */
export function renderCatalog(skills: readonly SkillInfo[], options: CatalogOptions = {}): string {
  const budget = options.budgetChars;
  if (budget !== undefined && !(Number.isFinite(budget) && budget >= 0)) {
    throw new RangeError(`budgetChars must be a non-negative finite number, got ${String(budget)}`);
  }
  if (skills.length === 0) return "";
  const markup = options.format === "markdown" ? MARKDOWN : XML;
  const entries = ordered(skills, markup);
  if (budget === undefined) return render(markup, entries, Infinity, null);
  const cuts = new CutLengths(markup, entries);
  const all = entries.length;
  if (cuts.length(all, Infinity, null) <= budget) return render(markup, entries, Infinity, null);

  const longest = entries.reduce((most, entry) => Math.max(most, entry.points), 0);
  const floor = Math.min(MIN_DESCRIPTION_CHARS, longest);
  if (cuts.length(all, floor, null) <= budget) {
    const cap = largestFitting(floor, longest, (value) => cuts.length(all, value, null) <= budget);
    return render(markup, entries, cap, null);
  }

  cuts.fixCap(floor);
  for (const style of ["names", "count"] as const) {
    // Keeping fewer skills only ever shortens the text, so the most we can keep is searchable.
    if (cuts.length(0, floor, style) > budget) continue;
    const kept = largestFitting(0, all - 1, (value) => cuts.length(value, floor, style) <= budget);
    const cap = largestFitting(floor, longest, (value) => cuts.length(kept, value, style) <= budget);
    const omission: Omission = { style, names: entries.slice(kept).map((entry) => entry.name) };
    return render(markup, entries.slice(0, kept), cap, omission);
  }
  return "";
}
