/**
 * The skills a source holds (SPEC §10), found with discovery's own rules (§2: nested categories,
 * nested skills, links followed only while they stay inside the source), each judged installable
 * or not: `validate`'s messages (the reference validator's, word for word) and the package's own
 * problems (package-files.ts). Two skills of one source with the same name: the first found wins,
 * as in discovery, and the other is refused with the reason.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { isInside } from "../package/confined-read.js";
import { loadSkillSync } from "../package/load.js";
import { readPackageFiles, type PackageFiles } from "../package/package-files.js";
import { validateSkillSync } from "../package/validate.js";
import { DEFAULT_MAX_DIRECTORIES, discoverSource, statSkillFile } from "../registry/discover.js";
import { TimeSlicer } from "../registry/time-slice.js";
import { InstallError } from "./install-error.js";
import { isSafeSkillName } from "./lockfile.js";
import { dotFoldersOfSkillsFolders } from "./skills-dot-folders.js";

export interface SourceSkill {
  /** The skill's folder name, which `validate` requires to equal its `name`. */
  name: string;
  /** Its real directory in the fetched tree. */
  dir: string;
  /** Its folder inside the source, `/`-separated; "" when the source is the skill itself. */
  path: string;
  description: string | null;
  /** Why it cannot be installed: validation messages, then package problems. Empty when it can. */
  problems: string[];
  /** Its files, when it can be installed. */
  files: PackageFiles | null;
}

/** The skills found under `root/inside` (`inside` "" for the whole tree). */
export async function skillsOfSource(root: string, inside: string): Promise<SourceSkill[]> {
  const realRoot = fs.realpathSync.native(root);
  const start = path.resolve(realRoot, ...inside.split("/").filter((s) => s !== ""));
  let realStart: string;
  try {
    realStart = fs.realpathSync.native(start);
  } catch {
    throw new InstallError(`the source has no folder ${JSON.stringify(inside)}`, "usage");
  }
  if (realStart !== realRoot && !isInside(realRoot, realStart)) throw new InstallError(`the folder ${JSON.stringify(inside)} leads outside the source`, "usage");
  if (!fs.statSync(realStart).isDirectory()) throw new InstallError(`${JSON.stringify(inside)} in the source is not a folder`, "usage");

  const walk = { maxDirectories: DEFAULT_MAX_DIRECTORIES, followExternalLinks: false, linkRoot: realRoot, privateRoots: [] };
  const found = await discoverSource(realStart, new TimeSlicer(), statSkillFile, walk);
  // `skills/.curated` and its kind: searched for an install, though discovery skips dot-folders.
  for (const dotFolder of dotFoldersOfSkillsFolders(realStart)) found.found.push(...(await discoverSource(dotFolder, new TimeSlicer(), statSkillFile, walk)).found);
  const skills: SourceSkill[] = [];
  const firstOfName = new Map<string, SourceSkill>();
  for (const { dir } of found.found) {
    const name = path.basename(dir);
    const inSource = path.relative(realRoot, dir).split(path.sep).join("/");
    const problems: string[] = [];
    const earlier = firstOfName.get(name);
    if (earlier) problems.push(`another skill of this source is also named ${name} (at ${earlier.path || "the source's root"}); the first one found is installed`);
    if (!isSafeSkillName(name)) problems.push(`its folder name ${JSON.stringify(name)} cannot be installed`);
    problems.push(...validateSkillSync(dir));
    const files = readPackageFiles(dir);
    problems.push(...files.problems);
    const loaded = loadSkillSync(dir).skill;
    const skill: SourceSkill = { name, dir, path: inSource, description: loaded?.description ?? null, problems, files: problems.length === 0 ? files : null };
    if (!earlier) firstOfName.set(name, skill);
    skills.push(skill);
  }
  return skills;
}

/** The skill whose folder is `inSource` inside `root`, judged as `skillsOfSource` judges it; null when no skill is there. */
export function skillAt(root: string, inSource: string): SourceSkill | null {
  const realRoot = fs.realpathSync.native(root);
  let dir: string;
  try {
    dir = fs.realpathSync.native(path.resolve(realRoot, ...inSource.split("/").filter((s) => s !== "")));
  } catch {
    return null;
  }
  if (dir !== realRoot && !isInside(realRoot, dir)) return null;
  if (!fs.existsSync(path.join(dir, "SKILL.md")) && !fs.existsSync(path.join(dir, "skill.md"))) return null;
  const name = path.basename(dir);
  const problems = [...(isSafeSkillName(name) ? [] : [`its folder name ${JSON.stringify(name)} cannot be installed`]), ...validateSkillSync(dir)];
  const files = readPackageFiles(dir);
  problems.push(...files.problems);
  const loaded = loadSkillSync(dir).skill;
  return { name, dir, path: inSource, description: loaded?.description ?? null, problems, files: problems.length === 0 ? files : null };
}
