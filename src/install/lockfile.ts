/**
 * `skills-lock.json` (SPEC §10): per installed skill the source as given, the URL it resolved to,
 * the ref asked for, the commit fetched, the skill's path in the source and its package digest
 * (package-digest.ts). Entries are kept per folder (`.agents/skills`, `.claude/skills`), names
 * sorted, so the file diffs cleanly in review. It is written whole to a temporary sibling and
 * renamed over the old one: a reader (or a crash) sees the old lockfile or the new, never half.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { DIGEST_PREFIX } from "../package/package-digest.js";
import { isLeftOutOfPackage } from "../package/package-shape.js";
import { InstallError } from "./install-error.js";
import { isGitSourceUrl, isSafeRef } from "./source-spec.js";
import { siteBaseUrl } from "./well-known.js";

export const LOCKFILE_VERSION = 1;

export interface LockedSkill {
  /** The SOURCE as the user gave it (`anthropics/skills`, `./skills`). */
  source: string;
  sourceType: "git" | "local" | "well-known";
  /** What was fetched: the git URL, the local folder's absolute path, or the well-known site's base URL. */
  url: string;
  /** The branch, tag or commit asked for; null for the default branch (and for local folders). */
  ref: string | null;
  /** The commit installed; null for a local folder. */
  commit: string | null;
  /** The skill's folder inside the source, `/`-separated ("" when the source is the skill itself). */
  path: string;
  /** `sha256:<hex>` of the package as installed. */
  digest: string;
  /** A well-known site's skill: the digest of the artifact it was unpacked from (the key the `skills` CLI uses). */
  wellKnownDigest?: string;
}

/** Folder (relative to the lockfile, `/`-separated) → skill name → entry. */
export type SkillsLock = Map<string, Map<string, LockedSkill>>;

/** The lockfile at `file`; empty when there is none. A lockfile that cannot be read is an error, never silently replaced. */
export function readSkillsLock(file: string): SkillsLock {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return new Map();
    throw new InstallError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, "usage");
  }
  try {
    return parseSkillsLock(text);
  } catch (error) {
    throw new InstallError(`${file} is not a skills lockfile skillport can read: ${(error as Error).message}`, "usage");
  }
}

export function parseSkillsLock(text: string): SkillsLock {
  const value = JSON.parse(text) as unknown;
  if (!isObject(value) || value.lockfileVersion !== LOCKFILE_VERSION) throw new Error(`lockfileVersion is not ${LOCKFILE_VERSION}`);
  if (!isObject(value.folders)) throw new Error("it has no `folders` object");
  const lock: SkillsLock = new Map();
  for (const [folder, skills] of Object.entries(value.folders)) {
    if (!isSafeFolder(folder)) throw new Error(`folder ${JSON.stringify(folder)} is not a relative path inside the lockfile's directory`);
    if (!isObject(skills)) throw new Error(`folder ${JSON.stringify(folder)} is not an object of skills`);
    const entries = new Map<string, LockedSkill>();
    for (const [name, entry] of Object.entries(skills)) {
      if (!isSafeSkillName(name)) throw new Error(`${JSON.stringify(name)} is not a skill folder name`);
      entries.set(name, lockedSkill(entry, `${folder}/${name}`));
    }
    lock.set(folder, entries);
  }
  return lock;
}

function lockedSkill(entry: unknown, where: string): LockedSkill {
  if (!isObject(entry)) throw new Error(`${where} is not an object`);
  const { source, sourceType, url, ref, commit, path: inSource, digest, wellKnownDigest } = entry;
  if (typeof source !== "string" || typeof url !== "string" || url === "") throw new Error(`${where}: source and url must be strings`);
  if (sourceType !== "git" && sourceType !== "local" && sourceType !== "well-known") throw new Error(`${where}: sourceType must be "git", "local" or "well-known"`);
  if (url.startsWith("-")) throw new Error(`${where}: url looks like an option`);
  // A committed lockfile is someone else's text: its URL must be one a SOURCE could have named.
  if (sourceType === "git" && !isGitSourceUrl(url)) throw new Error(`${where}: url must be an https://, ssh://, file:// or git@host:path URL`);
  if (sourceType === "local" && !path.isAbsolute(url)) throw new Error(`${where}: a local source's url must be an absolute path`);
  if (sourceType === "well-known" && !isSiteUrl(url)) throw new Error(`${where}: a well-known source's url must be an https:// (or loopback http://) site URL`);
  if (wellKnownDigest !== undefined && (typeof wellKnownDigest !== "string" || !new RegExp(`^${DIGEST_PREFIX}[0-9a-f]{64}$`).test(wellKnownDigest))) throw new Error(`${where}: wellKnownDigest must be sha256:<64 hex>`);
  if (ref !== null && (typeof ref !== "string" || !isSafeRef(ref))) throw new Error(`${where}: ref must be null or a branch, tag or commit name`);
  if (commit !== null && (typeof commit !== "string" || !/^[0-9a-f]{40,64}$/.test(commit))) throw new Error(`${where}: commit must be null or a full hex commit name`);
  if (sourceType === "git" && commit === null) throw new Error(`${where}: a git source needs its commit`);
  if (typeof inSource !== "string" || (inSource !== "" && !isSafeFolder(inSource))) throw new Error(`${where}: path must be a relative path inside the source`);
  if (typeof digest !== "string" || !new RegExp(`^${DIGEST_PREFIX}[0-9a-f]{64}$`).test(digest)) throw new Error(`${where}: digest must be sha256:<64 hex>`);
  return { source, sourceType, url, ref: ref as string | null, commit: commit as string | null, path: inSource, digest, ...(typeof wellKnownDigest === "string" ? { wellKnownDigest } : {}) };
}

/** The lockfile's text: folders and names sorted, keys in one order, one trailing newline. */
export function skillsLockText(lock: SkillsLock): string {
  const folders: Record<string, Record<string, LockedSkill>> = {};
  for (const folder of [...lock.keys()].sort()) {
    const skills = lock.get(folder)!;
    if (skills.size === 0) continue;
    const ordered: Record<string, LockedSkill> = {};
    for (const name of [...skills.keys()].sort()) {
      const e = skills.get(name)!;
      ordered[name] = { source: e.source, sourceType: e.sourceType, url: e.url, ref: e.ref, commit: e.commit, path: e.path, digest: e.digest, ...(e.wellKnownDigest ? { wellKnownDigest: e.wellKnownDigest } : {}) };
    }
    folders[folder] = ordered;
  }
  return `${JSON.stringify({ lockfileVersion: LOCKFILE_VERSION, folders }, null, 2)}\n`;
}

/** Writes the lockfile whole into a temporary sibling, flushes it, and renames it into place. */
export function writeSkillsLock(file: string, lock: SkillsLock): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  const fd = fs.openSync(temp, "wx", 0o644);
  try {
    try {
      fs.writeFileSync(fd, skillsLockText(lock));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
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
  if (folder === "." ) return true;
  if (folder === "" || folder.startsWith("/") || folder.includes("\\") || folder.includes("\0")) return false;
  return folder.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..");
}

/** A name that is one folder inside the install folder and never a left-out entry. */
export function isSafeSkillName(name: string): boolean {
  return name !== "" && name !== "." && name !== ".." && !/[/\\\0]/.test(name) && !isLeftOutOfPackage(name);
}
