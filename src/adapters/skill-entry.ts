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
import fs from "node:fs/promises";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { readConfinedBytes } from "../package/confined-read.js";
import { readFrontmatter } from "../package/frontmatter.js";
import { MAX_PACKAGE_BYTES, MAX_PACKAGE_FILES } from "../package/limits.js";
import { fileDigest } from "../package/package-digest.js";
import { listResources } from "../package/resources.js";
import type { RegisteredSkill } from "../registry/types.js";
import { isCanonical, skillUri } from "./skill-uri.js";

/** The interoperability limits of SEP-2640: hosts must accept up to these; servers should not exceed them. */
export const SKILL_LIMITS = { files: MAX_PACKAGE_FILES, bytes: MAX_PACKAGE_BYTES } as const;
const SKILL_NAME_PATTERN = /^[\da-z]+(?:-[\da-z]+)*$/;

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
      /** The SKILL.md bytes the extension serves: the file, or the file with `leftOut` removed from its frontmatter. */
      manifest: Buffer;
      files: PackageFile[];
    }
  | { ok: false; reason: string };

export async function planSkillEntry(skill: RegisteredSkill, sourceRoots: readonly string[] = []): Promise<EntryPlan> {
  const refuse = (reason: string): EntryPlan => ({ ok: false, reason });
  if (path.basename(skill.skillFile) !== "SKILL.md") return refuse("its manifest is named skill.md; the extension serves SKILL.md only");

  // The package as the tool lists it (one rule for what a skill ships), plus SKILL.md itself.
  const listing = await listResources(skill.dir, { sourceRoots });
  if (listing.truncated) return refuse("its package is larger than the resource listing's bounds");
  const relPaths = ["SKILL.md", ...listing.files, ...listing.scripts.map((script) => path.relative(skill.dir, script).split(path.sep).join("/"))];
  // A backstop: the resource listing's own bound (500 entries, marked truncated and refused
  // above) is tighter today, so no package reaches this check. It stays so that raising the
  // listing's bound can never publish more files than the extension allows.
  if (relPaths.length > SKILL_LIMITS.files) return refuse(`it has more than ${SKILL_LIMITS.files} files`);
  const files: PackageFile[] = [];
  for (const rel of relPaths) {
    // A backstop: only `.` and `..` make a non-canonical URI, and no listed file has those names.
    if (!isCanonical(skillUri(skill.name, rel))) return refuse(`the file name ${JSON.stringify(rel)} cannot be written as a URI`);
    const stamp = await stampOf(path.join(skill.dir, ...rel.split("/")));
    if (!stamp) return refuse(`${rel} vanished while it was listed`);
    files.push({ path: rel, ...stamp });
  }
  files.sort((a, b) => compare(a.path, b.path));
  let total = 0;
  for (const file of files) total += file.size;
  if (total > SKILL_LIMITS.bytes) return refuse(`its files add up to ${total} bytes, over ${SKILL_LIMITS.bytes}`);

  const read = await readConfinedBytes(skill.dir, "SKILL.md", { maxBytes: SKILL_LIMITS.bytes, sourceRoots });
  if (!read.ok) return refuse(read.message);
  const text = decodeUtf8(read.bytes);
  if (text === null) return refuse("SKILL.md is not valid UTF-8");
  const parsed = readFrontmatter(text, { allowRetry: false });
  if (!parsed.ok) return refuse(`its frontmatter is not read the same by every YAML parser (${parsed.message})`);
  const decided = entryFrontmatter(parsed.data, skill.name);
  if (!decided.ok) return refuse(decided.problems.join("; "));
  if (decided.leftOut.length === 0) return { ok: true, frontmatter: decided.frontmatter, leftOut: [], manifest: read.bytes, files };

  // A client checks that SKILL.md's frontmatter equals the entry's, so the SKILL.md served is
  // written from the entry's frontmatter and the file's body; one that does not read back the
  // same is not served at all.
  const manifest = await rewrittenManifest(decided.frontmatter, parsed.body);
  if (manifest === null) return refuse("frontmatter metadata must map strings to strings");
  const manifestFile = files.find((file) => file.path === "SKILL.md")!;
  manifestFile.size = manifest.length;
  total += manifest.length - read.bytes.length;
  if (total > SKILL_LIMITS.bytes) return refuse(`its files add up to ${total} bytes, over ${SKILL_LIMITS.bytes}`);
  return { ok: true, frontmatter: decided.frontmatter, leftOut: decided.leftOut, manifest, files };
}

/** What `list` and `doctor` say about a skill and the extension: the plan, without its bytes. */
export interface ExtensionVisibility {
  served: boolean;
  /** Why it is not served; null when it is. */
  reason: string | null;
  /** `metadata.<key>` paths its entry leaves out. */
  leftOut: string[];
}

export async function extensionVisibility(skill: RegisteredSkill, sourceRoots: readonly string[] = []): Promise<ExtensionVisibility> {
  const plan = await planSkillEntry(skill, sourceRoots);
  return plan.ok ? { served: true, reason: null, leftOut: plan.leftOut } : { served: false, reason: plan.reason, leftOut: [] };
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
  return { ok: true, served: { skill, entry, files: served, dirs, sourceRoots, manifest: plan.manifest, leftOut: plan.leftOut } };
}

/**
 * The entry's frontmatter from the frontmatter as parsed, or why there is none. `metadata` whose
 * values are not all text is the one problem fixed rather than refused: skillport's own
 * `metadata.requirements` is a map, and leaving it out of the entry loses the client nothing it
 * could read (the extension's validators accept only text there), while refusing would hide
 * the whole skill. Everything else the validators refuse stays refused: a description cut
 * short or a name changed would be a different skill.
 */
export function entryFrontmatter(frontmatter: Record<string, unknown>, skillName: string): { ok: true; frontmatter: Record<string, unknown>; leftOut: string[] } | { ok: false; problems: string[] } {
  const leftOut: string[] = [];
  let result = frontmatter;
  const metadata = frontmatter.metadata;
  if (metadata !== undefined && !isStringMap(metadata)) {
    result = { ...frontmatter };
    if (typeof metadata === "object" && metadata !== null && !Array.isArray(metadata)) {
      const kept: Record<string, string> = {};
      for (const [key, value] of Object.entries(metadata)) {
        if (typeof value === "string") kept[key] = value;
        else leftOut.push(`metadata.${key}`);
      }
      // Nothing textual left: the key goes too, rather than publish an empty map nobody wrote.
      if (Object.keys(kept).length > 0) result.metadata = kept;
      else delete result.metadata;
    } else {
      leftOut.push("metadata");
      delete result.metadata;
    }
  }
  const problems = frontmatterProblems(result, skillName);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, frontmatter: result, leftOut };
}

/** SKILL.md written from `frontmatter` and `body`, or null when it would not read back as `frontmatter`. */
async function rewrittenManifest(frontmatter: Record<string, unknown>, body: string): Promise<Buffer | null> {
  // Loaded only here: a server whose skills all carry text metadata never pays for it.
  const { stringify } = await import("yaml");
  const text = `---\n${stringify(frontmatter, { lineWidth: 0 })}---\n\n${body}\n`;
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

async function stampOf(file: string): Promise<Pick<PackageFile, "size" | "version"> | null> {
  try {
    const stat = await fs.stat(file, { bigint: true });
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

/**
 * What the official SDK's entry validator (and its client) would refuse, checked on the
 * frontmatter exactly as parsed: a `name: 123` that loading reads as text is a number here.
 */
export function frontmatterProblems(frontmatter: Record<string, unknown>, skillName: string): string[] {
  const problems: string[] = [];
  if (!isJsonValue(frontmatter)) problems.push("its frontmatter holds values JSON cannot carry");
  if (Object.prototype.hasOwnProperty.call(frontmatter, "__proto__")) problems.push('its frontmatter has a "__proto__" key');
  const { name, description, compatibility, metadata } = frontmatter;
  if (typeof name !== "string" || name.length === 0 || name.length > 64 || !SKILL_NAME_PATTERN.test(name)) {
    problems.push(`frontmatter name ${JSON.stringify(name)} must be 1-64 lowercase letters, digits and single hyphens`);
  } else if (name !== skillName) {
    problems.push(`frontmatter name ${JSON.stringify(name)} is not the name it is served under`);
  }
  if (typeof description !== "string" || description === "" || [...description].length > 1024) {
    problems.push("frontmatter description must be a string of 1-1024 characters");
  }
  if (compatibility !== undefined && (typeof compatibility !== "string" || compatibility === "" || [...compatibility].length > 500)) {
    problems.push("frontmatter compatibility must be a string of 1-500 characters");
  }
  if (metadata !== undefined && !isStringMap(metadata)) problems.push("frontmatter metadata must map strings to strings");
  return problems;
}

function isStringMap(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.values(value).every((item) => typeof item === "string");
}

function isJsonValue(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((item) => isJsonValue(item, depth + 1));
  if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    return (proto === Object.prototype || proto === null) && Object.values(value).every((item) => isJsonValue(item, depth + 1));
  }
  return false;
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
