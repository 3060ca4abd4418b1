/**
 * Skills from a well-known site (SPEC §10.1, the Agent Skills discovery RFC): SOURCE
 * `https://host[/path]` (or loopback `http://`) publishes `/.well-known/agent-skills/index.json`
 * (discovery schema 0.2.0: each entry a `skill-md` file or an `archive`, with the SHA-256 digest
 * of that artifact), or the legacy `/.well-known/skills/index.json` (schema 0.1.0: a list of
 * file paths per skill, fetched one by one, with no digests). The index's `$schema` is checked:
 * one this reader does not know is refused, never guessed at.
 *
 * Each artifact's digest is checked against the bytes fetched before a byte of them is used;
 * archives are unpacked by archive.ts. The skills land in a temporary folder, one folder per
 * index name, and the install path (operations.ts) then treats that folder as it treats a
 * fetched commit: discovery, validation, the package rules, atomic placement. An entry that
 * cannot be fetched, fails its digest or holds what an archive may not is refused by name with
 * the reason; the others still go in. The folder is removed when the work ends, however it ends.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { MAX_DESCRIPTION_LENGTH, MAX_PACKAGE_BYTES, MAX_PACKAGE_FILES, MAX_SKILL_FILE_BYTES } from "../package/limits.js";
import { fileDigest } from "../package/package-digest.js";
import { archiveEntryPath, archiveKindOf, unpackArchive } from "./archive.js";
import { checkFetchableUrl, httpGet } from "./http-get.js";
import { InstallError } from "./install-error.js";

export const DISCOVERY_SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";
/** Where a site's index lives, newest first: the 0.2.0 path, then the legacy one. */
export const WELL_KNOWN_PATHS = [".well-known/agent-skills", ".well-known/skills"] as const;
export const INDEX_FILE = "index.json";

/** Largest index read: thousands of entries fit in far less. */
export const MAX_INDEX_BYTES = 1024 * 1024;
/** Most entries an index may list. */
export const MAX_INDEX_ENTRIES = 1000;
/**
 * Largest artifact fetched: an archive of a package at the package limit, plus room for the tar
 * headers and padding of its files (one 512-byte header and up to 511 bytes of padding each).
 */
export const MAX_ARTIFACT_BYTES = MAX_PACKAGE_BYTES + MAX_PACKAGE_FILES * 1024 + 1024;

/** The names the RFC allows in an index (the Agent Skills name rule, ASCII only: they become URL segments and folder names). */
const SITE_SKILL_NAME = /^(?=.{1,64}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;

export interface SiteEntry {
  name: string;
  description: string;
  /** 0.2.0: `skill-md` or `archive`, with the artifact's absolute URL and digest; 0.1.0: the file paths. */
  artifact: { type: "skill-md" | "archive"; url: string; digest: string } | { type: "files"; baseUrl: string; files: string[] };
}

export interface SiteIndex {
  /** The index read. */
  indexUrl: string;
  schema: "0.2.0" | "0.1.0";
  entries: SiteEntry[];
  /** Entries of the index that cannot be used, by name (or position), with the reason. */
  refused: Array<{ name: string; problems: string[] }>;
}

/** What a site gave, for the install path: the folder of fetched skills and what each came with. */
export interface FetchedSite {
  index: SiteIndex;
  /** Index name → the digest of the artifact that skill was unpacked from (0.2.0 only). */
  artifactDigests: Map<string, string>;
  /** Entries refused while fetching or unpacking, and the index's own refusals. */
  refused: Array<{ name: string; problems: string[] }>;
}

/** The base URL a SOURCE names, checked (no query, no fragment, no credentials), without a trailing `/`. */
export function siteBaseUrl(given: string): string {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new InstallError(`SOURCE ${JSON.stringify(given)} is not a valid URL`, "usage");
  }
  checkFetchableUrl(url, given);
  if (url.username !== "" || url.password !== "") throw new InstallError(`SOURCE ${JSON.stringify(given)}: a site URL may not hold a user or password`, "usage");
  if (url.search !== "" || url.hash !== "") throw new InstallError(`SOURCE ${JSON.stringify(given)}: a site URL may not hold a query or fragment`, "usage");
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`;
}

/**
 * The site's index: the 0.2.0 path first, then the legacy one. Null when neither exists (404 or
 * 410 at both), so an `https://` SOURCE can be tried as a git repository instead.
 */
export async function readSiteIndex(baseUrl: string): Promise<SiteIndex | null> {
  for (const wellKnown of WELL_KNOWN_PATHS) {
    const indexUrl = `${baseUrl}/${wellKnown}/${INDEX_FILE}`;
    const body = await httpGet(indexUrl, MAX_INDEX_BYTES);
    if (body.status === "absent") continue;
    let value: unknown;
    try {
      value = JSON.parse(body.bytes.toString("utf8"));
    } catch (error) {
      throw new InstallError(`${indexUrl} is not JSON (${(error as Error).message})`, "failed");
    }
    // Relative artifact URLs resolve against the index as retrieved (RFC 3986 §5.1.3): after a redirect, where it came from.
    return parseSiteIndex(value, body.url, body.url === indexUrl ? `${baseUrl}/${wellKnown}` : body.url.replace(/\/[^/]*$/, ""));
  }
  return null;
}

/** Reads an index's JSON; `skillsBase` is the folder the legacy format's skills are under. */
export function parseSiteIndex(value: unknown, indexUrl: string, skillsBase: string): SiteIndex {
  if (!isObject(value) || !Array.isArray(value.skills)) throw new InstallError(`${indexUrl} is not a skills index (it needs a "skills" array)`, "failed");
  const schema = value.$schema;
  if (schema !== undefined && schema !== DISCOVERY_SCHEMA) {
    throw new InstallError(`${indexUrl} declares $schema ${JSON.stringify(schema)}; skillport reads discovery schema 0.2.0 (${DISCOVERY_SCHEMA}) and the legacy index without $schema`, "failed");
  }
  if (value.skills.length > MAX_INDEX_ENTRIES) throw new InstallError(`${indexUrl} lists ${value.skills.length} skills; at most ${MAX_INDEX_ENTRIES} are read`, "failed");
  const index: SiteIndex = { indexUrl, schema: schema === undefined ? "0.1.0" : "0.2.0", entries: [], refused: [] };
  const seen = new Set<string>();
  value.skills.forEach((raw: unknown, position: number) => {
    const name = isObject(raw) && typeof raw.name === "string" ? raw.name : `entry ${position + 1}`;
    const problems = schema === undefined ? legacyEntryProblems(raw) : entryProblems(raw);
    if (problems.length === 0 && seen.has(name)) problems.push(`the index lists ${name} more than once; the first entry is used`);
    if (problems.length > 0) {
      index.refused.push({ name, problems: problems.map((p) => `${p} (in ${indexUrl})`) });
      return;
    }
    seen.add(name);
    const entry = raw as Record<string, unknown>;
    const artifact: SiteEntry["artifact"] =
      schema === undefined
        ? { type: "files", baseUrl: `${skillsBase}/${name}`, files: (entry.files as string[]).map((file) => archiveEntryPath(file) as string) }
        : { type: entry.type as "skill-md" | "archive", url: new URL(entry.url as string, indexUrl).toString(), digest: entry.digest as string };
    index.entries.push({ name, description: entry.description as string, artifact });
  });
  return index;
}

function entryProblems(raw: unknown): string[] {
  if (!isObject(raw)) return ["the entry is not an object"];
  const problems = commonProblems(raw);
  if (raw.type !== "skill-md" && raw.type !== "archive") problems.push(`its type ${JSON.stringify(raw.type)} is neither "skill-md" nor "archive"`);
  if (typeof raw.digest !== "string" || !DIGEST.test(raw.digest)) problems.push("its digest is not sha256:<64 lowercase hex>");
  if (typeof raw.url !== "string" || raw.url === "") problems.push("it has no url");
  else {
    try {
      new URL(raw.url, "https://example.invalid/");
    } catch {
      problems.push(`its url ${JSON.stringify(raw.url)} is not a URL`);
    }
  }
  return problems;
}

function legacyEntryProblems(raw: unknown): string[] {
  if (!isObject(raw)) return ["the entry is not an object"];
  const problems = commonProblems(raw);
  if (!Array.isArray(raw.files) || raw.files.length === 0) return [...problems, "it lists no files"];
  if (raw.files.length > MAX_PACKAGE_FILES) problems.push(`it lists more than ${MAX_PACKAGE_FILES} files`);
  for (const file of raw.files) {
    const checked = typeof file === "string" ? archiveEntryPath(file) : { refused: "a file entry is not a string" };
    if (typeof checked !== "string") problems.push(checked.refused.replace(/^entry/, "file"));
    else if (checked === "") problems.push(`file ${JSON.stringify(file)} names no file`);
  }
  if (!raw.files.some((file) => file === "SKILL.md")) problems.push("its files do not include SKILL.md");
  const normalized = raw.files.map((file) => (typeof file === "string" ? archiveEntryPath(file) : null)).filter((file): file is string => typeof file === "string");
  if (new Set(normalized).size !== normalized.length) problems.push("it lists a file twice");
  return problems;
}

function commonProblems(raw: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (typeof raw.name !== "string" || !SITE_SKILL_NAME.test(raw.name)) problems.push(`its name ${JSON.stringify(raw.name)} is not a skill name (1-64 of a-z, 0-9 and single hyphens)`);
  if (typeof raw.description !== "string" || raw.description.trim() === "") problems.push("it has no description");
  else if ([...raw.description].length > MAX_DESCRIPTION_LENGTH) problems.push(`its description is longer than ${MAX_DESCRIPTION_LENGTH} characters`);
  return problems;
}

/** Temporary folders alive in this process, removed on exit if their owner could not. */
const live = new Set<string>();
let exitHookInstalled = false;

/**
 * Fetches every entry of `index` (or those `wanted` names) into a temporary folder, one
 * `<folder>/<name>` each, runs `work` on the folder, and removes it.
 */
export async function withFetchedSite<T>(index: SiteIndex, wanted: ReadonlySet<string> | null, onProgress: ((line: string) => void) | undefined, work: (root: string, site: FetchedSite) => Promise<T>): Promise<T> {
  if (!exitHookInstalled) {
    process.once("exit", () => {
      for (const dir of live) fs.rmSync(dir, { recursive: true, force: true });
    });
    exitHookInstalled = true;
  }
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), "skillport-site-"));
  live.add(temp);
  try {
    const root = path.join(temp, "site");
    fs.mkdirSync(root);
    const site: FetchedSite = { index, artifactDigests: new Map(), refused: [...index.refused] };
    for (const entry of index.entries) {
      if (wanted && !wanted.has(entry.name)) continue;
      const dir = path.join(root, entry.name);
      fs.mkdirSync(dir);
      try {
        onProgress?.(`fetching ${entry.artifact.type === "files" ? entry.artifact.baseUrl : entry.artifact.url}`);
        const note = await fetchEntry(entry, dir);
        if (entry.artifact.type !== "files") site.artifactDigests.set(entry.name, entry.artifact.digest);
        if (note) onProgress?.(note);
      } catch (error) {
        fs.rmSync(dir, { recursive: true, force: true });
        // A file system error here comes from what the site named (two paths for one file, a
        // file where a folder must be): that entry is refused, the others still go in.
        const code = (error as NodeJS.ErrnoException).code;
        if (!(error instanceof InstallError) && !(code === "EEXIST" || code === "ENOTDIR" || code === "EISDIR")) throw error;
        site.refused.push({ name: entry.name, problems: [error instanceof InstallError ? error.message : `its files cannot be written as the site names them (${code})`] });
      }
    }
    return await work(root, site);
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
    live.delete(temp);
  }
}

/** Writes one entry's files into `dir`; returns a note for the person waiting, if any. */
async function fetchEntry(entry: SiteEntry, dir: string): Promise<string | null> {
  const artifact = entry.artifact;
  if (artifact.type === "files") {
    let total = 0;
    for (const file of artifact.files) {
      const url = `${artifact.baseUrl}/${file.split("/").map(encodeURIComponent).join("/")}`;
      if (total >= MAX_PACKAGE_BYTES) throw new InstallError(`${entry.name}: its files pass ${MAX_PACKAGE_BYTES} bytes`, "failed");
      const body = await httpGet(url, Math.min(MAX_PACKAGE_BYTES - total, file === "SKILL.md" ? MAX_SKILL_FILE_BYTES : MAX_PACKAGE_BYTES));
      if (body.status === "absent") throw new InstallError(`${url} is listed in the index but not served (HTTP ${body.code})`, "failed");
      total += body.bytes.length;
      const target = path.join(dir, ...file.split("/"));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, body.bytes, { flag: "wx", mode: 0o644 });
    }
    return `${entry.name}: the legacy index gives no digests, so its files could not be checked against the publisher's`;
  }
  const body = await httpGet(artifact.url, artifact.type === "skill-md" ? MAX_SKILL_FILE_BYTES : MAX_ARTIFACT_BYTES);
  if (body.status === "absent") throw new InstallError(`${artifact.url} is listed in the index but not served (HTTP ${body.code})`, "failed");
  // The digest first: until it matches, these bytes are anyone's, and nothing reads them.
  const actual = fileDigest(body.bytes);
  if (actual !== artifact.digest) throw new InstallError(`${artifact.url} does not match its digest in the index (index ${artifact.digest}, served ${actual}); nothing of it was used`, "failed");
  if (artifact.type === "skill-md") {
    fs.writeFileSync(path.join(dir, "SKILL.md"), body.bytes, { flag: "wx", mode: 0o644 });
    return null;
  }
  const kind = archiveKindOf(body.bytes);
  if (!kind) throw new InstallError(`${artifact.url} is neither a .tar.gz nor a .zip archive`, "failed");
  try {
    await unpackArchive(body.bytes, kind, dir);
  } catch (error) {
    throw new InstallError(`${artifact.url}: ${(error as Error).message}; nothing of it was installed`, "failed");
  }
  return null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
