/**
 * The MCP Skills Extension's rule for a skill's frontmatter (SEP-2640: the official SDK's entry
 * validators), on the frontmatter exactly as parsed. In the package layer so that loading can
 * record, once, that a skill's frontmatter needs nothing from it (`SkillPackage.entryReady`),
 * and `list` and `doctor` need not read and parse every SKILL.md again to say so; the server's
 * entries (src/adapters/skill-entry.ts) decide by the same functions.
 */
const SKILL_NAME_PATTERN = /^[\da-z]+(?:-[\da-z]+)*$/;

/**
 * The entry's frontmatter from the frontmatter as parsed, or why there is none. `metadata` whose
 * values are not all text is the one problem fixed rather than refused: skillport's own
 * `metadata.requirements` is a map, and leaving it out of the entry loses the client nothing it
 * could read (the extension's validators accept only text there), while refusing would hide
 * the whole skill. Everything else the validators refuse stays refused: a description cut
 * short or a name changed would be a different skill.
 */
export function entryFrontmatter(frontmatter: Record<string, unknown>, skillName: string): { ok: true; frontmatter: Record<string, unknown>; leftOut: string[] } | { ok: false; problems: string[] } {
  const leftOut: string[] = [];
  let result = frontmatter;
  const metadata = frontmatter.metadata;
  if (metadata !== undefined && !isStringMap(metadata)) {
    result = { ...frontmatter };
    if (typeof metadata === "object" && metadata !== null && !Array.isArray(metadata)) {
      const kept: Record<string, string> = {};
      for (const [key, value] of Object.entries(metadata)) {
        if (typeof value === "string") kept[key] = value;
        else leftOut.push(`metadata.${key}`);
      }
      // Nothing textual left: the key goes too, rather than publish an empty map nobody wrote.
      if (Object.keys(kept).length > 0) result.metadata = kept;
      else delete result.metadata;
    } else {
      leftOut.push("metadata");
      delete result.metadata;
    }
  }
  const problems = frontmatterProblems(result, skillName);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, frontmatter: result, leftOut };
}

/** Whether the extension serves this frontmatter as it is: no problem, nothing left out. */
export function isEntryReady(frontmatter: Record<string, unknown>, skillName: string): boolean {
  const decided = entryFrontmatter(frontmatter, skillName);
  return decided.ok && decided.leftOut.length === 0;
}

/**
 * What the official SDK's entry validator (and its client) would refuse, checked on the
 * frontmatter exactly as parsed: a `name: 123` that loading reads as text is a number here.
 */
export function frontmatterProblems(frontmatter: Record<string, unknown>, skillName: string): string[] {
  const problems: string[] = [];
  if (!isJsonValue(frontmatter)) problems.push("its frontmatter holds values JSON cannot carry");
  if (Object.prototype.hasOwnProperty.call(frontmatter, "__proto__")) problems.push('its frontmatter has a "__proto__" key');
  const { name, description, compatibility, metadata } = frontmatter;
  if (typeof name !== "string" || name.length === 0 || name.length > 64 || !SKILL_NAME_PATTERN.test(name)) {
    problems.push(`frontmatter name ${JSON.stringify(name)} must be 1-64 lowercase letters, digits and single hyphens`);
  } else if (name !== skillName) {
    problems.push(`frontmatter name ${JSON.stringify(name)} is not the name it is served under`);
  }
  if (typeof description !== "string" || description === "" || codePointsOver(description, 1024)) {
    problems.push("frontmatter description must be a string of 1-1024 characters");
  }
  if (compatibility !== undefined && (typeof compatibility !== "string" || compatibility === "" || codePointsOver(compatibility, 500))) {
    problems.push("frontmatter compatibility must be a string of 1-500 characters");
  }
  if (metadata !== undefined && !isStringMap(metadata)) problems.push("frontmatter metadata must map strings to strings");
  return problems;
}

/**
 * Whether `text` has more than `limit` code points, as `[...text].length` counts them (a lone
 * surrogate is one), without building that array: loading asks this of every description, and
 * a text no longer than the limit in UTF-16 units cannot be longer in code points.
 */
function codePointsOver(text: string, limit: number): boolean {
  if (text.length <= limit) return false;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    if (++count > limit) return true;
  }
  return false;
}

function isStringMap(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.values(value).every((item) => typeof item === "string");
}

function isJsonValue(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  // Loops rather than `every` over `Object.values`: loading asks this of every frontmatter, and
  // the closures and arrays were most of what it cost.
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!isJsonValue(value[i], depth + 1)) return false;
    return true;
  }
  if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return false;
    const record = value as Record<string, unknown>;
    for (const key in record) if (Object.hasOwn(record, key) && !isJsonValue(record[key], depth + 1)) return false;
    return true;
  }
  return false;
}

