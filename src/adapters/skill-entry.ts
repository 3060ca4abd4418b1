/**
 * One skill as the MCP Skills Extension (SEP-2640) publishes it: `{ uri, frontmatter, resources }`
 * with every file of the package listed as `{ uri, digest, size }`. The frontmatter is the YAML
 * exactly as parsed (no trimming, no normalising, no lenient retry), because clients parse
 * SKILL.md themselves and refuse a skill whose entry differs. A skill the extension's own entry
 * rules would reject (the official SDK's validators: name, description, compatibility,
 * `metadata` of strings, a URI that round-trips, at most 512 files and 16 MiB, and a package the
 * resource listing holds whole) is not published, except that `metadata` values which are not
 * text are left out of the entry (and of the SKILL.md it serves) rather than hide the skill;
 * the reason comes back instead, so one such skill never breaks a client's whole listing.
 * Every byte is read through the package layer's confined read.
 */
import fs, { type Dirent } from "node:fs";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { readConfinedBytes } from "../package/confined-read.js";
import { entryFrontmatter } from "../package/entry-frontmatter.js";
import { frontmatterWithoutGrants } from "../registry/authored-trust.js";
import { readFrontmatter } from "../package/frontmatter.js";
import { yamlLibrary } from "../package/yaml.js";
import { MAX_PACKAGE_BYTES, MAX_PACKAGE_FILES } from "../package/limits.js";
import { fileDigest } from "../package/package-digest.js";
import { peekDiscoveredListing } from "../package/discovered-listings.js";
import { pathInPackage, relativeInPackage } from "../package/package-path.js";
import { listResources, listResourcesNow, type ResourceListing } from "../package/resources.js";
import type { RegisteredSkill } from "../registry/types.js";
import { isCanonicalFileUri, skillUri } from "./skill-uri.js";

export { entryFrontmatter, frontmatterProblems } from "../package/entry-frontmatter.js";

/** The interoperability limits of SEP-2640: hosts must accept up to these; servers should not exceed them. */
export const SKILL_LIMITS = { files: MAX_PACKAGE_FILES, bytes: MAX_PACKAGE_BYTES } as const;

export interface SkillResourceEntry {
  uri: string;
  digest: string;
  size: number;
}

export interface SkillEntry {
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: SkillResourceEntry[];
}

/** A published skill with what serving its files needs: the relative path of each URI, and its folders. */
export interface ServedSkill {
  skill: RegisteredSkill;
  entry: SkillEntry;
  /** File URI → skill-relative path. */
  files: Map<string, { path: string; size: number; mimeType: string }>;
  /** Skill-relative folders, "" (the skill's root) included. */
  dirs: Set<string>;
  /** The source roots the package was listed with: its files are read under the same bounds. */
  sourceRoots: readonly string[];
  /** The SKILL.md bytes served (and hashed in the entry). */
  manifest: Buffer;
  /** `metadata.<key>` paths left out of the entry (and of the SKILL.md served) because they are not text. */
  leftOut: string[];
  /** The grants the trust rule left out of the entry and of the SKILL.md served; empty for most skills. */
  grantsIgnored: string[];
}

export type EntryResult = { ok: true; served: ServedSkill } | { ok: false; reason: string };

/** Digests of files already hashed, keyed by path and version (`PackageFile.version`); bounded, oldest dropped first. */
export class DigestCache {
  private readonly digests = new Map<string, string>();
  constructor(private readonly limit = 20_000) {}
  get(key: string): string | undefined {
    return this.digests.get(key);
  }
  set(key: string, digest: string): void {
    if (this.digests.size >= this.limit) this.digests.delete(this.digests.keys().next().value!);
    this.digests.set(key, digest);
  }
}

/**
 * What the extension makes of one skill, decided without hashing its files: published (perhaps
 * with `metadata` values that are not text left out of its entry, `leftOut` naming them) or
 * not, and why. The one decision: the server builds its entries from it, and `list` and
 * `doctor` call it to say which skills an extension client will not see.
 */
export type EntryPlan =
  | {
      ok: true;
      frontmatter: Record<string, unknown>;
      /** `metadata.<key>` paths left out of the entry because their values are not text. */
      leftOut: string[];
      /** The grants the trust rule left out of the entry and of the SKILL.md served (`frontmatterWithoutGrants`). */
      grantsIgnored: string[];
      /** The SKILL.md bytes the extension serves: the file, or the file with `leftOut` removed from its frontmatter. */
      manifest: Buffer;
      files: PackageFile[];
    }
  | { ok: false; reason: string };

/**
 * How `packageFiles` stamps each file: with the version the digest cache knows its bytes by
 * (an entry about to be published), or with its size alone (a verdict, which needs no more).
 */
type Stamping = "versions" | "sizes";

/**
 * The package's files as the extension publishes them, or why it publishes none: SKILL.md plus
 * the resource listing, each stamped, within the extension's limits of files and bytes. Stamped
 * by size, it also says whether SKILL.md is still the regular file, not a link, that loading
 * read (`manifestAsLoaded`), from the same `lstat`.
 */
async function packageFiles(skill: RegisteredSkill, sourceRoots: readonly string[], stamping: Stamping = "versions"): Promise<MeasuredPackage> {
  if (!servesManifest(skill)) return manifestRefusal;
  const manifestEntry = stamping === "sizes" ? discoveredManifest(skill) : undefined;
  // The package as the tool lists it (one rule for what a skill ships), plus SKILL.md itself.
  return measuredPackage(skill, await listResources(skill.dir, { sourceRoots }), stamping, manifestEntry);
}

/** `packageFiles` by size without leaving the turn, or undefined when its listing needs the asynchronous walk (`listResourcesNow`). */
function packageSizesNow(skill: RegisteredSkill, sourceRoots: readonly string[]): MeasuredPackage | undefined {
  if (!servesManifest(skill)) return manifestRefusal;
  const manifestEntry = discoveredManifest(skill);
  // A SKILL.md that discovery saw as anything but a regular file is decided by the whole plan,
  // which the asynchronous check reaches with discovery's listing still kept: listing the
  // package here would take it.
  if (!manifestEntry?.isFile()) return undefined;
  const listing = listResourcesNow(skill.dir, { sourceRoots });
  return listing && measuredPackage(skill, listing, "sizes", manifestEntry);
}

type MeasuredPackage = { ok: true; files: PackageFile[]; total: number; manifestAsLoaded: boolean } | { ok: false; reason: string };

const manifestRefusal: MeasuredPackage = Object.freeze({ ok: false, reason: "its manifest is named skill.md; the extension serves SKILL.md only" });

function servesManifest(skill: RegisteredSkill): boolean {
  return skill.skillFile.endsWith(`${path.sep}SKILL.md`);
}

/**
 * Measured by size while discovery's listing of the folder is kept, SKILL.md needs no `lstat` of
 * its own: that listing, read moments before loading opened the file, says whether it was a
 * regular file, not a link, and loading stamped it as it read it. This run's verdict is then as
 * of loading, which is what it reports on (`list`, `doctor`). Looked up before the listing is
 * made, which takes discovery's listing away.
 */
function discoveredManifest(skill: RegisteredSkill): Dirent | undefined {
  return peekDiscoveredListing(skill.dir)?.find((entry) => entry.name === "SKILL.md");
}

/** The package of `listing` stamped file by file, within the extension's limits (see `packageFiles`). */
function measuredPackage(skill: RegisteredSkill, listing: ResourceListing, stamping: Stamping, manifestEntry: Dirent | undefined): MeasuredPackage {
  const refuse = (reason: string) => ({ ok: false as const, reason });
  if (listing.truncated) return refuse("its package is larger than the resource listing's bounds");
  const relPaths = ["SKILL.md", ...listing.files, ...listing.scripts.map((script) => relativeInPackage(skill.dir, script))];
  // A backstop: the resource listing's own bound (500 entries, marked truncated and refused
  // above) is tighter today, so no package reaches this check. It stays so that raising the
  // listing's bound can never publish more files than the extension allows.
  if (relPaths.length > SKILL_LIMITS.files) return refuse(`it has more than ${SKILL_LIMITS.files} files`);
  const files: PackageFile[] = [];
  let manifestAsLoaded = false;
  for (const rel of relPaths) {
    // A backstop: only `.` and `..` make a non-canonical URI, and no listed file has those names.
    if (!isCanonicalFileUri(skill.name, rel)) return refuse(`the file name ${JSON.stringify(rel)} cannot be written as a URI`);
    // The registered directory is a real path, so the file's path needs no normalizing.
    const file = pathInPackage(skill.dir, rel);
    let stamp: Pick<PackageFile, "size" | "version"> | null;
    if (stamping === "sizes" && rel === "SKILL.md") {
      const manifest = manifestEntry?.isFile() ? { size: skill.stamp.size, asLoaded: true } : manifestSize(file, skill);
      stamp = manifest && { size: manifest.size, version: "" };
      manifestAsLoaded = manifest?.asLoaded === true;
    } else stamp = stampOf(file, stamping);
    if (!stamp) return refuse(`${rel} vanished while it was listed`);
    files.push({ path: rel, size: stamp.size, version: stamp.version });
  }
  files.sort((a, b) => compare(a.path, b.path));
  let total = 0;
  for (const file of files) total += file.size;
  if (total > SKILL_LIMITS.bytes) return refuse(`its files add up to ${total} bytes, over ${SKILL_LIMITS.bytes}`);
  return { ok: true, files, total, manifestAsLoaded };
}

export async function planSkillEntry(skill: RegisteredSkill, sourceRoots: readonly string[] = []): Promise<EntryPlan> {
  const refuse = (reason: string): EntryPlan => ({ ok: false, reason });
  const listed = await packageFiles(skill, sourceRoots);
  if (!listed.ok) return listed;
  const { files } = listed;
  let { total } = listed;

  const read = await readConfinedBytes(skill.dir, "SKILL.md", { maxBytes: SKILL_LIMITS.bytes, sourceRoots });
  if (!read.ok) return refuse(read.message);
  const text = decodeUtf8(read.bytes);
  if (text === null) return refuse("SKILL.md is not valid UTF-8");
  const parsed = readFrontmatter(text, { allowRetry: false });
  if (!parsed.ok) return refuse(`its frontmatter is not read the same by every YAML parser (${parsed.message})`);
  // The trust rule, on the file as published: an entry or a SKILL.md a client reads must not
  // carry grants activation ignores.
  const trusted = skill.grantsWithheld ? frontmatterWithoutGrants(parsed.data) : { frontmatter: parsed.data, ignored: [] };
  const decided = entryFrontmatter(trusted.frontmatter, skill.name);
  if (!decided.ok) return refuse(decided.problems.join("; "));
  const grantsIgnored = trusted.ignored;
  if (decided.leftOut.length === 0 && grantsIgnored.length === 0) return { ok: true, frontmatter: decided.frontmatter, leftOut: [], grantsIgnored, manifest: read.bytes, files };

  // A client checks that SKILL.md's frontmatter equals the entry's, so the SKILL.md served is
  // written from the entry's frontmatter and the file's body; one that does not read back the
  // same is not served at all.
  const manifest = await rewrittenManifest(decided.frontmatter, parsed.body, grantsIgnored.length > 0 ? grantsIgnoredNote(grantsIgnored) : null);
  if (manifest === null) return refuse(grantsIgnored.length > 0 ? "its frontmatter does not read back the same without its grants" : "frontmatter metadata must map strings to strings");
  const manifestFile = files.find((file) => file.path === "SKILL.md")!;
  manifestFile.size = manifest.length;
  total += manifest.length - read.bytes.length;
  if (total > SKILL_LIMITS.bytes) return refuse(`its files add up to ${total} bytes, over ${SKILL_LIMITS.bytes}`);
  return { ok: true, frontmatter: decided.frontmatter, leftOut: decided.leftOut, grantsIgnored, manifest, files };
}

/**
 * The note beside a SKILL.md served without its grants, in the file (a YAML comment, which
 * leaves the frontmatter a client compares unchanged) and on the resource (`_meta`).
 */
export function grantsIgnoredNote(ignored: readonly string[]): string {
  return `skillport: this skill is in a writable source that is not trusted; its ${ignored.join(" and its ")} are ignored and left out of this file`;
}

/** What `list` and `doctor` say about a skill and the extension: the plan, without its bytes. */
export interface ExtensionVisibility {
  served: boolean;
  /** Why it is not served; null when it is. */
  reason: string | null;
  /** `metadata.<key>` paths its entry leaves out. */
  leftOut: string[];
}

/**
 * The plan's verdict without its bytes. A skill whose frontmatter loading found ready for the
 * extension (`entryReady`) is decided from its package's files and its SKILL.md's stamp: while
 * SKILL.md is the same regular file, not a link, that loading read, the plan would read those
 * bytes, parse them as loading did and find nothing to refuse or leave out, so reading and
 * parsing every SKILL.md again (half of what `list` paid for this) decides nothing. Any other
 * skill gets the whole plan.
 */
export async function extensionVisibility(skill: RegisteredSkill, sourceRoots: readonly string[] = []): Promise<ExtensionVisibility> {
  if (skill.entryReady) {
    const verdict = verdictBySize(await packageFiles(skill, sourceRoots, "sizes"));
    if (verdict) return verdict;
  }
  const plan = await planSkillEntry(skill, sourceRoots);
  return plan.ok ? { served: true, reason: null, leftOut: plan.leftOut } : { served: false, reason: plan.reason, leftOut: [] };
}

/**
 * `extensionVisibility` without leaving the turn, for a report on thousands of packages: decided
 * the same way from the same sizes when the package can be listed now (`listResourcesNow`);
 * undefined when it cannot, or when only the whole plan decides, for `extensionVisibility`.
 */
export function extensionVisibilityNow(skill: RegisteredSkill, sourceRoots: readonly string[] = []): ExtensionVisibility | undefined {
  if (!skill.entryReady) return undefined;
  const listed = packageSizesNow(skill, sourceRoots);
  return listed && verdictBySize(listed);
}

/** The verdict the package's sizes settle: a refusal, or served while SKILL.md is what loading read; undefined otherwise. */
function verdictBySize(listed: MeasuredPackage): ExtensionVisibility | undefined {
  if (!listed.ok) return { served: false, reason: listed.reason, leftOut: [] };
  return listed.manifestAsLoaded ? { served: true, reason: null, leftOut: [] } : undefined;
}

export async function buildSkillEntry(skill: RegisteredSkill, digests: DigestCache, sourceRoots: readonly string[] = []): Promise<EntryResult> {
  const plan = await planSkillEntry(skill, sourceRoots);
  if (!plan.ok) return plan;
  const resources: SkillResourceEntry[] = [];
  const served = new Map<string, { path: string; size: number; mimeType: string }>();
  const dirs = new Set<string>([""]);
  for (const file of plan.files) {
    const uri = skillUri(skill.name, file.path);
    const hashed = file.path === "SKILL.md" ? { ok: true as const, digest: fileDigest(plan.manifest), size: plan.manifest.length } : await digestOf(skill.dir, file, digests, sourceRoots);
    if (!hashed.ok) return { ok: false, reason: hashed.reason };
    resources.push({ uri, digest: hashed.digest, size: hashed.size });
    served.set(uri, { path: file.path, size: hashed.size, mimeType: mimeTypeFor(file.path) });
    for (let slash = file.path.indexOf("/"); slash !== -1; slash = file.path.indexOf("/", slash + 1)) dirs.add(file.path.slice(0, slash));
  }
  resources.sort((a, b) => compare(a.uri, b.uri));
  const entry: SkillEntry = { uri: skillUri(skill.name, "SKILL.md"), frontmatter: plan.frontmatter, resources };
  return { ok: true, served: { skill, entry, files: served, dirs, sourceRoots, manifest: plan.manifest, leftOut: plan.leftOut, grantsIgnored: plan.grantsIgnored } };
}

/** SKILL.md written from `frontmatter` and `body`, or null when it would not read back as `frontmatter`. */
async function rewrittenManifest(frontmatter: Record<string, unknown>, body: string, note: string | null): Promise<Buffer | null> {
  // Loaded only here: a server whose skills all carry text metadata never pays for it.
  const { stringify } = yamlLibrary();
  const comment = note === null ? "" : `# ${note}\n`;
  const text = `---\n${comment}${stringify(frontmatter, { lineWidth: 0 })}---\n\n${body}\n`;
  const reread = readFrontmatter(text, { allowRetry: false });
  return reread.ok && isDeepStrictEqual(reread.data, frontmatter) ? Buffer.from(text, "utf8") : null;
}

export interface PackageFile {
  path: string;
  size: number;
  /**
   * What the digest cache knows the file's bytes by: size, mtime, ctime and inode, to the
   * nanosecond. Not size and mtime alone: anyone who can write the file can put both back after
   * rewriting it (`touch -d`, `utimes`), and the old digest would then be published for the new
   * bytes. The ctime cannot be set from user space: every write and every `utimes` moves it.
   */
  version: string;
}

/**
 * SKILL.md's size as a read would find it (through a link), and whether it is still the regular
 * file, not a link, with the stamp it was loaded at: one `lstat`, and a `stat` only for a link.
 * Synchronous, as `stampOf` is, for the same reason.
 */
function manifestSize(file: string, skill: RegisteredSkill): { size: number; asLoaded: boolean } | null {
  try {
    const stat = fs.lstatSync(file);
    if (stat.isFile()) return { size: stat.size, asLoaded: stat.size === skill.stamp.size && stat.mtimeMs === skill.stamp.mtimeMs && stat.ctimeMs === skill.stamp.ctimeMs && stat.ino === skill.stamp.ino };
    if (!stat.isSymbolicLink()) return null;
    const stamp = stampOf(file, "sizes");
    return stamp && { size: stamp.size, asLoaded: false };
  } catch {
    return null;
  }
}

/**
 * A regular file's stamp (through a link), or null. By size alone the version is left empty: a
 * verdict needs no more, and a plain `stat` costs less than one in nanoseconds.
 * Synchronous: a stat of a file in a package just listed takes microseconds, and through the
 * promise API each one also took a trip through the thread pool that cost more than the stat
 * (measured: 0.3 s of a 2.6 s `list` of 3,000 skills, for about 5,000 files).
 */
function stampOf(file: string, stamping: Stamping): Pick<PackageFile, "size" | "version"> | null {
  try {
    if (stamping === "sizes") {
      const stat = fs.statSync(file);
      return stat.isFile() ? { size: stat.size, version: "" } : null;
    }
    const stat = fs.statSync(file, { bigint: true });
    if (!stat.isFile()) return null;
    return { size: Number(stat.size), version: `${stat.size}\0${stat.mtimeNs}\0${stat.ctimeNs}\0${stat.ino}` };
  } catch {
    return null;
  }
}

type Hashed = { ok: true; digest: string; size: number } | { ok: false; reason: string };

async function digestOf(dir: string, file: PackageFile, digests: DigestCache, sourceRoots: readonly string[]): Promise<Hashed> {
  const key = `${dir}\0${file.path}\0${file.version}`;
  const known = digests.get(key);
  if (known !== undefined) return { ok: true, digest: known, size: file.size };
  const read = await readConfinedBytes(dir, file.path, { maxBytes: SKILL_LIMITS.bytes + 1, sourceRoots });
  if (!read.ok) return { ok: false, reason: read.message };
  if (read.bytes.length > SKILL_LIMITS.bytes) return { ok: false, reason: `${file.path} is over ${SKILL_LIMITS.bytes} bytes` };
  // The size published is the size of the bytes hashed, read now, not the earlier stat's.
  const digest = fileDigest(read.bytes);
  if (read.bytes.length === file.size) digests.set(key, digest);
  return { ok: true, digest, size: read.bytes.length };
}

function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** Code-unit order: the one order of entries, directory children and cursors. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const MIME_TYPES: Record<string, string> = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  py: "text/x-python",
  sh: "application/x-sh",
  bash: "application/x-sh",
  js: "text/javascript",
  mjs: "text/javascript",
  ts: "text/typescript",
  html: "text/html",
  css: "text/css",
  csv: "text/csv",
  xml: "application/xml",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
};

export function mimeTypeFor(filePath: string): string {
  const name = filePath.slice(filePath.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return "application/octet-stream";
  return MIME_TYPES[name.slice(dot + 1).toLowerCase()] ?? "application/octet-stream";
}
