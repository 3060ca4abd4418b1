/**
 * Parses `metadata.requirements` (or `metadata.vbot.requirements`) into a typed tree (SPEC §3.3).
 * Evaluation against an environment lives in `src/access`; this module only decides shape.
 *
 * Shape: a mapping with one required root (`env`, `binary`, `skill`, `all`, `any`) and an
 * optional `optional: [...]`. Inside `all`/`any`/`optional`, each item is a one-key mapping of
 * the same kinds. `env: [A, B]` is read as "all of these", since listing several variables is
 * the natural way to write it and means nothing else.
 */
import type { Requirement, Requirements } from "./types.js";

export type RequirementsParse = { ok: true; value: Requirements } | { ok: false; message: string };

const LEAF_KINDS = ["env", "binary", "skill"] as const;
const ROOT_KINDS = ["env", "binary", "skill", "all", "any"] as const;
const MAX_DEPTH = 16;

class ShapeError extends Error {}

export function parseRequirements(raw: unknown): RequirementsParse {
  try {
    if (!isMapping(raw)) throw new ShapeError("requirements must be a mapping");
    const keys = Object.keys(raw);
    const unknown = keys.filter((k) => k !== "optional" && !(ROOT_KINDS as readonly string[]).includes(k));
    if (unknown.length > 0) throw new ShapeError(`unknown requirement key(s): ${unknown.join(", ")}`);
    const rootKeys = keys.filter((k) => k !== "optional");
    if (rootKeys.length > 1) throw new ShapeError(`requirements hold one root, found ${rootKeys.join(", ")}; wrap them in all: [...]`);
    const root = rootKeys.length === 1 ? node(rootKeys[0]!, raw[rootKeys[0]!], 0) : null;
    let optional: Requirement[] = [];
    if ("optional" in raw) {
      if (!Array.isArray(raw.optional)) throw new ShapeError("optional must be a list");
      optional = raw.optional.map((item) => item1(item, 1));
    }
    if (!root && optional.length === 0) throw new ShapeError("requirements declare nothing");
    return { ok: true, value: { root, optional } };
  } catch (e) {
    if (e instanceof ShapeError) return { ok: false, message: e.message };
    throw e;
  }
}

function item1(raw: unknown, depth: number): Requirement {
  if (!isMapping(raw)) throw new ShapeError(`requirement item must be a one-key mapping like {env: NAME}, got ${describe(raw)}`);
  const keys = Object.keys(raw);
  if (keys.length !== 1) throw new ShapeError(`requirement item must have exactly one key, found ${keys.length}`);
  return node(keys[0]!, raw[keys[0]!], depth);
}

function node(kind: string, value: unknown, depth: number): Requirement {
  if (depth > MAX_DEPTH) throw new ShapeError(`requirements nest deeper than ${MAX_DEPTH} levels`);
  if ((LEAF_KINDS as readonly string[]).includes(kind)) {
    const leafKind = kind as (typeof LEAF_KINDS)[number];
    if (Array.isArray(value)) {
      return { kind: "all", items: value.map((v) => ({ kind: leafKind, name: leafName(kind, v) })) };
    }
    return { kind: leafKind, name: leafName(kind, value) };
  }
  if (kind === "all" || kind === "any") {
    if (!Array.isArray(value) || value.length === 0) throw new ShapeError(`${kind} must be a non-empty list`);
    return { kind, items: value.map((v) => item1(v, depth + 1)) };
  }
  throw new ShapeError(`unknown requirement kind '${kind}'`);
}

/**
 * Names reach model-visible text (the env guidance of an activation, the reasons a skill is
 * unavailable), so a name that could carry a line break or a tag is refused here. Env names are
 * the portable kind every shell can set; other names may not hold control or format characters
 * (line breaks, bidi overrides, zero-width joiners).
 */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const CONTROL_OR_FORMAT = /[\p{Cc}\p{Cf}\u2028\u2029]/u;

function leafName(kind: string, value: unknown): string {
  if (typeof value !== "string" || value.trim() === "") throw new ShapeError(`${kind} needs a non-empty name, got ${describe(value)}`);
  const name = value.trim();
  if (kind === "env" && !ENV_NAME.test(name)) {
    throw new ShapeError(`env names are letters, digits and _, not starting with a digit; got ${JSON.stringify(name.slice(0, 64))}`);
  }
  if (CONTROL_OR_FORMAT.test(name)) throw new ShapeError(`${kind} name holds a control or format character: ${JSON.stringify(name.slice(0, 64))}`);
  return name;
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "a list" : typeof v;
}

/** Every env name anywhere in the tree, required or optional, in first-seen order. */
export function envNames(req: Requirements | null): string[] {
  if (!req) return [];
  const names: string[] = [];
  const visit = (r: Requirement): void => {
    if (r.kind === "env") {
      if (!names.includes(r.name)) names.push(r.name);
    } else if (r.kind === "all" || r.kind === "any") r.items.forEach(visit);
  };
  if (req.root) visit(req.root);
  req.optional.forEach(visit);
  return names;
}
