/**
 * Loading one skill package leniently (SPEC §1): everything that can still be used loads,
 * with warnings; what cannot yields `skill: null` and at least one error. Never throws for a
 * bad file — a malformed skill must not take its neighbours down.
 */
import * as path from "node:path";
import { diagnostic } from "./diagnostic.js";
import { readFrontmatter } from "./frontmatter.js";
import { buildManifest } from "./manifest.js";
import { readSkillFileSync } from "./skill-file.js";
import { strictYamlProblem } from "./strict-yaml/index.js";
import type { FileStamp, LoadResult } from "./types.js";

export function loadSkillSync(dir: string): LoadResult {
  // A registry walk passes real, clean absolute paths; normalising them again (a character
  // scan each for `resolve` and `join`) cost as much per skill as splitting its frontmatter.
  const abs = CLEAN_ABSOLUTE.test(dir) ? dir : path.resolve(dir);
  // Open first and look for the lowercase name only when that fails: on a large tree a
  // separate stat per skill costs as much as parsing its frontmatter.
  let file = abs + path.sep + "SKILL.md";
  let read = readSkillFileSync(file, HEAD_ONLY);
  let lowercase = false;
  if (!read.ok && read.code === "skill_file_missing") {
    file = abs + path.sep + "skill.md";
    read = readSkillFileSync(file, HEAD_ONLY);
    lowercase = true;
    if (!read.ok && read.code === "skill_file_missing") {
      return { skill: null, diagnostics: [diagnostic(abs, "error", "skill_file_missing", "Missing required file: SKILL.md")] };
    }
  }
  if (!read.ok) return { skill: null, diagnostics: [diagnostic(file, "error", read.code, read.message)] };
  const result = loadSkillFile(file, abs, read.text, read.stamp);
  if (lowercase) {
    result.diagnostics.unshift(
      diagnostic(file, "warning", "skill_file_lowercase", "Found skill.md; the standard name is SKILL.md (rename it)"),
    );
  }
  return result;
}

const HEAD_ONLY = Object.freeze({ headOnly: true });

// What can make the reference's strict YAML refuse text the lenient parser took: flow
// collections, anchors, aliases, tags, merge keys, tabs. Only such text pays for a second,
// strict parse.
const MAYBE_STRICT_REFUSAL = /[[\]{}&*!\t]|<</;

/** Why the reference (strictyaml) would refuse frontmatter that loading accepted, or null. */
function referenceRefusal(text: string): string | null {
  // The frontmatter text starts on the line after the opening `---`.
  return MAYBE_STRICT_REFUSAL.test(text) ? strictYamlProblem(text, 2) : null;
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
  const fm = readFrontmatter(text, ALLOW_RETRY);
  if (!fm.ok) {
    return { skill: null, diagnostics: [diagnostic(skillFile, "error", fm.code, fm.message)] };
  }
  // The last component by hand for a clean POSIX path: `basename` walks the path character by
  // character in script, once per skill of a cold load.
  const dirName = path.sep === "/" && !dir.endsWith("/") ? dir.slice(dir.lastIndexOf("/") + 1) : path.basename(dir);
  const built = buildManifest(fm.data, skillFile, dirName);
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
  // Loading stays lenient; the author still hears that the standard's validator would refuse it.
  const strict = referenceRefusal(fm.text);
  if (strict !== null) {
    diagnostics.push(
      diagnostic(skillFile, "warning", "yaml_reference_refused", `The reference validator (skills-ref) refuses this frontmatter, so \`skillport validate\` does too: ${strict}`),
    );
  }
  const manifest = built.manifest;
  return {
    skill: {
      name: manifest.name,
      description: manifest.description,
      dir,
      skillFile,
      manifest,
      stamp,
      diagnostics,
    },
    diagnostics,
  };
}
