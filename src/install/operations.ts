/**
 * Skills in, kept current (SPEC §10): install from a source, update to the source's newest
 * commit (or the pinned ref), install exactly what the lockfile records, remove, verify. Each
 * skill comes out with one outcome (installed, updated, unchanged, refused, removed; ok,
 * modified, missing for verify); one refused skill never stops the others.
 *
 * The rules every path shares live in `putSkill`: a skill that fails validation or the package
 * rules is refused with the reasons; an existing folder the lockfile does not record is replaced
 * only with `force`, and so is an installed skill whose files no longer match their locked
 * digest (edited by hand) or one installed from another source. The lockfile is rewritten after
 * each skill is placed, so it never lags a crash by more than one skill.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { digestOfPackage } from "../package/package-digest.js";
import { InstallError } from "./install-error.js";
import { readSkillsLock, writeSkillsLock, type LockedSkill, type SkillsLock } from "./lockfile.js";
import { exists, placeStaged, removeAbandonedTemporaries, removePlaced, stageSkill, withInstallLock, type CopyListener } from "./placement.js";
import { skillAt, skillsOfSource, type SourceSkill } from "./source-skills.js";
import { withFetchedCommit } from "./git-fetch.js";
import { parseSource, type SourceSpec } from "./source-spec.js";
import { checkTargetInside, type InstallTarget } from "./targets.js";
import { inPlugin, pluginsOfSource } from "./plugins.js";
import { skippedDotFolders } from "./skills-dot-folders.js";
import { readSiteIndex, withFetchedSite, type FetchedSite } from "./well-known.js";

export type SkillStatus = "installed" | "updated" | "unchanged" | "refused" | "removed" | "ok" | "modified" | "missing";

export interface SkillOutcome {
  name: string;
  status: SkillStatus;
  /** The installed folder (where it is, or would have been). */
  dir: string;
  /** The lockfile folder key (`.agents/skills`, `skills`). */
  folder: string;
  /** Why it was refused, or what is wrong with it; notes otherwise. */
  messages: string[];
  /** The commit now installed (null for a local folder), when known. */
  commit?: string | null;
  /** The commit installed before an update. */
  previousCommit?: string | null;
  /** The package digest now recorded. */
  digest?: string;
  /** The skill's folder inside its source. */
  path?: string;
  /** Set on a refusal because the folder has no such skill installed (a name asked for that is not there). */
  notInstalled?: true;
}

export interface InstallReport {
  lockfile: string;
  skills: SkillOutcome[];
}

export interface InstallOptions {
  target: InstallTarget;
  /** Replace folders the lockfile does not record, and skills edited since they were installed. */
  force?: boolean;
  /** Resolves relative local SOURCEs and `~`; default `process.cwd()` and the home directory. */
  cwd?: string;
  home?: string;
  /** The environment git runs with. */
  env?: NodeJS.ProcessEnv;
  /** Progress lines (fetches). */
  onProgress?: (line: string) => void;
  /** Called after each file of a skill is written into its temporary folder. */
  onCopy?: CopyListener;
}

/** What `add` and `add --list` may narrow a source to. */
export interface SourceNarrowing {
  /** A folder inside the source to look in (`--path`), after any path the SOURCE names itself. */
  path?: string;
  /** Only the skills of this plugin (`--plugin`). */
  plugin?: string;
}

/** Where a skill came from, as the lockfile records it. */
interface Provenance {
  source: string;
  sourceType: "git" | "local" | "well-known";
  url: string;
  ref: string | null;
  commit: string | null;
  /** A well-known site's fetch: each skill's artifact digest and the entries refused. */
  site?: FetchedSite;
}

/** What a source holds, for `add --list`. */
export interface SourceListing {
  url: string;
  ref: string | null;
  commit: string | null;
  skills: Array<{ name: string; path: string; description: string | null; installable: boolean; problems: string[] }>;
  /** The plugins the source holds (marketplaces, lone plugins), each with the names of its skills found; absent when it holds none. */
  plugins?: Array<{ name: string; description: string | null; kind: "claude" | "codex"; skills: string[]; elsewhere?: string }>;
  /** When nothing was found: the dot-folders discovery did not search, which `--path` can name. */
  skipped?: string[];
  /** What could not be read of the source's plugin manifests. */
  notes?: string[];
}

export async function listSourceSkills(source: string, options: Omit<InstallOptions, "target" | "force" | "onCopy"> & SourceNarrowing): Promise<SourceListing> {
  const spec = parseSource(source, options.cwd ?? process.cwd(), options.home ?? defaultHome());
  return withSourceTree(spec, specRef(spec), options, null, async (root, provenance) => {
    const inside = insideOf(spec, options.path);
    const narrowed = narrowToPlugin(root, await skillsOfSource(root, inside), options.plugin);
    const skills = [...narrowed.skills.map((s) => ({ name: s.name, path: s.path, description: s.description, installable: s.problems.length === 0, problems: s.problems })), ...siteRefusals(provenance, null).map((r) => ({ name: r.name, path: "", description: null, installable: false, problems: r.problems }))];
    const { plugins, notes } = pluginsOfSource(fs.realpathSync.native(root));
    return {
      url: provenance.url,
      ref: provenance.ref,
      commit: provenance.commit,
      skills,
      ...(plugins.length > 0 ? { plugins: plugins.map((p) => ({ name: p.name, description: p.description, kind: p.kind, skills: skills.filter((s) => inPlugin(p, s.path) && !p.elsewhere).map((s) => s.name), ...(p.elsewhere ? { elsewhere: p.elsewhere } : {}) })) } : {}),
      ...(skills.length === 0 ? { skipped: skippedOf(root, inside) } : {}),
      ...(notes.length > 0 ? { notes } : {}),
    };
  });
}

/** `add SOURCE`: every skill the source holds, or those named in `skills`. */
export async function installSkills(source: string, options: InstallOptions & SourceNarrowing & { skills?: readonly string[] }): Promise<InstallReport> {
  const spec = parseSource(source, options.cwd ?? process.cwd(), options.home ?? defaultHome());
  return withInstallLock(options.target.lockfile, () => installLocked(spec, options));
}

async function installLocked(spec: SourceSpec, options: InstallOptions & SourceNarrowing & { skills?: readonly string[] }): Promise<InstallReport> {
  checkTargetInside(options.target);
  const lock = readSkillsLock(options.target.lockfile);
  removeAbandonedTemporaries(options.target.dir);
  const wanted = options.skills && options.skills.length > 0 ? new Set(options.skills) : null;
  return withSourceTree(spec, specRef(spec), options, wanted, async (root, provenance) => {
    const inside = insideOf(spec, options.path);
    const found = narrowToPlugin(root, await skillsOfSource(root, inside), options.plugin).skills;
    const outcomes: SkillOutcome[] = siteRefusals(provenance, wanted).map((r) => refused(r.name, options.target, r.problems));
    const refusedOfSite = new Set(outcomes.map((o) => o.name));
    const seen = new Set<string>();
    for (const skill of found) {
      if (wanted && !wanted.has(skill.name)) continue;
      // The later skill of a duplicated name is refused by name, not installed over the first.
      const duplicate = seen.has(skill.name);
      seen.add(skill.name);
      outcomes.push(await putSkill(skill, provenance, lock, options, { mode: "add", duplicate }));
    }
    for (const name of wanted ?? []) {
      if (!seen.has(name) && !refusedOfSite.has(name)) outcomes.push(refused(name, options.target, [`the source holds no skill named ${name}${found.length > 0 ? ` (it holds: ${[...new Set(found.map((s) => s.name))].join(", ")})` : ""}`]));
    }
    if (found.length === 0 && !wanted && outcomes.length === 0) {
      if (options.plugin) throw new InstallError(`plugin ${options.plugin} of ${spec.given} holds no skills`, "failed");
      const skipped = skippedOf(root, inside);
      throw new InstallError(`${spec.given} holds no skills${inside ? ` under ${inside}` : ""}${skipped.length > 0 ? `; these dot-folders were not searched (name one with --path): ${skipped.join(", ")}` : ""}`, "failed");
    }
    return { lockfile: options.target.lockfile, skills: outcomes };
  });
}

/** `add --frozen`: every skill the lockfile records for the target folder (or those named), exactly at its locked commit and digest. */
export async function installLockedSkills(options: InstallOptions & { skills?: readonly string[] }): Promise<InstallReport> {
  return withInstallLock(options.target.lockfile, () => installFrozen(options));
}

async function installFrozen(options: InstallOptions & { skills?: readonly string[] }): Promise<InstallReport> {
  checkTargetInside(options.target);
  const lock = readSkillsLock(options.target.lockfile);
  if (lock.size === 0) throw new InstallError(`${options.target.lockfile} does not exist or records no skills; --frozen installs only what it records`, "usage");
  removeAbandonedTemporaries(options.target.dir);
  const entries = selectEntries(lock, options.target, options.skills);
  const outcomes: SkillOutcome[] = entries.missing.map((name) => refused(name, options.target, [`${path.basename(options.target.lockfile)} records no skill named ${name} in ${options.target.folder}`]));
  for (const group of groupBy(entries.found, (e) => `${e.entry.sourceType}\0${e.entry.url}\0${e.entry.commit ?? ""}`)) {
    const first = group[0]!.entry;
    const spec = specOfEntry(first);
    await withSourceTree(spec, first.commit, options, new Set(group.map((e) => e.name)), async (root, fetched) => {
      for (const { name, entry } of group) {
        const skill = skillAt(root, entry.path);
        if (!skill || skill.name !== name) {
          outcomes.push(refused(name, options.target, siteRefusals(fetched, new Set([name]))[0]?.problems ?? [`the source has no skill ${name} at ${entry.path || "its root"} in ${first.commit ?? first.url}`]));
          continue;
        }
        outcomes.push(await putSkill(skill, { ...fetched, source: entry.source, ref: entry.ref }, lock, options, { mode: "frozen", expectedDigest: entry.digest }));
      }
    }).catch((error: unknown) => {
      // One source that cannot be fetched (or a local folder gone) refuses its own skills, not the others'.
      if (!(error instanceof InstallError)) throw error;
      for (const { name } of group) outcomes.push(refused(name, options.target, [error.message]));
    });
  }
  return { lockfile: options.target.lockfile, skills: outcomes };
}

/** `update [NAME…]`: moves installed skills to their source's newest commit, or the commit their pinned ref names now. */
export async function updateSkills(options: InstallOptions & { names?: readonly string[] }): Promise<InstallReport> {
  return withInstallLock(options.target.lockfile, () => updateLocked(options));
}

async function updateLocked(options: InstallOptions & { names?: readonly string[] }): Promise<InstallReport> {
  checkTargetInside(options.target);
  const lock = readSkillsLock(options.target.lockfile);
  removeAbandonedTemporaries(options.target.dir);
  const entries = selectEntries(lock, options.target, options.names);
  const outcomes: SkillOutcome[] = entries.missing.map((name) => ({
    ...refused(name, options.target, [`${name} is not installed in ${options.target.folder} (${path.basename(options.target.lockfile)} records no such skill)`]),
    notInstalled: true as const,
  }));
  for (const group of groupBy(entries.found, (e) => `${e.entry.sourceType}\0${e.entry.url}\0${e.entry.ref ?? ""}`)) {
    const first = group[0]!.entry;
    const spec = specOfEntry(first);
    await withSourceTree(spec, first.ref, options, new Set(group.map((e) => e.name)), async (root, fetched) => {
      let discovered: SourceSkill[] | null = null;
      for (const { name, entry } of group) {
        let skill = skillAt(root, entry.path);
        if (!skill || skill.name !== name) {
          // Moved inside its source: found again by name.
          discovered ??= await skillsOfSource(root, "");
          skill = discovered.find((s) => s.name === name) ?? null;
        }
        if (!skill) {
          // A site's entry refused while fetching (a digest that no longer matches) says why, not "gone".
          outcomes.push(refused(name, options.target, siteRefusals(fetched, new Set([name]))[0]?.problems ?? [`${entry.source} no longer holds a skill named ${name}`]));
          continue;
        }
        outcomes.push(await putSkill(skill, { ...fetched, source: entry.source, ref: entry.ref }, lock, options, { mode: "update" }));
      }
    }).catch((error: unknown) => {
      // One source that cannot be fetched (or a local folder gone) refuses its own skills, not the others'.
      if (!(error instanceof InstallError)) throw error;
      for (const { name } of group) outcomes.push(refused(name, options.target, [error.message]));
    });
  }
  return { lockfile: options.target.lockfile, skills: outcomes };
}

/** `remove NAME…`: takes installed skills out of the folder and the lockfile. */
export async function removeSkills(names: readonly string[], options: Pick<InstallOptions, "target" | "force">): Promise<InstallReport> {
  return withInstallLock(options.target.lockfile, () => removeLocked(names, options));
}

async function removeLocked(names: readonly string[], options: Pick<InstallOptions, "target" | "force">): Promise<InstallReport> {
  const { target } = options;
  checkTargetInside(target);
  const lock = readSkillsLock(target.lockfile);
  removeAbandonedTemporaries(target.dir);
  const outcomes: SkillOutcome[] = [];
  for (const name of names) {
    const dir = path.join(target.dir, name);
    const entry = lock.get(target.folder)?.get(name);
    const present = isPlainName(name) && exists(dir);
    if (!entry && !present) {
      outcomes.push({ ...refused(name, target, [`${name} is not installed in ${target.folder}`]), notInstalled: true });
      continue;
    }
    if (!entry && !options.force) {
      outcomes.push(refused(name, target, [`${path.basename(target.lockfile)} does not record ${name}, so skillport did not install it; use --force to remove it anyway`]));
      continue;
    }
    if (entry && present && !options.force) {
      const edited = editedSince(dir, entry);
      if (edited) {
        outcomes.push(refused(name, target, [`${edited}; use --force to remove it and lose those changes`]));
        continue;
      }
    }
    if (present) removePlaced(target.dir, name);
    if (entry) {
      lock.get(target.folder)!.delete(name);
      writeSkillsLock(target.lockfile, lock);
    }
    outcomes.push({ name, status: "removed", dir, folder: target.folder, messages: present ? [] : ["its folder was already gone"] });
  }
  return { lockfile: target.lockfile, skills: outcomes };
}

/** `verify`: every skill the lockfile records for the folder, checked against its digest. */
export async function verifySkills(options: Pick<InstallOptions, "target">): Promise<InstallReport> {
  const { target } = options;
  const lock = readSkillsLock(target.lockfile);
  const outcomes: SkillOutcome[] = [];
  for (const [name, entry] of [...(lock.get(target.folder) ?? new Map<string, LockedSkill>())].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const dir = path.join(target.dir, name);
    const base = { name, dir, folder: target.folder, commit: entry.commit, digest: entry.digest, path: entry.path };
    if (!exists(dir)) {
      outcomes.push({ ...base, status: "missing", messages: [`${path.basename(target.lockfile)} records ${name}, but its folder is gone`] });
      continue;
    }
    const edited = editedSince(dir, entry);
    outcomes.push(edited ? { ...base, status: "modified", messages: [edited] } : { ...base, status: "ok", messages: [] });
  }
  return { lockfile: target.lockfile, skills: outcomes };
}

/** The folders a lockfile records skills in (for commands run over every folder of a project). */
export function lockedFolders(lockfile: string): string[] {
  return [...readSkillsLock(lockfile)].filter(([, skills]) => skills.size > 0).map(([folder]) => folder);
}

type PutMode = { mode: "add"; duplicate: boolean } | { mode: "update" } | { mode: "frozen"; expectedDigest: string };

async function putSkill(skill: SourceSkill, provenance: Provenance, lock: SkillsLock, options: InstallOptions, how: PutMode): Promise<SkillOutcome> {
  const { target } = options;
  const name = skill.name;
  const dir = path.join(target.dir, name);
  const base = { name, dir, folder: target.folder, path: skill.path, commit: provenance.commit };
  if (how.mode === "add" && how.duplicate) return { ...base, status: "refused", messages: skill.problems };
  if (skill.problems.length > 0 || !skill.files) return { ...base, status: "refused", messages: skill.problems };

  const entry = lock.get(target.folder)?.get(name);
  const present = exists(dir);
  if (present && !options.force) {
    if (!entry) {
      return { ...base, status: "refused", messages: [`${dir} already exists and ${path.basename(target.lockfile)} does not record it; use --force to replace it`] };
    }
    if (how.mode === "add" && (entry.url !== provenance.url || entry.path !== skill.path)) {
      return { ...base, status: "refused", messages: [`${name} is installed from ${entry.source}${entry.path ? ` (${entry.path})` : ""}; use --force to replace it with this one`] };
    }
    const edited = editedSince(dir, entry);
    if (edited) return { ...base, status: "refused", messages: [`${edited}; use --force to replace it and lose those changes`] };
  }

  const sourceDigest = digestOfPackage(skill.dir).digest;
  if (how.mode === "frozen" && sourceDigest !== how.expectedDigest) {
    return { ...base, status: "refused", messages: [`its files in the source (${sourceDigest}) do not match the locked digest (${how.expectedDigest})`] };
  }
  const { site, ...where } = provenance;
  const artifactDigest = site?.artifactDigests.get(skill.path.split("/")[0]!);
  const recorded: LockedSkill = { ...where, path: skill.path, digest: sourceDigest ?? "", ...(artifactDigest ? { wellKnownDigest: artifactDigest } : {}) };
  if (entry && present && sourceDigest === entry.digest && (options.force ? digestOfPackage(dir).digest === entry.digest : true)) {
    // Nothing to copy: the same files are in place. The lockfile still follows the source's commit.
    if (how.mode !== "frozen" && !sameEntry(entry, recorded)) record(lock, target, name, recorded);
    return { ...base, status: "unchanged", messages: [], digest: entry.digest, previousCommit: entry.commit };
  }

  const staged = await stageSkill(target.dir, name, skill.files, options.onCopy);
  placeStaged(staged.staging, target.dir, name);
  if (how.mode !== "frozen" || !entry) record(lock, target, name, { ...recorded, digest: staged.digest });
  return { ...base, status: present ? "updated" : "installed", messages: [], digest: staged.digest, ...(entry ? { previousCommit: entry.commit } : {}) };
}

function record(lock: SkillsLock, target: InstallTarget, name: string, entry: LockedSkill): void {
  let folder = lock.get(target.folder);
  if (!folder) {
    folder = new Map();
    lock.set(target.folder, folder);
  }
  folder.set(name, entry);
  writeSkillsLock(target.lockfile, lock);
}

function sameEntry(a: LockedSkill, b: LockedSkill): boolean {
  return a.source === b.source && a.sourceType === b.sourceType && a.url === b.url && a.ref === b.ref && a.commit === b.commit && a.path === b.path && a.digest === b.digest && a.wellKnownDigest === b.wellKnownDigest;
}

/** Why the installed folder no longer matches its locked digest, or null when it does. */
function editedSince(dir: string, entry: LockedSkill): string | null {
  const now = digestOfPackage(dir);
  if (now.digest === entry.digest) return null;
  if (now.digest === null) return `its folder holds what no install writes (${now.problems.join("; ")})`;
  return "its files were changed since it was installed (they no longer match the digest in skills-lock.json)";
}

function refused(name: string, target: InstallTarget, messages: string[]): SkillOutcome {
  return { name, status: "refused", dir: path.join(target.dir, isPlainName(name) ? name : "."), folder: target.folder, messages };
}

function isPlainName(name: string): boolean {
  return name !== "" && name !== "." && name !== ".." && !/[/\\\0]/.test(name);
}

function selectEntries(lock: SkillsLock, target: InstallTarget, names: readonly string[] | undefined): { found: Array<{ name: string; entry: LockedSkill }>; missing: string[] } {
  const recorded = lock.get(target.folder) ?? new Map<string, LockedSkill>();
  if (!names || names.length === 0) return { found: [...recorded].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, entry]) => ({ name, entry })), missing: [] };
  const found: Array<{ name: string; entry: LockedSkill }> = [];
  const missing: string[] = [];
  for (const name of new Set(names)) {
    const entry = recorded.get(name);
    if (entry) found.push({ name, entry });
    else missing.push(name);
  }
  return { found, missing };
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return [...groups.values()];
}

function specOfEntry(entry: LockedSkill): SourceSpec {
  if (entry.sourceType === "well-known") return { kind: "well-known", given: entry.source, url: entry.url, gitFallback: false };
  return entry.sourceType === "local" ? { kind: "local", given: entry.source, dir: entry.url } : { kind: "git", given: entry.source, url: entry.url, ref: entry.ref, path: "" };
}

function specRef(spec: SourceSpec): string | null {
  return spec.kind === "git" ? spec.ref : null;
}

/** The folder inside the source to look in: the SOURCE's own path, then `--path` below it. */
function insideOf(spec: SourceSpec, extra: string | undefined): string {
  const base = spec.kind === "git" ? spec.path : "";
  if (extra === undefined || extra === "") return base;
  const parts = extra.split("/").filter((part) => part !== "" && part !== ".");
  if (extra.startsWith("/") || extra.includes("\\") || extra.includes("\0") || parts.some((part) => part === "..")) {
    throw new InstallError(`--path ${JSON.stringify(extra)} must be a relative folder inside the source, without ..`, "usage");
  }
  return [...(base === "" ? [] : [base]), ...parts].join("/");
}

/** The skills of one plugin (`--plugin`), or all of them. */
function narrowToPlugin(root: string, skills: SourceSkill[], plugin: string | undefined): { skills: SourceSkill[] } {
  if (plugin === undefined) return { skills };
  const { plugins } = pluginsOfSource(fs.realpathSync.native(root));
  const chosen = plugins.find((p) => p.name === plugin);
  if (!chosen) {
    throw new InstallError(plugins.length === 0 ? `the source holds no plugins (no .claude-plugin/marketplace.json, .agents/plugins/marketplace.json or plugin.json)` : `the source holds no plugin named ${plugin} (it holds: ${plugins.map((p) => p.name).join(", ")})`, "usage");
  }
  if (chosen.elsewhere) throw new InstallError(`plugin ${plugin} is not in this source (its source is ${chosen.elsewhere}); add that source instead`, "usage");
  return { skills: skills.filter((s) => inPlugin(chosen, s.path)) };
}

/** The entries of a well-known site that were refused before discovery could see them (those asked for, when names were given). */
function siteRefusals(provenance: Provenance, wanted: ReadonlySet<string> | null): Array<{ name: string; problems: string[] }> {
  return (provenance.site?.refused ?? []).filter((r) => !wanted || wanted.has(r.name));
}

function skippedOf(root: string, inside: string): string[] {
  const realRoot = fs.realpathSync.native(root);
  return skippedDotFolders(realRoot, path.resolve(realRoot, ...inside.split("/").filter((s) => s !== "")));
}

/**
 * Runs `work` on the source's files: a fetched commit of a git source, the local folder itself,
 * or a well-known site's skills fetched into a temporary folder (only the `wanted` names, when
 * given). An `https://` site with no index is fetched as a git repository instead.
 */
async function withSourceTree<T>(spec: SourceSpec, ref: string | null, options: Pick<InstallOptions, "env" | "onProgress">, wanted: ReadonlySet<string> | null, work: (root: string, provenance: Provenance) => Promise<T>): Promise<T> {
  if (spec.kind === "well-known") {
    options.onProgress?.(`reading ${spec.url}/.well-known/agent-skills/index.json`);
    const index = await readSiteIndex(spec.url);
    if (index) {
      return withFetchedSite(index, wanted, options.onProgress, (root, site) => work(root, { source: spec.given, sourceType: "well-known", url: spec.url, ref: null, commit: null, site }));
    }
    if (!spec.gitFallback) throw new InstallError(`${spec.given} has no skills index (neither /.well-known/agent-skills/index.json nor /.well-known/skills/index.json)`, "failed");
    options.onProgress?.(`no skills index at ${spec.url}; fetching it as a git repository`);
    return withFetchedCommit(spec.url, ref, { ...(options.env ? { env: options.env } : {}), ...(options.onProgress ? { onProgress: options.onProgress } : {}) }, (fetched) =>
      work(fetched.dir, { source: spec.given, sourceType: "git", url: spec.url, ref: null, commit: fetched.commit }),
    );
  }
  if (spec.kind === "local") {
    if (!exists(spec.dir)) throw new InstallError(`the folder ${spec.dir} does not exist`, "usage");
    const provenance: Provenance = { source: spec.given, sourceType: "local", url: spec.dir, ref: null, commit: null };
    return work(spec.dir, provenance);
  }
  return withFetchedCommit(spec.url, ref, { ...(options.env ? { env: options.env } : {}), ...(options.onProgress ? { onProgress: options.onProgress } : {}) }, (fetched) =>
    work(fetched.dir, { source: spec.given, sourceType: "git", url: spec.url, ref: spec.ref, commit: fetched.commit }),
  );
}

function defaultHome(): string {
  return process.env.HOME ?? process.env.USERPROFILE ?? "/";
}
