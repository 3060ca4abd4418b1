/**
 * What a read command tells the person when skills are missing from its answer: which folders
 * were searched when it found none, and how many skills were left out because they do not load.
 */
import type { Diagnostic } from "../package/diagnostic.js";
import { oneLineShown } from "../package/display-text.js";
import { isDirectory } from "../package/path-kind.js";
import type { RegistrySnapshot, SkillSource } from "../registry/types.js";

/** "No skills found", naming every folder searched and whether it exists, then what to do. */
export function noSkillsFoundText(sources: readonly SkillSource[]): string {
  const lines = ["No skills found. Folders searched:"];
  for (const source of sources) lines.push(`  ${oneLineShown(source.path)}${isDirectory(source.path) ? "" : "  (missing)"}`);
  if (sources.length === 0) lines.push("  (none)");
  lines.push("Put skill directories (each with a SKILL.md) in one of them, pass --root DIR, or list sources in skillport.config.json.");
  return lines.join("\n");
}

/**
 * Skills that exist on disk but do not load: distinct SKILL.md files with an error diagnostic
 * and no loaded skill behind them (a file still serving its last good version is not left out).
 */
export function brokenSkillCount(diagnostics: readonly Diagnostic[], snapshot: RegistrySnapshot): number {
  const failed = diagnostics.filter((d) => d.severity === "error" && /(^|[\\/])(SKILL|skill)\.md$/.test(d.path));
  // Nearly always none: then no set of every loaded file is needed.
  if (failed.length === 0) return 0;
  const loaded = new Set(snapshot.skills.map((skill) => skill.skillFile));
  const broken = new Set<string>();
  for (const d of failed) if (!loaded.has(d.path)) broken.add(d.path);
  return broken.size;
}

/** The stderr note for `count` broken skills, or null for none. */
export function brokenSkillsNote(count: number): string | null {
  if (count === 0) return null;
  return `note: ${count} skill${count === 1 ? " was" : "s were"} left out because ${count === 1 ? "it does" : "they do"} not load; run \`skillport doctor\` to see why`;
}
