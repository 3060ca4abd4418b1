/**
 * From SKILL.md text to a parsed frontmatter mapping: split, size check, YAML, the one
 * quoting retry. Shared by loading and by strict validation, so both read a file the same way.
 */
import { Buffer } from "node:buffer";
import { MAX_FRONTMATTER_BYTES } from "./limits.js";
import { splitFrontmatter } from "./split.js";
import { parseYaml, quotePlainScalarsWithColons } from "./yaml.js";

export type FrontmatterResult =
  | {
      ok: true;
      data: Record<string, unknown>;
      body: string;
      retried: boolean;
      /** Typed YAML values read as plain text or collections (see `parseYaml`); empty when none. */
      converted: readonly string[];
      /** The frontmatter's own text. */
      text: string;
    }
  | { ok: false; code: string; message: string };

const NONE: readonly string[] = Object.freeze([]);

export function readFrontmatter(text: string, options: { allowRetry: boolean }): FrontmatterResult {
  const split = splitFrontmatter(text);
  if (!split.ok) return split;
  // Counting bytes scans the text; no UTF-16 unit takes more than 3 bytes, so a short one is
  // known to fit without the scan.
  const bytes = split.frontmatter.length * 3 <= MAX_FRONTMATTER_BYTES ? 0 : Buffer.byteLength(split.frontmatter, "utf8");
  if (bytes > MAX_FRONTMATTER_BYTES) {
    return { ok: false, code: "frontmatter_too_large", message: `Frontmatter is ${bytes} bytes; the limit is ${MAX_FRONTMATTER_BYTES}` };
  }
  // Parse a copy when the text holds more than the frontmatter: every string the YAML parser
  // returns is a slice of its input, and a slice of the whole file text would keep the body
  // alive in a registry that only wants metadata. Text read head-only (the registry's loads)
  // ends at the closing fence, so a slice of it keeps nothing the record does not already hold.
  const frontmatter = split.body === "" ? split.frontmatter : Buffer.from(split.frontmatter, "utf8").toString("utf8");
  let parsed = parseYaml(frontmatter);
  let retried = false;
  if (!parsed.ok && options.allowRetry) {
    const quoted = quotePlainScalarsWithColons(frontmatter);
    if (quoted !== null) {
      const second = parseYaml(quoted);
      if (second.ok) {
        parsed = second;
        retried = true;
      }
    }
  }
  if (!parsed.ok) {
    const where = parsed.line !== undefined ? ` (SKILL.md line ${parsed.line + split.firstLine})` : "";
    return { ok: false, code: "yaml_invalid", message: `Invalid YAML in frontmatter${where}: ${parsed.message}` };
  }
  const value = parsed.value ?? {};
  if (typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, code: "frontmatter_not_mapping", message: "SKILL.md frontmatter must be a YAML mapping" };
  }
  return { ok: true, data: value as Record<string, unknown>, body: split.body, retried, converted: parsed.converted ?? NONE, text: frontmatter };
}
