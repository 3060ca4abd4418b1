/**
 * The catalog renderer as it was before budget fitting became arithmetic: every candidate cut
 * rendered in full and measured. Kept only as the oracle the differential test compares the
 * current renderer against, byte for byte.
 */
import type { SkillInfo } from "../../src/access/types.js";
import { compareNames, ORIGIN_RANK } from "../../src/registry/order.js";
import { showInvisible } from "../../src/audit/invisible.js";
import { oneLineText } from "../../src/package/display-text.js";
import type { Origin } from "../../src/registry/types.js";
import { escapeXml } from "../../src/prompt/xml-escape.js";

type CatalogFormat = "xml" | "markdown";

interface CatalogOptions {
  format?: CatalogFormat;
  /** Upper bound on the output length in characters (Unicode code points). */
  budgetChars?: number;
}

/**
 * Descriptions are never shortened below this many characters: past that point a description
 * no longer tells the model when to use the skill, and dropping whole low-precedence skills is
 * the more honest trade.
 */
const MIN_DESCRIPTION_CHARS = 32;

const ELLIPSIS = "…";

interface Entry {
  name: string;
  description: string;
  origin: Origin;
  label: string;
}

type Omission = { style: "names" | "count"; names: string[] };

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** Deterministic order: origin precedence, then group label, then name. */
function ordered(skills: readonly SkillInfo[]): Entry[] {
  return skills
    .map((skill) => ({
      name: skill.name,
      // Line breaks inside a description would break the one-skill-per-line layout.
      description: oneLineText(showInvisible(skill.description)),
      origin: skill.origin,
      label: skill.label,
    }))
    .sort(
      (a, b) =>
        ORIGIN_RANK[a.origin] - ORIGIN_RANK[b.origin] || compareNames(a.label, b.label) || compareNames(a.name, b.name),
    );
}

function shorten(text: string, cap: number): string {
  const chars = Array.from(text);
  if (chars.length <= cap) return text;
  return chars.slice(0, Math.max(cap - 1, 0)).join("").trimEnd() + ELLIPSIS;
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

function renderXml(entries: readonly Entry[], cap: number, omission: Omission | null): string {
  const lines = ["<available_skills>"];
  for (const group of groups(entries)) {
    lines.push(`<skill_group label="${escapeXml(group.label)}">`);
    for (const entry of group.entries) {
      lines.push(
        `<skill><name>${escapeXml(entry.name)}</name><description>${escapeXml(shorten(entry.description, cap))}</description></skill>`,
      );
    }
    lines.push("</skill_group>");
  }
  if (omission) {
    const count = omission.names.length;
    lines.push(
      omission.style === "names"
        ? `<skills_omitted count="${count}">${escapeXml(omission.names.join(", "))}</skills_omitted>`
        : `<skills_omitted count="${count}"/>`,
    );
  }
  lines.push("</available_skills>");
  return lines.join("\n");
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]<>#|]/g, (char) => `\\${char}`);
}

function renderMarkdown(entries: readonly Entry[], cap: number, omission: Omission | null): string {
  const lines = ["## Available skills"];
  for (const group of groups(entries)) {
    lines.push("", `### ${escapeMarkdown(group.label)}`);
    for (const entry of group.entries) {
      lines.push(`- **${escapeMarkdown(entry.name)}**: ${escapeMarkdown(shorten(entry.description, cap))}`);
    }
  }
  if (omission) {
    const count = omission.names.length;
    const noun = count === 1 ? "skill" : "skills";
    lines.push(
      "",
      omission.style === "names"
        ? `${count} more ${noun} left out to fit the catalog budget: ${escapeMarkdown(omission.names.join(", "))}.`
        : `${count} more ${noun} left out to fit the catalog budget.`,
    );
  }
  return lines.join("\n");
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
export function renderCatalogByWholeRenders(skills: readonly SkillInfo[], options: CatalogOptions = {}): string {
  const budget = options.budgetChars;
  if (budget !== undefined && !(Number.isFinite(budget) && budget >= 0)) {
    throw new RangeError(`budgetChars must be a non-negative finite number, got ${String(budget)}`);
  }
  if (skills.length === 0) return "";
  const render = options.format === "markdown" ? renderMarkdown : renderXml;
  const entries = ordered(skills);
  const full = render(entries, Infinity, null);
  if (budget === undefined || codePoints(full) <= budget) return full;

  const longest = entries.reduce((most, entry) => Math.max(most, codePoints(entry.description)), 0);
  const floor = Math.min(MIN_DESCRIPTION_CHARS, longest);
  const fits = (kept: number, cap: number, omission: Omission | null) =>
    codePoints(render(entries.slice(0, kept), cap, omission)) <= budget;

  if (fits(entries.length, floor, null)) {
    const cap = largestFitting(floor, longest, (value) => fits(entries.length, value, null));
    return render(entries, cap, null);
  }

  const omissionFor = (style: Omission["style"], kept: number): Omission => ({
    style,
    names: entries.slice(kept).map((entry) => entry.name),
  });
  for (const style of ["names", "count"] as const) {
    // Keeping fewer skills only ever shortens the text, so the most we can keep is searchable.
    if (!fits(0, floor, omissionFor(style, 0))) continue;
    const kept = largestFitting(0, entries.length - 1, (value) => fits(value, floor, omissionFor(style, value)));
    const omission = omissionFor(style, kept);
    const cap = largestFitting(floor, longest, (value) => fits(kept, value, omission));
    return render(entries.slice(0, kept), cap, omission);
  }
  return "";
}
