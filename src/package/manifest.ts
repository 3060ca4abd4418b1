/**
 * Lenient reading of frontmatter fields (SPEC §1 table): warn and load whenever the skill can
 * still be used, refuse only what cannot be (missing name or description, `tools: []`).
 * The strict, reference-compatible checks live in `validate.ts`; the naming rules both use
 * live in `naming.ts`.
 */
import { diagnostic, type Diagnostic } from "./diagnostic.js";
import { hasUnshowableCharacter } from "./display-text.js";
import { MAX_COMPATIBILITY_LENGTH, MAX_DESCRIPTION_LENGTH, MAX_USABLE_NAME_LENGTH } from "./limits.js";
import { codePointLength, exceedsCodePoints, nameProblems, normalizeName } from "./naming.js";
import { setOwnProperty } from "./own-property.js";
import { DEFAULT_INVOCATION, INVOCATION_KEYS, readInvocationFields } from "./invocation-fields.js";
import { parseRequirements } from "./requirements.js";
import type { SkillInvocation, SkillManifest } from "./types.js";

const KNOWN_KEYS = new Set([
  "name",
  "description",
  "license",
  "compatibility",
  "metadata",
  "allowed-tools",
  "tools",
  "disable-model-invocation",
  ...INVOCATION_KEYS,
]);

/**
 * The metadata and extra-keys value of a manifest whose frontmatter has none: one shared frozen
 * object rather than two fresh empty ones per skill, which a large registry would otherwise
 * hold (and a cold load allocate) by the thousand.
 */
export const NO_FIELDS: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

export interface ManifestResult {
  manifest: SkillManifest | null;
  diagnostics: Diagnostic[];
}

/** Where one manifest's findings collect: one object per skill, where a pair of closures cost three. */
class Findings {
  readonly list: Diagnostic[] = [];
  failed = false;

  constructor(private readonly file: string) {}

  warn(code: string, message: string): void {
    this.list.push(diagnostic(this.file, "warning", code, message));
  }

  fail(code: string, message: string): void {
    this.failed = true;
    this.list.push(diagnostic(this.file, "error", code, message));
  }
}

/** Any character outside printable ASCII: only then can a name hide something. */
const NOT_PLAIN_ASCII = /[^\x21-\x7e]/;

/**
 * `bodyUsesArguments`: whether the body names `$ARGUMENTS` (the loader reads only the
 * frontmatter as text, so it finds that out from the file's bytes and says so here).
 */
export function buildManifest(raw: Record<string, unknown>, skillFile: string, dirName: string, bodyUsesArguments = false): ManifestResult {
  const findings = new Findings(skillFile);

  const name = requiredString(raw, "name", findings);
  const description = requiredString(raw, "description", findings);

  if (name !== null) {
    // Index loops here and below: this runs once per skill of a cold load, mostly before the
    // code is optimised, when each step of a `for...of` still allocates an iterator result.
    const problems = nameProblems(name, dirName);
    for (let i = 0; i < problems.length; i++) findings.warn(problems[i]!.code, problems[i]!.message);
    // Bad characters only warn (SPEC §1), but a name is shown on one line in every listing and
    // catalog, as itself: one holding a line break, a control or an invisible format character
    // could forge entries there, so it cannot be used. A plain ASCII name has none to look for.
    if ((problems.length > 0 || NOT_PLAIN_ASCII.test(name)) && hasUnshowableCharacter(name)) {
      findings.fail("name_unshowable", `Skill name ${JSON.stringify(name)} holds a line break, control or invisible format character; it could not be shown as itself`);
    }
    if (name.length > MAX_USABLE_NAME_LENGTH) {
      findings.fail("name_unusable", `Skill name is ${name.length} characters long; past ${MAX_USABLE_NAME_LENGTH} no call can name it`);
    }
  }
  if (description !== null && exceedsCodePoints(description, MAX_DESCRIPTION_LENGTH)) {
    findings.warn("description_too_long", `Description exceeds ${MAX_DESCRIPTION_LENGTH} character limit (${codePointLength(description)} chars)`);
  }

  const license = optionalString(raw, "license", findings);
  const compatibility = optionalString(raw, "compatibility", findings);
  if (compatibility !== undefined && exceedsCodePoints(compatibility, MAX_COMPATIBILITY_LENGTH)) {
    findings.warn(
      "compatibility_too_long",
      `Compatibility exceeds ${MAX_COMPATIBILITY_LENGTH} character limit (${codePointLength(compatibility)} chars)`,
    );
  }

  const metadata = readMetadata(raw.metadata, findings);
  const allowedTools = toolList(raw, "allowed-tools", findings);
  const tools = toolList(raw, "tools", findings);
  if (tools !== null && tools.length === 0) {
    findings.fail("tools_empty", "`tools: []` would narrow the tool surface to nothing; omit the key to leave the surface alone");
  }

  const requirementsRaw = metadata.requirements ?? nested(metadata.vbot, "requirements");
  let requirements: SkillManifest["requirements"] = null;
  let requirementsError: string | null = null;
  if (requirementsRaw !== undefined) {
    const parsed = parseRequirements(requirementsRaw);
    if (parsed.ok) requirements = parsed.value;
    else {
      requirementsError = parsed.message;
      findings.warn("requirements_invalid", `metadata.requirements is malformed: ${parsed.message}`);
    }
  }

  let disableModelInvocation = false;
  if ("disable-model-invocation" in raw) {
    const v = raw["disable-model-invocation"];
    if (typeof v === "boolean") disableModelInvocation = v;
    else findings.warn("field_type", `disable-model-invocation must be true or false, got ${JSON.stringify(v)}; ignored`);
  }

  const invocation = readInvocationFields(raw, bodyUsesArguments, findings);

  let extra = NO_FIELDS;
  const keys = Object.keys(raw);
  for (let i = 0; i < keys.length; i++) {
    if (KNOWN_KEYS.has(keys[i]!)) continue;
    if (extra === NO_FIELDS) extra = {};
    setOwnProperty(extra, keys[i]!, raw[keys[i]!]);
  }

  if (name === null || description === null || findings.failed) {
    return { manifest: null, diagnostics: findings.list };
  }
  return {
    manifest: composeManifest({
      name: normalizeName(name),
      description,
      license,
      compatibility,
      metadata,
      allowedTools,
      tools,
      requirements,
      requirementsError,
      disableModelInvocation,
      invocation,
      extra,
    }),
    diagnostics: findings.list,
  };
}

type ManifestParts = Omit<SkillManifest, "license" | "compatibility" | "invocation"> & {
  license: string | undefined;
  compatibility: string | undefined;
  /** Default `DEFAULT_INVOCATION`. */
  invocation?: SkillInvocation;
};

/**
 * The one place a manifest object is put together, so the loader and the registry's rebuild
 * of worker records give identical objects: same keys, same order, optional keys absent rather
 * than `undefined`. One literal per shape, because adding keys one by one would give every
 * manifest of a large registry its own property store.
 */
export function composeManifest(p: ManifestParts): SkillManifest {
  const { name, description, license, compatibility, metadata, allowedTools, tools, requirements, requirementsError, disableModelInvocation, extra } = p;
  const invocation = p.invocation ?? DEFAULT_INVOCATION;
  if (license === undefined && compatibility === undefined) {
    return { name, description, metadata, allowedTools, tools, requirements, requirementsError, disableModelInvocation, invocation, extra };
  }
  // Literals rather than spreads of optional parts: a spread copies through a generic path
  // that costs more than the rest of the manifest while a cold load's code is not yet optimised.
  if (compatibility === undefined) {
    return { name, description, license, metadata, allowedTools, tools, requirements, requirementsError, disableModelInvocation, invocation, extra };
  }
  if (license === undefined) {
    return { name, description, compatibility, metadata, allowedTools, tools, requirements, requirementsError, disableModelInvocation, invocation, extra };
  }
  return { name, description, license, compatibility, metadata, allowedTools, tools, requirements, requirementsError, disableModelInvocation, invocation, extra };
}

function requiredString(raw: Record<string, unknown>, key: string, findings: Findings): string | null {
  if (!(key in raw)) {
    findings.fail(`${key}_missing`, `Missing required field in frontmatter: ${key}`);
    return null;
  }
  const v = raw[key];
  let trimmed = "";
  if (typeof v === "string") trimmed = v.trim();
  else if (typeof v === "number" || typeof v === "boolean") {
    // `validate` reads every scalar as text (the reference's YAML is string-only), so loading
    // must not refuse what it accepts (SPEC §1): an unquoted `name: 123` is the name "123".
    // The text is YAML's reading of the value (`007` is the number 7, so "7"); a null, a list
    // or a mapping names nothing and stays refused.
    trimmed = String(v);
    findings.warn("field_type", `Field '${key}' should be a string; read ${JSON.stringify(v)} as its text ${JSON.stringify(trimmed)}`);
  }
  if (trimmed === "") {
    findings.fail(`${key}_invalid`, `Field '${key}' must be a non-empty string`);
    return null;
  }
  return trimmed;
}

function optionalString(raw: Record<string, unknown>, key: string, findings: Findings): string | undefined {
  if (!(key in raw) || raw[key] === null) return undefined;
  const v = raw[key];
  if (typeof v === "string") return v;
  // A number or boolean here is almost always an unquoted value; keep its text rather than lose it.
  if (typeof v === "number" || typeof v === "boolean") {
    findings.warn("field_type", `Field '${key}' should be a string; read ${JSON.stringify(v)} as text`);
    return String(v);
  }
  findings.warn("field_type", `Field '${key}' must be a string; ignored`);
  return undefined;
}

function readMetadata(v: unknown, findings: Findings): Record<string, unknown> {
  if (v === undefined || v === null) return NO_FIELDS;
  if (typeof v !== "object" || Array.isArray(v)) {
    findings.warn("metadata_type", "Field 'metadata' must be a mapping of string keys to string values; ignored");
    return NO_FIELDS;
  }
  const out = v as Record<string, unknown>;
  const keys = Object.keys(out);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    // Requirements are structured by design; every other value should be a string.
    if (k === "requirements" || k === "vbot") continue;
    if (typeof out[k] !== "string") findings.warn("metadata_value_type", `metadata.${k} should be a string, got ${typeOf(out[k])}; kept as written`);
  }
  return out;
}

function toolList(raw: Record<string, unknown>, key: string, findings: Findings): string[] | null {
  if (!(key in raw)) return null;
  const v = raw[key];
  if (v === null) {
    findings.warn("field_type", `Field '${key}' has no value; ignored (list the tools, or omit the key)`);
    return null;
  }
  // Tool names reach model-visible text (the gate's "Available:" list), so one holding a line
  // break or an invisible character is dropped like any other unusable item.
  const usable = (t: unknown): t is string => typeof t === "string" && t.trim() !== "" && !hasUnshowableCharacter(t.trim());
  if (typeof v === "string") {
    const names = splitToolList(v);
    const kept = names.filter(usable);
    if (kept.length !== names.length) findings.warn("field_type", `Field '${key}' names a tool with a control or invisible character; it is ignored`);
    return kept;
  }
  if (Array.isArray(v)) {
    const names = v.filter(usable).map((t) => t.trim());
    if (names.length !== v.length) findings.warn("field_type", `Field '${key}' list items must all be non-empty strings of visible characters; others ignored`);
    if (names.length === 0 && v.length > 0) {
      // Not `tools: []`: the author listed tools, none usable; narrowing to nothing is not what they wrote.
      if (key === "tools") findings.fail("tools_invalid", "Field 'tools' lists no usable tool name (each must be a non-empty string)");
      return null;
    }
    return names;
  }
  findings.warn("field_type", `Field '${key}' must be either a string or a list of strings; ignored`);
  return null;
}

/**
 * Splits on blanks and commas outside parentheses: Claude Code's patterns such as
 * `Bash(git add:*)` hold blanks, and cutting them would pre-approve nonsense tools.
 */
export function splitToolList(text: string): string[] {
  const tools: string[] = [];
  let depth = 0;
  // Each name is the run of code units between two separators, taken with one slice: building
  // it a character at a time cost a large load a string per character.
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x28) depth++;
    else if (code === 0x29) depth = Math.max(0, depth - 1);
    if (depth === 0 && (code === 0x2c || isSpace(code, text, i))) {
      if (i > start) tools.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (text.length > start) tools.push(text.slice(start));
  return tools;
}

/** Whether the code unit at `i` is white space as `\s` has it (no surrogate half ever is). */
function isSpace(code: number, text: string, i: number): boolean {
  if (code < 0x80) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  return WHITE_SPACE.test(text[i]!);
}

const WHITE_SPACE = /\s/;

function nested(v: unknown, key: string): unknown {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>)[key] : undefined;
}

function typeOf(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "a list" : typeof v;
}
