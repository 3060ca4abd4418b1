/**
 * Safe YAML for frontmatter (SPEC §1): unique keys, bounded aliases and depth, no tag that
 * constructs code.
 *
 * Three tiers, all giving YAML 1.2 core-schema results:
 * 1. A flat fast path for the common shape (`key: plain or simply-quoted scalar` lines). It
 *    accepts only text whose meaning is unambiguous and hands anything else down, so it can
 *    never disagree with a real parser (a property test checks that against `yaml`).
 * 2. js-yaml with its core schema when the text holds no anchor, alias or tag: about 3× faster
 *    than `yaml`, and without aliases there is nothing to bound.
 * 3. `yaml` with `maxAliasCount` otherwise: a "billion laughs" document fails fast there.
 */
import jsYaml from "js-yaml";
import { parseDocument } from "yaml";
import { MAX_YAML_ALIASES, MAX_YAML_DEPTH } from "./limits.js";

export type YamlResult =
  | { ok: true; value: unknown }
  | { ok: false; message: string; /** 0-based line within the frontmatter, when known */ line?: number };

export function parseYaml(text: string): YamlResult {
  const fast = parseFlat(text);
  if (fast) return { ok: true, value: fast };
  const result = mayHoldAlias(text) ? parseWithYaml(text) : parseWithJsYaml(text);
  if (!result.ok) return result;
  const depthError = checkDepth(result.value);
  return depthError ? { ok: false, message: depthError } : result;
}

/**
 * Quotes plain scalars that contain `: ` on top-level `key: value` lines — the most common
 * authoring mistake (`description: Use when: the user asks`). Returns null when no line
 * needed it, so the caller knows a retry would change nothing.
 */
export function quotePlainScalarsWithColons(text: string): string | null {
  let changed = false;
  const lines = text.split("\n").map((line) => {
    const m = /^([A-Za-z0-9_-]+):[ \t]+(.*?)(\r?)$/.exec(line);
    if (!m) return line;
    const value = m[2]!;
    if (!value.includes(": ") || /^["'|>[{&*!%@`#]/.test(value)) return line;
    changed = true;
    return `${m[1]}: "${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"${m[3]}`;
  });
  return changed ? lines.join("\n") : null;
}

const FLAT_KEY = /^([A-Za-z_][A-Za-z0-9_-]*):(?:[ ]+(.*?))?[ ]*\r?$/;
// Plain scalars that the core schema would read as something other than a string.
const NON_STRING = /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|[-+]?[0-9.][\s\S]*)$/;
// First characters that start YAML syntax rather than a plain scalar.
const INDICATOR = /^[-?:,[\]{}#&*!|>'"%@`]/;

function parseFlat(text: string): Record<string, string> | null {
  const out: Record<string, string> = {};
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;
    if (line.trim() === "" || line.startsWith("#")) continue;
    const m = FLAT_KEY.exec(line);
    if (!m) return null;
    const key = m[1]!;
    const raw = m[2];
    if (raw === undefined || raw === "" || Object.hasOwn(out, key) || key === "__proto__") return null;
    const value = flatScalar(raw);
    if (value === null) return null;
    out[key] = value;
  }
  // An empty document is null in YAML, not an empty mapping; let a real parser say so.
  return Object.keys(out).length > 0 ? out : null;
}

function flatScalar(raw: string): string | null {
  if (raw.includes("\t")) return null;
  if (raw.startsWith('"')) {
    const m = /^"([^"\\]*)"(?:[ ]+#.*)?$/.exec(raw);
    return m ? m[1]! : null;
  }
  if (raw.startsWith("'")) {
    const m = /^'((?:[^']|'')*)'(?:[ ]+#.*)?$/.exec(raw);
    return m ? m[1]!.replace(/''/g, "'") : null;
  }
  if (INDICATOR.test(raw) || NON_STRING.test(raw)) return null;
  if (raw.includes(": ") || raw.includes(" #") || raw.endsWith(":")) return null;
  return raw;
}

// An anchor, alias or tag starts a token: at a line start, after a blank or a flow indicator.
// ("R&D" or "Done!" do not match; they stay on the fast tiers.)
const ALIAS_OR_TAG = /(?:^|[\s,[{:-])[&*!]|<</m;

/**
 * Anchors and aliases need `yaml`'s alias bound; tags go there too, because `yaml` resolves
 * the rare non-specific `!` exactly as YAML 1.2 says and js-yaml does not.
 */
function mayHoldAlias(text: string): boolean {
  return ALIAS_OR_TAG.test(text);
}

function parseWithJsYaml(text: string): YamlResult {
  try {
    // CORE_SCHEMA: no timestamps, binaries or merge keys, and no tag that builds objects; the
    // same meaning `yaml` gives, so which tier parsed a file never shows.
    return { ok: true, value: jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA, json: false }) };
  } catch (e) {
    const err = e as { reason?: string; message?: string; mark?: { line?: number } };
    const line = err.mark?.line;
    return { ok: false, message: (err.reason ?? err.message ?? String(e)).trim(), ...(line !== undefined ? { line } : {}) };
  }
}

function parseWithYaml(text: string): YamlResult {
  try {
    const doc = parseDocument(text, { version: "1.2", schema: "core", uniqueKeys: true, merge: false, prettyErrors: true, logLevel: "silent" });
    const problem = doc.errors[0] ?? doc.warnings.find((w) => w.code === "TAG_RESOLVE_FAILED");
    if (problem) {
      const line = problem.linePos?.[0]?.line;
      return { ok: false, message: problem.message.split("\n")[0]!, ...(line !== undefined ? { line: line - 1 } : {}) };
    }
    return { ok: true, value: doc.toJS({ maxAliasCount: MAX_YAML_ALIASES }) };
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * Rejects values nested deeper than any real frontmatter. Shared nodes (aliases) are visited
 * once, so the walk itself can never expand a reference bomb.
 */
function checkDepth(value: unknown): string | null {
  const seen = new Set<object>();
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== "object" || seen.has(node)) continue;
    if (depth >= MAX_YAML_DEPTH) return `frontmatter nests deeper than ${MAX_YAML_DEPTH} levels`;
    seen.add(node);
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
  return null;
}
