/**
 * `skills-lock.json` (SPEC §10, §10.1): the `skills` CLI's file, shared with it. Its shape is
 * that CLI's, `{"version": 1, "skills": {NAME: {source, sourceType, sourceUrl?, ref?, skillPath?,
 * computedHash}}}`, names sorted, two-space JSON, a final newline; what skillport records beyond
 * it (the commit, the package digest and each file's digest, the folder, the hosts linked) are
 * extra keys of its own entries, which that CLI keeps. Entries skillport did not write are kept
 * as they are, byte for byte where skillport does not replace them; those it can use (a git or
 * local source with a `computedHash`) are read as entries "written by another tool" (no package
 * digest) that `verify` checks by `computedHash` and `update`/`remove` can act on. skillport's
 * earlier shape (`{"lockfileVersion": 1, "folders": …}`) is read as well and written in the new
 * shape on the next write, losing nothing.
 *
 * In memory entries are kept per folder (`.agents/skills`, `.claude/skills`) as before. In the
 * file a name has one entry: the one of the canonical folder (the `skills` CLI's `.agents/skills`),
 * the same name in other folders nested under its `otherFolders` key.
 *
 * It is written whole to a temporary sibling and renamed over the old one: a reader (or a crash)
 * sees the old lockfile or the new, never half.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { DIGEST_PREFIX } from "../package/package-digest.js";
import { isLeftOutOfPackage } from "../package/package-shape.js";
import { computedHashOf, isComputedHash } from "./computed-hash.js";
import { CANONICAL_FOLDER, HOSTS } from "./hosts.js";
import { UnsafeWriteError, writeFileWithin } from "../package/safe-file-write.js";
import { InstallError } from "./install-error.js";
import { isGitSourceUrl, isSafeRef } from "./source-spec.js";
import { siteBaseUrl } from "./well-known.js";

export const LOCKFILE_VERSION = 1;
/** skillport's shape before it shared the `skills` CLI's. */
const EARLIER_LOCKFILE_VERSION = 1;

export interface LockedSkill {
  /** The SOURCE as the user gave it (`anthropics/skills`); a local folder relative to the lockfile's folder (`./vendor`). */
  source: string;
  sourceType: "git" | "local" | "well-known";
  /** What was fetched: the git URL, the local folder's absolute path, or the well-known site's base URL. */
  url: string;
  /** The branch, tag or commit asked for; null for the default branch (and for local folders). */
  ref: string | null;
  /** The commit installed; null for a local folder, and when another tool installed it. */
  commit: string | null;
  /** The skill's folder inside the source, `/`-separated ("" when the source is the skill itself). */
  path: string;
  /** `sha256:<hex>` of the package as installed; null for an entry another tool wrote (checked by `computedHash`). */
  digest: string | null;
  /** The `skills` CLI's folder hash (computed-hash.ts); null when unknown. */
  computedHash: string | null;
  /** Each file's `sha256:` digest, so a changed skill's files can be named. */
  files?: Record<string, string>;
  /** The hosts (ids of hosts.ts) whose folders were linked to this skill. */
  hosts?: string[];
  /** A well-known site's skill: the digest of the artifact it was unpacked from (the key the `skills` CLI uses). */
  wellKnownDigest?: string;
  /** Audit rules (SPEC §12) a person accepted for this skill with `--allow-risky`; absent when none. */
  auditAccepted?: string[];
  /** The audit's rules version those were accepted under. */
  auditRulesVersion?: string;
  /** Keys skillport does not know (another tool's, or a newer skillport's), written back as they were. */
  extra?: Record<string, unknown>;
  /** The entry as read, for one another tool wrote: written back as it was while nothing replaces it. */
  raw?: Record<string, unknown>;
}

/** Folder (relative to the lockfile, `/`-separated) → skill name → entry; and the entries kept as they were. */
export class SkillsLock extends Map<string, Map<string, LockedSkill>> {
  /** Entries skillport cannot use (another tool's, of a kind it does not fetch), by name: written back unchanged. */
  readonly kept = new Map<string, unknown>();
  constructor(
    /** The lockfile's folder: local sources are written relative to it. */
    readonly lockDir: string = path.resolve("."),
    /** The `skills` CLI's install folder, relative to the lockfile: where its entries live. */
    readonly canonicalFolder: string = canonicalFolderOf(lockDir),
  ) {
    super();
  }
}

/** `.agents/skills` beside a project's lockfile; `skills` beside the user's `~/.agents/skills-lock.json`. */
export function canonicalFolderOf(lockDir: string): string {
  return path.basename(lockDir) === ".agents" ? "skills" : ".agents/skills";
}

/** The lockfile at `file`; empty when there is none. A lockfile that cannot be read is an error, never silently replaced. */
export function readSkillsLock(file: string): SkillsLock {
  const lockDir = path.dirname(path.resolve(file));
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return new SkillsLock(lockDir);
    throw new InstallError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, "usage");
  }
  try {
    // An entry of the earlier shape has no computedHash: taken from the installed folder, as the other CLI would.
    return parseSkillsLock(text, {
      lockDir,
      hashOf: (folder, name) => computedHashOf(path.join(lockDir, ...folder.split("/"), name)),
      locate: (name) => installedFolderOf(lockDir, name),
    });
  } catch (error) {
    throw new InstallError(`${file} is not a skills lockfile skillport can read: ${(error as Error).message}`, "usage");
  }
}

export interface ParseOptions {
  /** The lockfile's folder (local sources are relative to it); default the working directory. */
  lockDir?: string;
  /** The computedHash of an installed skill, for entries of the earlier shape. */
  hashOf?: (folder: string, name: string) => string | null;
  /** The folder another tool's entry is installed in (default the canonical one). */
  locate?: (name: string) => string | null;
}

/**
 * Where the `skills` CLI put a skill of a project's lockfile: `.agents/skills` as a rule, but
 * when every host it installed for shares one folder it copies straight into that host's folder
 * (`-a claude-code` alone gives `.claude/skills/NAME`) and its lockfile does not say which. The
 * canonical folder first, then each host's project folder of the table holding a real folder of
 * that name.
 */
function installedFolderOf(lockDir: string, name: string): string | null {
  const canonical = canonicalFolderOf(lockDir);
  if (canonical !== CANONICAL_FOLDER || fs.existsSync(path.join(lockDir, ...canonical.split("/"), name))) return null;
  for (const host of HOSTS) {
    if (host.project === CANONICAL_FOLDER) continue;
    const stat = fs.lstatSync(path.join(lockDir, ...host.project.split("/"), name), { throwIfNoEntry: false });
    if (stat?.isDirectory()) return host.project;
  }
  return null;
}

export function parseSkillsLock(text: string, options: ParseOptions = {}): SkillsLock {
  const lock = new SkillsLock(path.resolve(options.lockDir ?? "."));
  const value = JSON.parse(text) as unknown;
  if (!isObject(value)) throw new Error("it is not a JSON object");
  if (value.lockfileVersion === EARLIER_LOCKFILE_VERSION && isObject(value.folders) && value.skills === undefined) {
    readEarlierShape(value.folders, lock, options.hashOf ?? (() => null));
    return lock;
  }
  if (typeof value.version !== "number") throw new Error("it has no numeric `version`");
  // A newer version may hold what this skillport would drop on its next write.
  if (value.version !== LOCKFILE_VERSION) throw new Error(`version ${value.version} is not ${LOCKFILE_VERSION}, the one skillport writes`);
  if (!isObject(value.skills)) throw new Error("it has no `skills` object");
  for (const [name, entry] of Object.entries(value.skills)) {
    if (!isObject(entry)) throw new Error(`${JSON.stringify(name)} is not an object`);
    if (!isSafeSkillName(name)) {
      lock.kept.set(name, entry);
      continue;
    }
    if (entry.digest !== undefined) {
      const { folder, skill } = ownEntry(entry, name, lock);
      put(lock, folder, name, skill);
      if (entry.otherFolders !== undefined) {
        if (!isObject(entry.otherFolders)) throw new Error(`${name}: otherFolders must be an object`);
        for (const [other, nested] of Object.entries(entry.otherFolders)) {
          if (!isObject(nested)) throw new Error(`${name}: otherFolders ${JSON.stringify(other)} is not an object`);
          if (nested.digest === undefined) {
            // Another tool's install of the same name in a host folder, kept beside skillport's.
            if (!isSafeFolder(other)) throw new Error(`${name}: otherFolders ${JSON.stringify(other)} is not a relative path inside the lockfile's directory`);
            const foreign = otherToolEntry(nested, name, lock);
            if (!foreign) throw new Error(`${name}: otherFolders ${JSON.stringify(other)} is not an entry skillport can read`);
            put(lock, other, name, foreign);
            continue;
          }
          const inner = ownEntry({ ...nested, folder: other }, name, lock);
          put(lock, inner.folder, name, inner.skill);
        }
      }
      continue;
    }
    const foreign = otherToolEntry(entry, name, lock);
    if (foreign) put(lock, options.locate?.(name) ?? lock.canonicalFolder, name, foreign);
    else lock.kept.set(name, entry);
  }
  return lock;
}

const STANDARD_KEYS = ["source", "sourceUrl", "ref", "sourceType", "skillPath", "computedHash"] as const;
const OWN_KEYS = ["commit", "digest", "files", "folder", "hosts", "given", "otherFolders", "wellKnownDigest", "auditAccepted", "auditRulesVersion"] as const;
const KNOWN_KEYS: ReadonlySet<string> = new Set<string>([...STANDARD_KEYS, ...OWN_KEYS]);

/** An entry skillport wrote: every fact it relies on checked, for a committed lockfile is someone else's text. */
function ownEntry(entry: Record<string, unknown>, name: string, lock: SkillsLock): { folder: string; skill: LockedSkill } {
  const where = name;
  const folder = entry.folder ?? lock.canonicalFolder;
  if (typeof folder !== "string" || !isSafeFolder(folder)) throw new Error(`${where}: folder must be a relative path inside the lockfile's directory`);
  const common = sourceFacts(entry, where, lock);
  if (!common) throw new Error(`${where}: sourceType must be "github", "gitlab", "git" or "local", with a usable source`);
  const { commit, digest, files, hosts, given, wellKnownDigest, auditAccepted, auditRulesVersion } = entry;
  if (wellKnownDigest !== undefined && (typeof wellKnownDigest !== "string" || !new RegExp(`^${DIGEST_PREFIX}[0-9a-f]{64}$`).test(wellKnownDigest))) throw new Error(`${where}: wellKnownDigest must be sha256:<64 hex>`);
  if (commit !== undefined && commit !== null && (typeof commit !== "string" || !/^[0-9a-f]{40,64}$/.test(commit))) throw new Error(`${where}: commit must be a full hex commit name`);
  if (common.sourceType === "git" && typeof commit !== "string") throw new Error(`${where}: a git source needs its commit`);
  if (typeof digest !== "string" || !new RegExp(`^${DIGEST_PREFIX}[0-9a-f]{64}$`).test(digest)) throw new Error(`${where}: digest must be sha256:<64 hex>`);
  if (files !== undefined && !isFileRecord(files)) throw new Error(`${where}: files must map relative paths to sha256: digests`);
  if (hosts !== undefined && !(Array.isArray(hosts) && hosts.every((h) => typeof h === "string" && /^[a-z0-9][a-z0-9-]*$/.test(h)))) throw new Error(`${where}: hosts must be a list of host ids`);
  if (given !== undefined && typeof given !== "string") throw new Error(`${where}: given must be a string`);
  if (auditAccepted !== undefined && (!Array.isArray(auditAccepted) || !auditAccepted.every((r) => typeof r === "string" && /^[a-z0-9-]{1,64}$/.test(r)))) {
    throw new Error(`${where}: auditAccepted must be a list of rule ids`);
  }
  if (auditRulesVersion !== undefined && (typeof auditRulesVersion !== "string" || auditRulesVersion.length > 64)) throw new Error(`${where}: auditRulesVersion must be a string`);
  const extra = extraKeys(entry);
  const skill: LockedSkill = {
    ...common,
    ...(typeof given === "string" && common.sourceType !== "local" ? { source: given } : {}),
    ...(typeof wellKnownDigest === "string" ? { wellKnownDigest } : {}),
    commit: typeof commit === "string" ? commit : null,
    digest,
    ...(files !== undefined ? { files: files as Record<string, string> } : {}),
    ...(hosts !== undefined ? { hosts: [...(hosts as string[])] } : {}),
    ...(Array.isArray(auditAccepted) && auditAccepted.length > 0
      ? { auditAccepted: [...(auditAccepted as string[])], ...(typeof auditRulesVersion === "string" ? { auditRulesVersion } : {}) }
      : {}),
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
  return { folder, skill };
}

/** An entry another tool wrote that skillport can act on, or null to keep it as it is. */
function otherToolEntry(entry: Record<string, unknown>, name: string, lock: SkillsLock): LockedSkill | null {
  if (entry.computedHash !== undefined && !isComputedHash(entry.computedHash)) return null;
  let common: ReturnType<typeof sourceFacts>;
  try {
    common = sourceFacts(entry, name, lock);
  } catch {
    return null;
  }
  // Another tool's well-known install is kept as it is: skillport acts on others' git and local installs only.
  if (!common || common.sourceType === "well-known") return null;
  return { ...common, commit: null, digest: null, raw: entry };
}

/** The source, type, URL, ref, path and computedHash of an entry, in either tool's spelling; null for a source kind skillport does not fetch. */
function sourceFacts(entry: Record<string, unknown>, where: string, lock: SkillsLock): Omit<LockedSkill, "commit" | "digest"> | null {
  const { source, sourceType, sourceUrl, ref, skillPath, computedHash } = entry;
  if (typeof source !== "string" || source === "") throw new Error(`${where}: source must be a string`);
  if (ref !== undefined && ref !== null && (typeof ref !== "string" || !isSafeRef(ref))) throw new Error(`${where}: ref must be a branch, tag or commit name`);
  let inSource = "";
  if (skillPath !== undefined) {
    if (typeof skillPath !== "string" || !/(^|\/)SKILL\.md$/.test(skillPath)) throw new Error(`${where}: skillPath must name a SKILL.md`);
    inSource = skillPath === "SKILL.md" ? "" : skillPath.slice(0, -"/SKILL.md".length);
    if (inSource !== "" && !isSafeFolder(inSource)) throw new Error(`${where}: skillPath must be a relative path inside the source`);
  }
  const hash = isComputedHash(computedHash) ? computedHash : null;
  const base = { path: inSource, computedHash: hash, ref: typeof ref === "string" ? ref : null };
  if (sourceType === "local") {
    if (source.includes("\0")) throw new Error(`${where}: source holds a NUL`);
    const url = path.resolve(lock.lockDir, source);
    return { ...base, source: portableLocalSource(url, lock.lockDir), sourceType: "local", url, ref: null };
  }
  if (sourceType === "well-known") {
    // A committed lockfile is someone else's text: the site must be one a SOURCE could have named.
    if (typeof sourceUrl !== "string" || !isSiteUrl(sourceUrl)) throw new Error(`${where}: a well-known source's sourceUrl must be an https:// (or loopback http://) site URL`);
    return { ...base, source, sourceType: "well-known", url: sourceUrl, ref: null };
  }
  if (sourceType !== "github" && sourceType !== "gitlab" && sourceType !== "git") return null;
  let url: string;
  if (typeof sourceUrl === "string") url = sourceUrl;
  else if (sourceType === "github" && /^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100}$/.test(source)) url = `https://github.com/${source.replace(/\.git$/, "")}.git`;
  else throw new Error(`${where}: a ${sourceType} source needs its sourceUrl`);
  if (url.startsWith("-")) throw new Error(`${where}: sourceUrl looks like an option`);
  // A committed lockfile is someone else's text: its URL must be one a SOURCE could have named.
  if (!isGitSourceUrl(url)) throw new Error(`${where}: sourceUrl must be an https://, ssh://, file:// or git@host:path URL`);
  return { ...base, source, sourceType: "git", url };
}

function readEarlierShape(folders: Record<string, unknown>, lock: SkillsLock, hashOf: (folder: string, name: string) => string | null): void {
  for (const [folder, skills] of Object.entries(folders)) {
    if (!isSafeFolder(folder)) throw new Error(`folder ${JSON.stringify(folder)} is not a relative path inside the lockfile's directory`);
    if (!isObject(skills)) throw new Error(`folder ${JSON.stringify(folder)} is not an object of skills`);
    for (const [name, entry] of Object.entries(skills)) {
      if (!isSafeSkillName(name)) throw new Error(`${JSON.stringify(name)} is not a skill folder name`);
      const where = `${folder}/${name}`;
      if (!isObject(entry)) throw new Error(`${where} is not an object`);
      const { source, sourceType, url, ref, commit, path: inSource, digest } = entry;
      if (typeof source !== "string" || typeof url !== "string" || url === "") throw new Error(`${where}: source and url must be strings`);
      if (sourceType !== "git" && sourceType !== "local") throw new Error(`${where}: sourceType must be "git" or "local"`);
      if (sourceType === "git" && !isGitSourceUrl(url)) throw new Error(`${where}: url must be an https://, ssh://, file:// or git@host:path URL`);
      if (sourceType === "local" && !path.isAbsolute(url)) throw new Error(`${where}: a local source's url must be an absolute path`);
      if (ref !== null && (typeof ref !== "string" || !isSafeRef(ref))) throw new Error(`${where}: ref must be null or a branch, tag or commit name`);
      if (commit !== null && (typeof commit !== "string" || !/^[0-9a-f]{40,64}$/.test(commit))) throw new Error(`${where}: commit must be null or a full hex commit name`);
      if (sourceType === "git" && commit === null) throw new Error(`${where}: a git source needs its commit`);
      if (typeof inSource !== "string" || (inSource !== "" && !isSafeFolder(inSource))) throw new Error(`${where}: path must be a relative path inside the source`);
      if (typeof digest !== "string" || !new RegExp(`^${DIGEST_PREFIX}[0-9a-f]{64}$`).test(digest)) throw new Error(`${where}: digest must be sha256:<64 hex>`);
      put(lock, folder, name, {
        source: sourceType === "local" ? portableLocalSource(url, lock.lockDir) : source,
        sourceType,
        url,
        ref: sourceType === "local" ? null : (ref as string | null),
        commit: commit as string | null,
        path: inSource,
        digest,
        computedHash: hashOf(folder, name),
      });
    }
  }
}

/** The lockfile's text in the `skills` CLI's shape: names sorted, skillport's facts as extra keys, one trailing newline. */
export function skillsLockText(lock: SkillsLock): string {
  const byName = new Map<string, Array<[string, LockedSkill]>>();
  for (const [folder, skills] of lock) {
    for (const [name, entry] of skills) {
      const list = byName.get(name) ?? [];
      list.push([folder, entry]);
      byName.set(name, list);
    }
  }
  const skills: Record<string, unknown> = {};
  for (const name of [...new Set([...byName.keys(), ...lock.kept.keys()])].sort()) {
    const entries = byName.get(name);
    if (!entries) {
      skills[name] = lock.kept.get(name);
      continue;
    }
    // The canonical folder's entry is the one the other CLI sees; the same name elsewhere rides inside it.
    entries.sort(([a], [b]) => (a === lock.canonicalFolder ? -1 : b === lock.canonicalFolder ? 1 : a < b ? -1 : a > b ? 1 : 0));
    const [[folder, first], ...rest] = entries as [[string, LockedSkill], ...Array<[string, LockedSkill]>];
    const written = entryObject(first, folder, lock);
    if (rest.length > 0) {
      const others: Record<string, unknown> = {};
      for (const [other, entry] of rest) {
        // Another tool's entry has no place but the canonical folder; one of ours elsewhere keeps its folder key.
        const nested = entryObject(entry, other, lock);
        delete nested.folder;
        others[other] = nested;
      }
      written.otherFolders = others;
    }
    skills[name] = written;
  }
  return `${JSON.stringify({ version: LOCKFILE_VERSION, skills }, null, 2)}\n`;
}

function entryObject(entry: LockedSkill, folder: string, lock: SkillsLock): Record<string, unknown> {
  if (entry.raw && entry.digest === null) return { ...entry.raw };
  const sourceType = entry.sourceType === "local" || entry.sourceType === "well-known" ? entry.sourceType : gitSourceType(entry.url);
  const source =
    entry.sourceType === "local" ? portableLocalSource(entry.url, lock.lockDir) : sourceType === "github" ? githubOwnerRepo(entry.url) : sourceType === "well-known" ? entry.source : entry.url;
  const written: Record<string, unknown> = {
    source,
    ...(sourceType !== "github" && sourceType !== "local" ? { sourceUrl: entry.url } : {}),
    ...(entry.ref !== null ? { ref: entry.ref } : {}),
    sourceType,
    skillPath: entry.path === "" ? "SKILL.md" : `${entry.path}/SKILL.md`,
    computedHash: entry.computedHash ?? "",
    ...(entry.commit !== null ? { commit: entry.commit } : {}),
    digest: entry.digest,
    ...(entry.files ? { files: entry.files } : {}),
    folder,
    ...(entry.hosts && entry.hosts.length > 0 ? { hosts: [...new Set(entry.hosts)].sort() } : {}),
    ...(entry.wellKnownDigest ? { wellKnownDigest: entry.wellKnownDigest } : {}),
    ...(entry.auditAccepted && entry.auditAccepted.length > 0
      ? { auditAccepted: [...entry.auditAccepted].sort(), ...(entry.auditRulesVersion ? { auditRulesVersion: entry.auditRulesVersion } : {}) }
      : {}),
    ...(entry.sourceType === "git" && entry.source !== source ? { given: entry.source } : {}),
  };
  for (const [key, value] of Object.entries(entry.extra ?? {})) if (!KNOWN_KEYS.has(key)) written[key] = value;
  return written;
}

/** The `skills` CLI's `sourceType` for a git URL: `github` for github.com repositories (their `source` is `owner/repo`), `gitlab`, else `git`. */
function gitSourceType(url: string): "github" | "gitlab" | "git" {
  if (githubOwnerRepo(url) !== url) return "github";
  if (/^https:\/\/gitlab\.com\//.test(url)) return "gitlab";
  return "git";
}

function githubOwnerRepo(url: string): string {
  const match = /^https:\/\/github\.com\/([A-Za-z0-9][A-Za-z0-9-]{0,38})\/([A-Za-z0-9._-]{1,100}?)(?:\.git)?$/.exec(url);
  return match ? `${match[1]}/${match[2]}` : url;
}

/**
 * A local source as the `skills` CLI writes it: relative to the lockfile's folder (`./vendor`,
 * `../shared`, `.`), so a committed lockfile works in every clone; absolute only when no relative
 * path reaches it (another drive).
 */
export function portableLocalSource(source: string, lockDir: string): string {
  const absolute = path.resolve(lockDir, source);
  const relative = path.relative(lockDir, absolute);
  if (path.isAbsolute(relative)) return absolute.split(path.sep).join("/");
  const portable = relative.split(path.sep).join("/");
  if (portable === "") return ".";
  if (portable === ".." || portable.startsWith("../")) return portable;
  return `./${portable}`;
}

/**
 * Writes the lockfile whole into a temporary sibling, flushes it, and renames it into place
 * (safe-file-write.ts): a lockfile committed as a link out of its folder is refused, never
 * written through.
 */
export function writeSkillsLock(file: string, lock: SkillsLock): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  try {
    writeFileWithin(file, skillsLockText(lock), { root: dir });
  } catch (error) {
    if (error instanceof UnsafeWriteError) throw new InstallError(error.message, "failed");
    throw error;
  }
}

function put(lock: SkillsLock, folder: string, name: string, entry: LockedSkill): void {
  let skills = lock.get(folder);
  if (!skills) {
    skills = new Map();
    lock.set(folder, skills);
  }
  skills.set(name, entry);
}

function extraKeys(entry: Record<string, unknown>): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry)) if (!KNOWN_KEYS.has(key)) extra[key] = value;
  return extra;
}

function isFileRecord(value: unknown): value is Record<string, string> {
  if (!isObject(value)) return false;
  return Object.entries(value).every(([file, digest]) => isSafeFolder(file) && typeof digest === "string" && new RegExp(`^${DIGEST_PREFIX}[0-9a-f]{64}$`).test(digest));
}

/** A site URL exactly as a SOURCE would have been recorded (well-known.ts `siteBaseUrl`). */
function isSiteUrl(url: string): boolean {
  try {
    return siteBaseUrl(url) === url;
  } catch {
    return false;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A relative `/`-separated path with no empty, `.`, `..` or absolute part. */
function isSafeFolder(folder: string): boolean {
  if (folder === ".") return true;
  if (folder === "" || folder.startsWith("/") || folder.includes("\\") || folder.includes("\0")) return false;
  return folder.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..");
}

/** A name that is one folder inside the install folder and never a left-out entry. */
export function isSafeSkillName(name: string): boolean {
  return name !== "" && name !== "." && name !== ".." && !/[/\\\0]/.test(name) && !isLeftOutOfPackage(name);
}
