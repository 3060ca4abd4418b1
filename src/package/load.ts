/**
 * Loading one skill package leniently (SPEC §1): everything that can still be used loads,
 * with warnings; what cannot yields `skill: null` and at least one error. Never throws for a
 * bad file — a malformed skill must not take its neighbours down.
 */
import * as path from "node:path";
import { diagnostic } from "./diagnostic.js";
import { isEntryReady } from "./entry-frontmatter.js";
import { readFrontmatter } from "./frontmatter.js";
import { bodyUsesArguments as usesArguments } from "./invocation-fields.js";
import { buildManifest } from "./manifest.js";
import { readSkillFileSync } from "./skill-file.js";
import { mayBeReferenceRefused, referenceUnchecked, withReferenceChecks } from "./reference-check.js";
import type { FileStamp, LoadResult, SkillPackage, SkillTextInspector } from "./types.js";

/**
 * Loads one skill with every diagnostic, the reference dialect's warning included. The
 * registry loads with `loadSkillSyncMarked`, which leaves that check for when diagnostics are read.
 */
export function loadSkillSync(dir: string): LoadResult {
  return withReferenceChecked(loadSkillSyncMarked(dir));
}

/** `loadSkillSync` leaving a `yaml_reference_unchecked` mark where the reference check would run (see reference-check.ts). */
export function loadSkillSyncMarked(dir: string, inspect?: SkillTextInspector): LoadResult {
  // A registry walk passes real, clean absolute paths; normalising them again (a character
  // scan each for `resolve` and `join`) cost as much per skill as splitting its frontmatter.
  const abs = CLEAN_ABSOLUTE.test(dir) ? dir : path.resolve(dir);
  // Open first and look for the lowercase name only when that fails: on a large tree a
  // separate stat per skill costs as much as parsing its frontmatter.
  let file = abs + path.sep + "SKILL.md";
  // An inspection judges the whole text, so only a load without one decodes the head alone.
  const how = inspect ? WHOLE : HEAD_ONLY;
  let read = readSkillFileSync(file, how);
  let lowercase = false;
  if (!read.ok && read.code === "skill_file_missing") {
    file = abs + path.sep + "skill.md";
    read = readSkillFileSync(file, how);
    lowercase = true;
    if (!read.ok && read.code === "skill_file_missing") {
      return { skill: null, diagnostics: [diagnostic(abs, "error", "skill_file_missing", "Missing required file: SKILL.md")] };
    }
  }
  if (!read.ok) return { skill: null, diagnostics: [diagnostic(file, "error", read.code, read.message)] };
  const result = loadSkillFileMarked(file, abs, read.text, read.stamp, read.bodyUsesArguments, inspect);
  if (lowercase) {
    result.diagnostics.unshift(
      diagnostic(file, "warning", "skill_file_lowercase", "Found skill.md; the standard name is SKILL.md (rename it)"),
    );
  }
  return result;
}

const HEAD_ONLY = Object.freeze({ headOnly: true });
const WHOLE = Object.freeze({});

/** The result with its reference-dialect mark (if any) replaced by the warning, or dropped. */
function withReferenceChecked(result: LoadResult): LoadResult {
  const last = result.diagnostics.length - 1;
  if (last < 0 || !result.skill) return result;
  const diagnostics = withReferenceChecks(result.diagnostics);
  if (diagnostics.length === result.diagnostics.length && diagnostics[last] === result.diagnostics[last]) return result;
  // The skill record shares the list, as loading made it.
  return { skill: { ...result.skill, diagnostics }, diagnostics };
}
const ALLOW_RETRY = Object.freeze({ allowRetry: true });

/**
 * An absolute POSIX path that `path.resolve` would return unchanged: no empty, `.` or `..`
 * component and no trailing separator (the root itself is not a skill directory). Elsewhere
 * nothing matches, and every path is resolved.
 */
const CLEAN_ABSOLUTE = path.sep === "/" ? /^(?:\/(?!\.\.?(?:\/|$))[^/]+)+$/ : /(?!)/;

export async function loadSkill(dir: string): Promise<LoadResult> {
  return loadSkillSync(dir);
}

/**
 * Builds the level-1 record from text a caller already read (the registry reads files
 * itself so it can stamp and batch them).
 */
export function loadSkillFile(skillFile: string, dir: string, text: string, stamp: FileStamp): LoadResult {
  return withReferenceChecked(loadSkillFileMarked(skillFile, dir, text, stamp));
}

/**
 * `loadSkillFile` leaving the reference check to the reader (see `loadSkillSyncMarked`).
 * `bodyUsesArguments`: for text read only through the frontmatter, whether the rest holds
 * `$ARGUMENTS`; without it the text is the whole file and its body is searched.
 */
export function loadSkillFileMarked(
  skillFile: string,
  dir: string,
  text: string,
  stamp: FileStamp,
  bodyUsesArguments?: boolean,
  inspect?: SkillTextInspector,
): LoadResult {
  const fm = readFrontmatter(text, ALLOW_RETRY);
  if (!fm.ok) {
    return { skill: null, diagnostics: [diagnostic(skillFile, "error", fm.code, fm.message)] };
  }
  // The last component by hand for a clean POSIX path: `basename` walks the path character by
  // character in script, once per skill of a cold load.
  const dirName = path.sep === "/" && !dir.endsWith("/") ? dir.slice(dir.lastIndexOf("/") + 1) : path.basename(dir);
  const built = buildManifest(fm.data, skillFile, dirName, bodyUsesArguments ?? usesArguments(fm.body));
  // The manifest's list is the skill's, so a load allocates one; a retry warning goes first.
  const diagnostics = built.diagnostics;
  if (fm.retried) {
    diagnostics.unshift(
      diagnostic(
        skillFile,
        "warning",
        "yaml_quoted_retry",
        "Frontmatter has a plain value containing ': '; loaded by quoting it. Put such values in quotes.",
      ),
    );
  }
  for (let i = fm.converted.length - 1; i >= 0; i--) {
    diagnostics.unshift(diagnostic(skillFile, "warning", "yaml_typed_value", fm.converted[i]!));
  }
  if (!built.manifest) return { skill: null, diagnostics };
  // Loading stays lenient; the author still hears that the standard's validator would refuse
  // it, from whoever reads the diagnostics: the strict re-read runs then, not on every load.
  if (mayBeReferenceRefused(fm.text)) diagnostics.push(referenceUnchecked(skillFile));
  const manifest = built.manifest;
  const skill: SkillPackage = { name: manifest.name, description: manifest.description, dir, skillFile, manifest, stamp, diagnostics };
  // Recorded once here, where the frontmatter as parsed is at hand: `list` and `doctor` then say
  // whether the Skills Extension serves the skill without reading and parsing SKILL.md again.
  if (!fm.retried && isEntryReady(fm.data, manifest.name)) skill.entryReady = true;
  // Judged here, where the text is in hand: the record then carries the verdict's grounds through
  // the parse workers and the parse cache, and nothing reads SKILL.md again to judge it.
  if (inspect) {
    const findings = inspect(text, fm.data);
    if (findings.length > 0) skill.findings = findings;
  }
  return { skill, diagnostics };
}
