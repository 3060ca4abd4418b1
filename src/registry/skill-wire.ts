/**
 * Loaded skills as they cross from a parse worker to the registry (SPEC §2, worker boundary).
 *
 * During a cold load the main thread receives one record per skill; deserialising and collecting
 * them is event-loop time, and it grows with the number of objects and bytes sent (PERFORMANCE.md:
 * hand back compact records). So a record carries only what the registry keeps, flat, with every
 * manifest field at its default left out. The directory and file paths travel only with records
 * of a worker's own walk (`toPlacedWire`); for directories the registry walked itself it already
 * holds those strings and reuses them.
 *
 * `fromWire` builds the frozen record the registry shares between snapshots. Frozen here, once,
 * with the shapes known: walking every record with a generic deep freeze cost the main thread
 * more than building it.
 */
import * as path from "node:path";
import type { Diagnostic } from "../package/diagnostic.js";
import type { FileStamp, LoadResult, SkillManifest, SkillPackage, TextFinding } from "../package/types.js";
import { DEFAULT_INVOCATION } from "../package/invocation-fields.js";
import { composeManifest, NO_FIELDS } from "../package/manifest.js";

/** The manifest fields other than name and description, each present only when not at its default. */
type ManifestRest = Partial<Omit<SkillManifest, "name" | "description">>;

export type SkillWire =
  | {
      name: string;
      description: string;
      size: number;
      mtimeMs: number;
      ctimeMs: number;
      ino: number;
      /** The file loaded was the lowercase `skill.md`. */
      lowercase?: true;
      /** `SkillPackage.entryReady`. */
      entryReady?: true;
      manifest?: ManifestRest;
      diagnostics?: Diagnostic[];
      /** `SkillPackage.findings`. */
      findings?: TextFinding[];
    }
  /** Not loadable; holds at least one error. */
  | { failed: Diagnostic[] };

/**
 * What the registry keeps of one loaded SKILL.md until it registers it: every part a record
 * shares with the snapshot (manifest, stamp, diagnostics) is frozen.
 */
export interface LoadedSkill {
  readonly skill: SkillPackage | null;
  readonly diagnostics: readonly Diagnostic[];
}

const LOWERCASE_FILE = "skill.md";
const NO_DIAGNOSTICS: Diagnostic[] = Object.freeze([]) as unknown as Diagnostic[];

/** A record with where it was found and the stamp its SKILL.md was read at, in one object. */
export type PlacedSkillWire = SkillWire & { dir: string; skillFile: string; size: number; mtimeMs: number; ctimeMs: number; ino: number };

/** Where a walk found a skill, and the stamp of the SKILL.md it read there. */
export interface SkillPlace {
  dir: string;
  skillFile: string;
  stamp: FileStamp;
}

export function toWire(result: LoadResult): SkillWire {
  const skill = result.skill;
  if (!skill) return { failed: result.diagnostics };
  return withOptionalParts({ name: skill.name, description: skill.description, size: skill.stamp.size, mtimeMs: skill.stamp.mtimeMs, ctimeMs: skill.stamp.ctimeMs, ino: skill.stamp.ino }, result);
}

/** `toWire` plus the place, built as one object: adding keys to a finished record costs the worker a new property store each. */
export function toPlacedWire(result: LoadResult, place: SkillPlace): PlacedSkillWire {
  const { dir, skillFile, stamp } = place;
  const skill = result.skill;
  if (!skill) return { dir, skillFile, size: stamp.size, mtimeMs: stamp.mtimeMs, ctimeMs: stamp.ctimeMs, ino: stamp.ino, failed: result.diagnostics };
  return withOptionalParts({ dir, skillFile, name: skill.name, description: skill.description, size: stamp.size, mtimeMs: stamp.mtimeMs, ctimeMs: stamp.ctimeMs, ino: stamp.ino }, result);
}

function withOptionalParts<W extends SkillWire>(wire: W, result: LoadResult): W {
  const skill = result.skill!;
  if (path.basename(skill.skillFile) === LOWERCASE_FILE) (wire as { lowercase?: true }).lowercase = true;
  if (skill.entryReady) (wire as { entryReady?: true }).entryReady = true;
  const rest = manifestRest(skill.manifest);
  if (rest) (wire as { manifest?: ManifestRest }).manifest = rest;
  if (result.diagnostics.length > 0) (wire as { diagnostics?: Diagnostic[] }).diagnostics = result.diagnostics;
  if (skill.findings) (wire as { findings?: readonly TextFinding[] }).findings = skill.findings;
  return wire;
}

/**
 * `dir` and `skillFile` are the discovery's strings for the directory that was loaded; the file
 * name is recomputed only when the loader settled on the other spelling (the file was renamed
 * between the walk and the read).
 */
export function fromWire(wire: SkillWire, dir: string, skillFile: string): LoadedSkill {
  if ("failed" in wire) return { skill: null, diagnostics: freezeDiagnostics(wire.failed) };
  const fileName = wire.lowercase ? LOWERCASE_FILE : "SKILL.md";
  const file = skillFile.endsWith(path.sep + fileName) ? skillFile : path.join(dir, fileName);
  const diagnostics = wire.diagnostics ? freezeDiagnostics(wire.diagnostics) : NO_DIAGNOSTICS;
  const skill: SkillPackage = {
    name: wire.name,
    description: wire.description,
    dir,
    skillFile: file,
    manifest: buildManifest(wire.name, wire.description, wire.manifest),
    stamp: Object.freeze({ size: wire.size, mtimeMs: wire.mtimeMs, ctimeMs: wire.ctimeMs, ino: wire.ino }),
    diagnostics,
  };
  if (wire.entryReady) skill.entryReady = true;
  if (wire.findings) skill.findings = freezeFindings(wire.findings);
  return { skill, diagnostics };
}

/**
 * What a load on the registry's own thread gives, ready to register: the parts a record shares
 * (manifest, stamp, diagnostics) frozen in place, without the round trip through the compact
 * form. The package object itself is only the registry's raw material — it registers a frozen
 * record from its fields and drops the package — so freezing it would be a call per skill for
 * nothing.
 */
export function frozenLoad(result: LoadResult): LoadedSkill {
  const skill = result.skill;
  if (!skill) return { skill: null, diagnostics: freezeDiagnostics(result.diagnostics) };
  freezeManifest(skill.manifest);
  Object.freeze(skill.stamp);
  skill.diagnostics = freezeDiagnostics(skill.diagnostics);
  if (skill.findings) skill.findings = freezeFindings(skill.findings);
  return { skill, diagnostics: skill.diagnostics };
}

function manifestRest(manifest: SkillManifest): ManifestRest | null {
  const rest: ManifestRest = {};
  if (manifest.license !== undefined) rest.license = manifest.license;
  if (manifest.compatibility !== undefined) rest.compatibility = manifest.compatibility;
  if (!isEmpty(manifest.metadata)) rest.metadata = manifest.metadata;
  if (manifest.allowedTools !== null) rest.allowedTools = manifest.allowedTools;
  if (manifest.tools !== null) rest.tools = manifest.tools;
  if (manifest.requirements !== null) rest.requirements = manifest.requirements;
  if (manifest.requirementsError !== null) rest.requirementsError = manifest.requirementsError;
  if (manifest.disableModelInvocation) rest.disableModelInvocation = true;
  if (manifest.invocation !== DEFAULT_INVOCATION) rest.invocation = manifest.invocation;
  if (!isEmpty(manifest.extra)) rest.extra = manifest.extra;
  return isEmpty(rest) ? null : rest;
}

/** Rebuilds the manifest through the package layer's own composer, frozen. */
function buildManifest(name: string, description: string, rest: ManifestRest | undefined): SkillManifest {
  return freezeManifest(
    composeManifest({
      name,
      description,
      license: rest?.license,
      compatibility: rest?.compatibility,
      metadata: rest?.metadata ?? NO_FIELDS,
      allowedTools: rest?.allowedTools ?? null,
      tools: rest?.tools ?? null,
      requirements: rest?.requirements ?? null,
      requirementsError: rest?.requirementsError ?? null,
      disableModelInvocation: rest?.disableModelInvocation ?? false,
      invocation: rest?.invocation ?? DEFAULT_INVOCATION,
      extra: rest?.extra ?? NO_FIELDS,
    }),
  );
}

/**
 * Freezes a manifest and the author-shaped values it holds, in place; one rule for both record
 * paths. Most skills have no metadata and no extra keys: the loader already gives them the one
 * shared frozen empty object, and any other empty one (`metadata: {}`) is swapped for it.
 */
function freezeManifest(manifest: SkillManifest): SkillManifest {
  if (manifest.metadata !== NO_FIELDS) manifest.metadata = isEmpty(manifest.metadata) ? NO_FIELDS : freezeDeep(manifest.metadata);
  if (manifest.extra !== NO_FIELDS) manifest.extra = isEmpty(manifest.extra) ? NO_FIELDS : freezeDeep(manifest.extra);
  if (manifest.allowedTools !== null) freezeDeep(manifest.allowedTools);
  if (manifest.tools !== null) freezeDeep(manifest.tools);
  if (manifest.requirements !== null) freezeDeep(manifest.requirements);
  if (manifest.invocation !== DEFAULT_INVOCATION) freezeDeep(manifest.invocation);
  return Object.freeze(manifest);
}

function freezeDiagnostics(diagnostics: Diagnostic[]): Diagnostic[] {
  if (diagnostics.length === 0) return NO_DIAGNOSTICS;
  for (const d of diagnostics) Object.freeze(d);
  return Object.freeze(diagnostics) as Diagnostic[];
}

/** Only the fields a record keeps (an audit finding's excerpt is the text, which records do not hold), frozen. */
function freezeFindings(findings: readonly TextFinding[]): readonly TextFinding[] {
  return Object.freeze(findings.map(({ rule, severity, file, line, message }) => Object.freeze({ rule, severity, file, line, message })));
}

/** For the rare nested values (metadata, extra keys, requirement trees), whose shape is the author's. */
function freezeDeep<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length; i++) freezeDeep((value as Record<string, unknown>)[keys[i]!]);
  }
  return value;
}

function isEmpty(record: object): boolean {
  for (const key in record) if (Object.hasOwn(record, key)) return false;
  return true;
}
