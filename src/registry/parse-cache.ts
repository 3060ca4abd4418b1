/**
 * The parse cache on disk: what loading each SKILL.md gave (the compact record of
 * `skill-wire.ts`, exactly what a parse worker sends back), kept between processes so a fresh
 * `list` or MCP server start re-parses only the files that changed. A fresh process spends most
 * of a load parsing frontmatter (and loading `yaml` for the files the fast tier hands it); with
 * the cache it stats each SKILL.md instead.
 *
 * An entry is used only when the file's size, mtime and ctime (nanoseconds), inode and device
 * all match the stat taken now; otherwise the file is read and parsed as without a cache. The
 * record is what parsing those bytes gives, so a hit serves exactly what a re-parse would.
 *
 * One file per source (named by a hash of the source's path) under the cache directory, so the
 * global folders' file is shared by every project's processes. The file carries the skillport
 * version and a hash of the build's parsing code, the `yaml` version and Node's Unicode version
 * (name rules read Unicode tables): any other build ignores it and writes its own.
 *
 * Trust: the directory must be a real directory owned by this user and writable by nobody else,
 * and the file a regular file (never followed through a link) owned by this user and writable
 * by nobody else; anything else is ignored — never read, never an error — and replaced by the
 * next write (a rename, which replaces a link rather than following it). See docs/SECURITY.md.
 */
import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { packageVersion } from "../package/skillport-version.js";
import type { LoadResult, SkillPackage } from "../package/types.js";
import type { FoundSkill } from "./discover.js";
import { fromWire, toWire, type LoadedSkill, type SkillWire } from "./skill-wire.js";

export interface ParseCacheOptions {
  /** The directory the cache files live in (created 0700 when missing). */
  dir: string;
}

/** `$XDG_CACHE_HOME/skillport`, or `~/.cache/skillport` (the XDG rule: a relative XDG_CACHE_HOME is ignored). */
export function defaultParseCacheDir(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  const xdg = env.XDG_CACHE_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, ".cache"), "skillport");
}

/** Bumped when the file's layout changes. */
const FORMAT = 1;

/**
 * A file changed within this long before it was read is not cached. Timestamps are coarse: Linux
 * stamps a write with the clock of the last timer tick (milliseconds), FAT keeps mtime to 2 s, and
 * network filesystems round as their server does. A second write in the same tick as the one we
 * read, at the same size, leaves every stamp as it was, and a cached record of the first version
 * would then serve for the second. Any write or metadata change sets ctime to the current time,
 * which no caller can set back; so once a file's ctime is older than the coarsest granularity,
 * any later change gives it a ctime that differs from the one cached. A file caught younger is
 * simply parsed again next time, and cached once it has settled.
 */
const SETTLE_NS = 2_000_000_000n;

/** [size, mtimeNs, ctimeNs, ino, dev] as decimal strings (ino and dev can pass 2^53), then the record. */
type Entry = [string, string, string, string, string, SkillWire];

interface CacheFile {
  format: number;
  version: string;
  build: string;
  entries: Record<string, Entry>;
}

const UPPERCASE_NAME = path.sep + "SKILL.md";

/** A skill found through the cache: where, and the frozen record a re-parse would have given. */
export interface CachedLoad {
  found: FoundSkill;
  loaded: LoadedSkill;
}

/** One source's cache file, as read at the start of the first scan and as the walk leaves it. */
export class SourceParseCache {
  /** Entries the walk found still valid or stored anew: what the file holds after the save. */
  private readonly next: Record<string, Entry> = {};
  private hits = 0;
  private stored = 0;
  /** Set once the walk of the source is over: a source walked elsewhere (a worker) keeps its file as it was. */
  walked = false;

  constructor(
    private readonly file: string,
    private readonly build: string,
    /** The trusted file's entries; empty when there was none, or it was not trusted or not ours. */
    private readonly entries: Record<string, Entry>,
    private readonly count: number,
  ) {}

  /** The skill in `dir` from the cache, when its SKILL.md carries every stamp of the entry; else null (read it). */
  take(dir: string): CachedLoad | null {
    const skillFile = dir + UPPERCASE_NAME;
    if (this.count === 0 || !Object.hasOwn(this.entries, skillFile)) return null;
    const entry = this.entries[skillFile]!;
    let stat: fs.BigIntStats | undefined;
    try {
      stat = fs.statSync(skillFile, { bigint: true, throwIfNoEntry: false });
    } catch {
      return null;
    }
    if (stat === undefined || !stat.isFile() || !sameStamps(entry, stat)) return null;
    let loaded: LoadedSkill;
    try {
      loaded = fromWire(entry[5], dir, skillFile);
    } catch {
      return null;
    }
    const skill = loaded.skill;
    if (skill === null) return null;
    this.next[skillFile] = entry;
    this.hits += 1;
    return { found: { dir, skillFile, stamp: skill.stamp }, loaded };
  }

  /**
   * Stores what loading `result` gave, when it is certain to be what those bytes give: the file
   * stat'ed now carries the stamp it was read at, has settled (SETTLE_NS), and the record comes
   * back from JSON unchanged. Only SKILL.md itself: a lowercase `skill.md` loads only while no
   * SKILL.md is beside it, which its own stat cannot tell.
   */
  keep(result: LoadResult): void {
    const skill = result.skill;
    if (skill === null || !skill.skillFile.endsWith(UPPERCASE_NAME)) return;
    let stat: fs.BigIntStats | undefined;
    try {
      stat = fs.statSync(skill.skillFile, { bigint: true, throwIfNoEntry: false });
    } catch {
      return;
    }
    if (stat === undefined || !stat.isFile() || !readAtStamp(skill, stat)) return;
    const settled = BigInt(Date.now()) * 1_000_000n - SETTLE_NS;
    if (stat.ctimeNs > settled || stat.mtimeNs > settled) return;
    const wire = toWire(result);
    if (!sameAfterJson(wire)) return;
    this.next[skill.skillFile] = [String(stat.size), String(stat.mtimeNs), String(stat.ctimeNs), String(stat.ino), String(stat.dev), wire];
    this.stored += 1;
  }

  /** Writes the file when the walk changed what it should hold (an entry added or gone). */
  save(): void {
    if (!this.walked) return;
    if (this.stored === 0 && this.hits === this.count) return;
    const text = JSON.stringify({ format: FORMAT, version: packageVersion(), build: this.build, entries: this.next } satisfies CacheFile);
    writeAtomically(this.file, text);
  }
}

function sameStamps(entry: Entry, stat: fs.BigIntStats): boolean {
  return (
    entry[1] === String(stat.mtimeNs) &&
    entry[2] === String(stat.ctimeNs) &&
    entry[0] === String(stat.size) &&
    entry[3] === String(stat.ino) &&
    entry[4] === String(stat.dev)
  );
}

/** Whether the stat shows the stamp the load read the file at (nothing changed between). */
function readAtStamp(skill: SkillPackage, stat: fs.BigIntStats): boolean {
  return (
    Number(stat.size) === skill.stamp.size &&
    Number(stat.ino) === skill.stamp.ino &&
    stat.mtimeNs >= 0n &&
    msOf(stat.mtimeNs) === skill.stamp.mtimeMs &&
    stat.ctimeNs >= 0n &&
    msOf(stat.ctimeNs) === skill.stamp.ctimeMs
  );
}

/** A nanosecond time as Node's plain `Stats` gives it in milliseconds (seconds * 1000 + nanoseconds / 1e6, in doubles). */
function msOf(ns: bigint): number {
  return Number(ns / 1_000_000_000n) * 1000 + Number(ns % 1_000_000_000n) / 1e6;
}

/**
 * Whether JSON gives `value` back as it is. Author-shaped values (metadata, extra keys) may hold
 * what JSON changes — `.nan`, `.inf` and `-0` in YAML are numbers JSON cannot write — and such a
 * record is not cached: the cache may never serve anything a parse would not.
 */
function sameAfterJson(value: unknown): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0);
    case "object": {
      if (value === null) return true;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!(i in value) || !sameAfterJson(value[i])) return false;
        return true;
      }
      if (Object.getPrototypeOf(value) !== Object.prototype) return false;
      for (const key of Object.keys(value)) if (!sameAfterJson((value as Record<string, unknown>)[key])) return false;
      return true;
    }
    default:
      return false;
  }
}

/**
 * How old a temporary file of a cache write must be to count as abandoned: a write takes
 * milliseconds, so one this old belongs to a process killed between its write and its rename.
 */
export const ABANDONED_TEMPORARY_MS = 10 * 60 * 1000;

/** Cache files kept in the directory, one per source path; past this the least recently written go. */
export const MAX_CACHE_FILES = 256;

const CACHE_FILE_NAME = /^[0-9a-f]{32}\.json$/;
const TEMPORARY_NAME = /^\.[0-9a-f]{32}\.json\..*\.tmp$/;

/**
 * Keeps the cache directory bounded, on each write (of `file`, which counts as the newest).
 * There is one file per source path, and sources come and go (a checkout removed, a temporary
 * folder listed once): without a bound the directory only grew. So past MAX_CACHE_FILES the least
 * recently written files are removed (a source still in use is parsed once more and written
 * again). And the temporary files of writes never renamed go once abandoned: every process
 * killed mid-write (a closed terminal, an agent's server stopped) would otherwise leave a copy of
 * a cache file behind for good. Only names this module writes, only in the cache's own
 * directory; `unlink` removes a link, never what it leads to.
 */
function sweepCacheDirectory(file: string): void {
  const dir = path.dirname(file);
  const writing = path.basename(file);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  const cutoff = Date.now() - ABANDONED_TEMPORARY_MS;
  const files: Array<{ name: string; mtimeMs: number }> = [];
  for (const name of names) {
    const temporary = TEMPORARY_NAME.test(name);
    if (name === writing || (!temporary && !CACHE_FILE_NAME.test(name))) continue;
    try {
      const stat = fs.lstatSync(path.join(dir, name));
      if (temporary) {
        if (stat.mtimeMs < cutoff) fs.unlinkSync(path.join(dir, name));
      } else files.push({ name, mtimeMs: stat.mtimeMs });
    } catch {
      // Gone meanwhile, or not ours to remove: left as it is.
    }
  }
  const others = MAX_CACHE_FILES - 1;
  if (files.length <= others) return;
  files.sort((a, b) => a.mtimeMs - b.mtimeMs);
  for (const { name } of files.slice(0, files.length - others)) {
    try {
      fs.unlinkSync(path.join(dir, name));
    } catch {
      // Gone meanwhile.
    }
  }
}

/** Temporary file in the same directory, then a rename: a reader sees the old file or the new one, whole. */
function writeAtomically(file: string, text: string): void {
  // First, so that a full disk gets the room back.
  sweepCacheDirectory(file);
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const fd = fs.openSync(temporary, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
    try {
      fs.writeFileSync(fd, text);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, file);
  } catch {
    // A cache that cannot be written (disk full, read-only home) only means parsing next time.
    try {
      fs.unlinkSync(temporary);
    } catch {
      // never created, or already renamed
    }
  }
}

/**
 * The parse caches of one registry: each source's file is read when the first scan walks it,
 * and every file that changed is written once that scan is done. Later scans (watching, refresh)
 * hold the registry's own in-memory records and do not use it.
 */
export class ParseCaches {
  private readonly sources = new Map<string, SourceParseCache>();
  private state: "unopened" | "open" | "off" | "done" = "unopened";
  private build = "";
  private saving: Promise<void> | null = null;

  constructor(private readonly options: ParseCacheOptions) {}

  /** The cache for the source at `sourcePath`, during the first scan; undefined after it, or when the directory is not trusted. */
  forSource(sourcePath: string): SourceParseCache | undefined {
    if (this.state === "unopened") this.state = trustedDirectory(this.options.dir) ? "open" : "off";
    if (this.state !== "open") return undefined;
    let cache = this.sources.get(sourcePath);
    if (cache === undefined) {
      this.build ||= buildKey();
      const file = path.join(this.options.dir, `${createHash("sha256").update(path.resolve(sourcePath)).digest("hex").slice(0, 32)}.json`);
      const entries = readTrusted(file, this.build);
      cache = new SourceParseCache(file, this.build, entries ?? {}, entries === null ? 0 : Object.keys(entries).length);
      this.sources.set(sourcePath, cache);
    }
    return cache;
  }

  /**
   * Ends the first scan: writes the changed files on a later turn, once the scan's caller has its
   * snapshot (a `list` prints first). Called after every scan; only the first one writes.
   */
  finishScan(): void {
    if (this.state === "done") return;
    const open = this.state === "open";
    this.state = "done";
    if (!open || this.sources.size === 0) return;
    this.saving = new Promise((resolve) => {
      setImmediate(() => {
        for (const cache of this.sources.values()) cache.save();
        this.sources.clear();
        resolve();
      });
    });
  }

  /** Resolves once the files are written. */
  async settled(): Promise<void> {
    await this.saving;
  }
}

/**
 * Creates the directory (0700) if it is missing; true when it is one this user alone can write.
 * Missing folders are made only inside a folder this user owns, or a shared one with the sticky
 * bit (`/tmp`), where nobody else can take them over. Root run with another user's HOME (`sudo
 * -E`) once made that user's `~/.cache` root's, and locked every program of theirs out of it;
 * such a run now has no cache. Nor is a missing home folder ever made for the cache.
 */
function trustedDirectory(dir: string): boolean {
  try {
    const missing: string[] = [];
    let existing = dir;
    while (!fs.existsSync(existing)) {
      missing.push(existing);
      const parent = path.dirname(existing);
      if (parent === existing) return false;
      existing = parent;
    }
    if (missing.length > 0) {
      // A HOME that does not exist is not ours to create (a service account whose HOME names no folder,
      // a container): `list` would leave a home folder behind holding only a cache.
      if (missing.includes(path.resolve(os.homedir()))) return false;
      if (!mayCreateIn(fs.statSync(existing))) return false;
      for (const folder of missing.reverse()) fs.mkdirSync(folder, { mode: 0o700 });
    }
    return ownedAndPrivate(fs.lstatSync(dir), "directory");
  } catch {
    return false;
  }
}

/** The sticky bit: in such a folder only an entry's owner may rename or remove it. */
const STICKY = 0o1000;

function mayCreateIn(parent: fs.Stats): boolean {
  if (typeof process.getuid !== "function") return true;
  return parent.uid === process.getuid() || (parent.mode & STICKY) !== 0;
}

function ownedAndPrivate(stat: fs.Stats, kind: "directory" | "file"): boolean {
  if (kind === "directory" ? !stat.isDirectory() : !stat.isFile()) return false;
  // Written by someone else, it could say anything about files they cannot change themselves.
  if (typeof process.getuid === "function" && stat.uid !== process.getuid()) return false;
  return (stat.mode & 0o022) === 0;
}

/** The file's entries when it is trusted and of this build; null otherwise (it is then rewritten whole). */
function readTrusted(file: string, build: string): Record<string, Entry> | null {
  let fd: number;
  try {
    // O_NOFOLLOW: a link planted in place of the file is never read through.
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    if (!ownedAndPrivate(fs.fstatSync(fd), "file")) return null;
    const parsed = JSON.parse(fs.readFileSync(fd, "utf8")) as Partial<CacheFile> | null;
    if (typeof parsed !== "object" || parsed === null) return null;
    if (parsed.format !== FORMAT || parsed.version !== packageVersion() || parsed.build !== build) return null;
    const entries = parsed.entries;
    if (typeof entries !== "object" || entries === null || Array.isArray(entries)) return null;
    for (const key of Object.keys(entries)) if (!wellFormed(entries[key])) delete entries[key];
    return entries;
  } catch {
    // Truncated, corrupt, unreadable: the same as no file.
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** The shape this module writes; an entry of any other shape is dropped, not trusted. */
function wellFormed(entry: unknown): entry is Entry {
  if (!Array.isArray(entry) || entry.length !== 6) return false;
  for (let i = 0; i < 5; i++) if (typeof entry[i] !== "string") return false;
  const wire = entry[5] as Record<string, unknown> | null;
  return (
    typeof wire === "object" &&
    wire !== null &&
    typeof wire.name === "string" &&
    typeof wire.description === "string" &&
    typeof wire.size === "number" &&
    typeof wire.mtimeMs === "number" &&
    typeof wire.ctimeMs === "number" &&
    typeof wire.ino === "number" &&
    (wire.diagnostics === undefined || (Array.isArray(wire.diagnostics) && wire.diagnostics.every(isDiagnosticShape))) &&
    (wire.manifest === undefined || (typeof wire.manifest === "object" && wire.manifest !== null)) &&
    (wire.findings === undefined || (Array.isArray(wire.findings) && wire.findings.every(isFindingShape))) &&
    !("failed" in wire)
  );
}

function isDiagnosticShape(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const d = value as Record<string, unknown>;
  return typeof d.path === "string" && typeof d.severity === "string" && typeof d.code === "string" && typeof d.message === "string";
}

function isFindingShape(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const f = value as Record<string, unknown>;
  return (
    typeof f.rule === "string" &&
    (f.severity === "block" || f.severity === "warn") &&
    typeof f.file === "string" &&
    typeof f.line === "number" &&
    typeof f.message === "string"
  );
}

/**
 * What a cached record depends on besides the file's bytes: the code that parses (the package
 * layer and the record's own form, hashed as this build holds them), the `yaml` package that
 * parses what the fast tier hands on, and Node's Unicode tables (the name rules use them).
 */
function buildKey(): string {
  const here = fileURLToPath(import.meta.url);
  // The bundled command carries the hash of the modules it was built from (scripts/build-cli.mjs),
  // which are not beside it; run from those modules or from source, they are hashed where they are.
  const code = typeof SKILLPORT_PARSE_CODE_HASH === "string" ? SKILLPORT_PARSE_CODE_HASH : parseCodeHash(path.dirname(here), path.extname(here));
  return createHash("sha256")
    .update(`code ${code}\0yaml ${yamlVersion()}\0unicode ${process.versions.unicode ?? ""}\0node ${process.versions.node}`)
    .digest("hex");
}

/** Set by the bundler for the bundled command: `parseCodeHash` of the modules it bundled. */
declare const SKILLPORT_PARSE_CODE_HASH: string | undefined;

/**
 * A hash of the code a cached record depends on: every module of the package layer, of the
 * audit (a record carries the findings of SKILL.md, judged as it loaded) and the record's own
 * form, by name below the registry's folder and by content. `registryDir` is the
 * folder holding this module, `extension` its modules' (`.ts` run from source, `.js` built).
 */
export function parseCodeHash(registryDir: string, extension: string): string {
  const hash = createHash("sha256");
  const files = [
    ...codeFiles(path.join(registryDir, "..", "package"), extension),
    ...codeFiles(path.join(registryDir, "..", "audit"), extension),
    ...["skill-wire", "skill-audit", "walk-job", "parse-cache"].map((name) => path.join(registryDir, name + extension)),
  ];
  for (const file of files) {
    hash.update(file.slice(registryDir.length - "registry".length));
    hash.update("\0");
    try {
      hash.update(fs.readFileSync(file));
    } catch {
      hash.update("missing");
    }
    hash.update("\0");
  }
  return hash.digest("hex");
}

function codeFiles(dir: string, extension: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...codeFiles(file, extension));
    else if (entry.name.endsWith(extension) && !entry.name.endsWith(".d" + extension)) out.push(file);
  }
  return out;
}

function yamlVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(fileURLToPath(import.meta.resolve("yaml/package.json")), "utf8")) as { version?: string }).version ?? "";
  } catch {
    return "";
  }
}
