/**
 * What an install says about a skill's name beyond the package rules (SPEC §10): the registry
 * compares names after NFKC (naming.ts), while folders are kept by their raw name, so
 * `ｄｅｐｌｏｙ` (fullwidth) could be installed beside `deploy`, and after `remove deploy` be
 * served as `deploy`. Such a collision is refused. Two softer cases are said as warnings: a name
 * mixing Latin letters with Cyrillic or Greek ones (`dеploy` with a Cyrillic `е`) reads as
 * another name; and a project skill of the same name as one of the user's global skills hides
 * that one in this project.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { normalizeName } from "../package/naming.js";
import { defaultSources } from "../registry/sources.js";
import type { InstallTarget } from "./targets.js";

/** Why `name` cannot go into `dir`: another folder there names the same skill once NFKC-normalized; null when none does. */
export function nfkcCollision(dir: string, name: string): string | null {
  let entries: string[];
  try {
    entries = fs.readdirSync(dir);
  } catch {
    return null;
  }
  const normal = normalizeName(name);
  const other = entries.find((entry) => entry !== name && !entry.startsWith(".") && normalizeName(entry) === normal);
  return other === undefined ? null : `${JSON.stringify(name)} names the same skill as the installed ${JSON.stringify(other)} once normalized (NFKC), and only one of them could be served; remove ${JSON.stringify(other)} first`;
}

const LATIN = /\p{Script=Latin}/u;
const LOOK_ALIKE_SCRIPTS = /[\p{Script=Cyrillic}\p{Script=Greek}]/u;

/** Warnings about `name` once it is installed into `target` (never a refusal). */
export function nameWarnings(name: string, target: InstallTarget, cwd: string, home: string): string[] {
  const warnings: string[] = [];
  if (LATIN.test(name) && LOOK_ALIKE_SCRIPTS.test(name)) {
    warnings.push(`warning: the name ${JSON.stringify(name)} mixes Latin letters with Cyrillic or Greek ones, which look alike: it may pass for another skill's name (written out: ${[...name].map((c) => (c.charCodeAt(0) < 0x80 ? c : `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`)).join(" ")})`);
  }
  // Only a project's folder can hide a global skill: a global install is one of them.
  if (target.within !== undefined) {
    const normal = normalizeName(name);
    for (const source of defaultSources(cwd, home)) {
      if (source.origin !== "global" || path.resolve(source.path) === path.resolve(target.dir)) continue;
      let entries: string[];
      try {
        entries = fs.readdirSync(source.path);
      } catch {
        continue;
      }
      const same = entries.find((entry) => normalizeName(entry) === normal);
      if (same !== undefined) warnings.push(`warning: in this project it shadows the global skill ${JSON.stringify(same)} in ${source.path}`);
    }
  }
  return warnings;
}
