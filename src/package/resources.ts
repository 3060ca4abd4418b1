/**
 * Lists a skill's resource files (SPEC §1): every regular file of its package other than
 * SKILL.md, whatever folder the author keeps it in (`references/`, `reference/`, `themes/`,
 * `forms.md` at the root). Scripts are absolute (the model runs them directly); every other file
 * is skill-relative (the model reads it through the tool).
 *
 * Bounded four ways, because the directory is the author's and may be anything: files at most
 * five directories below the skill, 500 files listed, 500 directories read and 5,000 directory
 * entries read in all. A `references/` holding 100,000 directories then costs a bounded walk,
 * and the listing says it was cut. The walk is asynchronous past its first few small directories
 * (see `SYNC_READ_DIRECTORIES`): every larger or later directory is read in batches off the event
 * loop, so no session waits while another's activation lists a large package.
 * A listing is kept while no directory it read has changed (see `cachedOrWalked`), so a
 * package activated again, by any session, costs a `stat` per directory; a file added shows at
 * the next listing. Concurrent listings of one directory share one walk.
 *
 * Left out: what the package leaves out (package-shape.ts), the files of a nested skill (a
 * subdirectory with its own SKILL.md, outside `scripts/`, `references/`, `assets/`, which is how
 * discovery finds nested skills) and of another source's root inside the package, a symlinked
 * file leading into either (`endsPackage` decides, for reads too), symlinked directories (a listing must not loop), a symlink
 * whose target lies outside the skill's real directory (the listing must not offer a file that a
 * confined read refuses), a name holding a backslash (a read takes it for a separator, so it
 * could never be read), and a name with a line break or a hidden character (the listing reaches
 * the model one file a line, and such a name could forge entries there).
 */
import * as fs from "node:fs";
import type { BigIntStats, Dirent } from "node:fs";
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { isInside } from "./confined-read.js";
import { hasUnshowableCharacter } from "./display-text.js";
import { peekDiscoveredListing, takeDiscoveredListing } from "./discovered-listings.js";
import { pathInPackage } from "./package-path.js";
import { endsPackage, isLeftOutOfPackage, isSkillFileEntry, liesInOtherPackage, NOT_UTF8_MARK, SCRIPTS_DIR, SKILL_FILE_NAMES, sourceRootsInside } from "./package-shape.js";

/** Directories below the skill directory a listed file may lie in: `1/2/3/4/5/file` is listed. */
export const MAX_RESOURCE_DEPTH = 5;
/** Files listed. */
export const MAX_RESOURCE_ENTRIES = 500;
/** Directories read, the skill directory included. */
export const MAX_RESOURCE_DIRECTORIES = 500;
/** Directory entries read, over all directories: one directory of 100,000 entries costs this many. */
export const MAX_RESOURCE_ENTRIES_READ = 5_000;

/** Entries fetched per read of a directory: each batch is one trip off the event loop. */
const READ_BATCH = 128;

/**
 * Directories of one walk read synchronously, each only when it holds at most one batch: a few
 * system calls of a few microseconds each, where every trip through the thread pool costs tens
 * and waits its turn on the loop. Real packages have one to three directories of a handful of
 * entries, so a first activation lists them without leaving the turn (that trip was about half
 * of an activation call); a larger directory, and every directory past these, is read off the
 * event loop as before, so a wide package still never holds it.
 */
const SYNC_READ_DIRECTORIES = 16;

/** `readNow`'s answer for a directory the asynchronous read must take. */
const LATER = Symbol("later");

export interface ResourceListing {
  /** Files under `scripts/`, as absolute paths. */
  readonly scripts: readonly string[];
  /** Every other listed file, relative to the skill directory, separated by `/`. */
  readonly files: readonly string[];
  /** True when a bound cut the listing short: the package holds more than is listed. */
  readonly truncated: boolean;
}

/** Packages whose last listing is kept (by directory and source roots); past this the least recently listed is dropped. */
const CACHED_PACKAGES = 256;
/** How long a directory must have been unchanged before a listing of it is kept (see `directoryStamp`). */
const SETTLED_MS = 2_000;

interface CachedListing {
  listing: ResourceListing;
  /** Every directory the walk read, with its stamp when read: the listing holds while none changed. */
  directories: Array<{ path: string; stamp: string }>;
}

const cache = new Map<string, CachedListing>();
const inFlight = new Map<string, Promise<ResourceListing>>();

export interface ResourceListingOptions {
  /**
   * The real root directories of every source: one inside the skill's directory is another
   * package, and nothing in it is listed (see `endsPackage`). Default none.
   */
  sourceRoots?: readonly string[];
}

/** Never throws: what cannot be read is simply not listed. */
export function listResources(dir: string, options: ResourceListingOptions = {}): Promise<ResourceListing> {
  const sourceRoots = options.sourceRoots ?? [];
  // The roots decide what is listed, so a listing is kept per directory and roots (nearly always none).
  const key = sourceRoots.length === 0 ? dir : `${dir}\0${sourceRoots.join("\0")}`;
  let walk = inFlight.get(key);
  if (!walk) {
    walk = cachedOrWalked(key, dir, sourceRoots).finally(() => inFlight.delete(key));
    inFlight.set(key, walk);
  }
  return walk;
}

/**
 * The same listing as `listResources`, made without leaving the turn, for a command that reports
 * on every package right after discovering it (`list`, `doctor`: thousands of packages, where a
 * promise and a trip through the listing cache for each cost several times the few system calls
 * a real package takes). Only from discovery's kept listing of the folder (`discovered-listings.ts`)
 * and only for a package of small folders and no links; undefined otherwise, and then
 * `listResources` lists it as always.
 */
export function listResourcesNow(dir: string, options: ResourceListingOptions = {}): ResourceListing | undefined {
  return new PackageWalk(dir, options.sourceRoots ?? []).runNow()?.listing;
}

/**
 * A listing depends only on the entries of the directories it read, and adding, removing or
 * renaming an entry changes its directory's mtime. So a listing is reused while every directory
 * it read keeps its stamp: one `stat` per directory, all at once, where a walk opens and reads
 * each in turn (a package of 500 directories costs 500 parallel `stat`s instead of a walk).
 */
async function cachedOrWalked(key: string, dir: string, sourceRoots: readonly string[]): Promise<ResourceListing> {
  const cached = cache.get(key);
  if (cached && (await unchanged(cached.directories))) {
    cache.delete(key);
    cache.set(key, cached);
    return cached.listing;
  }
  const walked = await new PackageWalk(dir, sourceRoots).run();
  cache.delete(key);
  if (walked.directories.length > 0) {
    cache.set(key, walked);
    if (cache.size > CACHED_PACKAGES) cache.delete(cache.keys().next().value!);
  }
  return walked.listing;
}

/**
 * Packages of up to this many directories (nearly all: real skills have one to three) are
 * checked with synchronous `stat`s, a few microseconds each where one through fs/promises costs
 * tens; larger ones in parallel off the event loop, so a package of 500 directories never holds
 * it for long.
 */
const SYNC_CHECK_DIRECTORIES = 16;

async function unchanged(directories: CachedListing["directories"]): Promise<boolean> {
  if (directories.length <= SYNC_CHECK_DIRECTORIES) return directories.every((d) => directoryStampSync(d.path) === d.stamp);
  const stamps = await Promise.all(directories.map((d) => directoryStamp(d.path)));
  return stamps.every((stamp, i) => stamp !== null && stamp === directories[i]!.stamp);
}

/**
 * A directory's identity and change times, or null when it cannot be stat'ed, or when it changed
 * too recently to vouch for a listing: file systems stamp times coarsely (a clock tick of a few
 * milliseconds, whole seconds on some), so a change in the same tick as an earlier listing would
 * leave the stamp as it was. A listing is kept only once its directories have been still for
 * longer than that.
 */
async function directoryStamp(dir: string): Promise<string | null> {
  try {
    return settledStamp(await fsp.stat(dir, { bigint: true }));
  } catch {
    return null;
  }
}

function directoryStampSync(dir: string): string | null {
  const stat = directoryStatSync(dir, true);
  return stat === null ? null : settledStamp(stat as BigIntStats);
}

/** A directory's `stat`, with nanosecond times when it is to be stamped; null when it cannot be stat'ed. */
function directoryStatSync(dir: string, stamping: boolean): fs.Stats | BigIntStats | null {
  try {
    return stamping ? fs.statSync(dir, { bigint: true }) : fs.statSync(dir);
  } catch {
    return null;
  }
}

function settledStamp(s: BigIntStats): string | null {
  const changedMs = Number((s.mtimeNs > s.ctimeNs ? s.mtimeNs : s.ctimeNs) / 1_000_000n);
  if (changedMs > Date.now() - SETTLED_MS) return null;
  return `${s.dev}:${s.ino}:${s.mtimeNs}:${s.ctimeNs}`;
}

/** Whether there is anything to tell the model: files, or a listing cut before any file was reached. */
export function hasResources(listing: ResourceListing): boolean {
  return listing.scripts.length + listing.files.length > 0 || listing.truncated;
}

class PackageWalk {
  private readonly scripts: string[] = [];
  private readonly files: string[] = [];
  private truncated = false;
  /** Set once a file past the entry bound is seen: nothing more can be listed. */
  private full = false;
  private directoriesLeft = MAX_RESOURCE_DIRECTORIES;
  private entriesLeft = MAX_RESOURCE_ENTRIES_READ;
  private realDir = "";
  private readonly directories: CachedListing["directories"] = [];
  /** False once a directory could not be read whole: such a listing is not kept. */
  private keepable = true;
  private syncReadsLeft = SYNC_READ_DIRECTORIES;
  /**
   * False for a walk started from discovery's listing: its top directory has no stamp, so the
   * listing can never be kept, and stamping the others would only cost a bigint `stat` each.
   */
  private stamping = true;

  /** True for a walk started from discovery's listing, whose directory is a real path: see `pathOf`. */
  private realStart = false;

  /** The source roots below the skill's real directory, set once that is known. */
  private sourceRoots: readonly string[] = [];

  constructor(
    private readonly dir: string,
    private readonly allSourceRoots: readonly string[],
  ) {}

  /**
   * The walk done without leaving the turn, or undefined when it cannot be: only from discovery's
   * kept listing of the skill folder, and only while every folder below is small enough to read
   * in one call and holds no link (a link's target is resolved off the loop). Nothing is taken
   * until it finishes, so the asynchronous walk that follows a refusal starts as if this had
   * never run, and both make every decision in the same methods.
   */
  runNow(): CachedListing | undefined {
    const discovered = peekDiscoveredListing(this.dir);
    if (discovered === undefined || discovered.length > READ_BATCH) return undefined;
    this.stamping = false;
    this.realStart = true;
    this.realDir = this.dir;
    this.sourceRoots = sourceRootsInside(this.realDir, this.allSourceRoots);
    if (!this.visitNow("", 0, this.readDiscovered(discovered))) return undefined;
    takeDiscoveredListing(this.dir);
    return { listing: this.finished(), directories: [] };
  }

  async run(): Promise<CachedListing> {
    try {
      // The skill folder as discovery listed it moments ago in this run, when it kept it (a real
      // path then: discovery walks real directories). Not kept: it is never cached without a stamp.
      const discovered = takeDiscoveredListing(this.dir);
      const seeded = discovered !== undefined && discovered.length <= READ_BATCH;
      if (seeded) this.stamping = false;
      // The same native call fs/promises makes, without the trip through the thread pool.
      this.realDir = seeded ? this.dir : fs.realpathSync.native(this.dir);
      this.sourceRoots = sourceRootsInside(this.realDir, this.allSourceRoots);
      const top = seeded ? this.readDiscovered(discovered) : await this.read("");
      if (top) await this.visit("", 0, top);
    } catch {
      // The directory vanished or cannot be resolved: nothing to list.
      this.keepable = false;
    }
    return { listing: this.finished(), directories: this.keepable ? this.directories : [] };
  }

  /**
   * `path.join(base, rel)`: by concatenation when the walk started from discovery's listing (its
   * directory, the real one too, is a real path, already normalized), the same string without
   * normalizing it again (`pathInPackage`); through `path.join` for a directory a caller named.
   */
  private pathOf(rel: string, base = this.dir): string {
    return this.realStart && rel !== "" ? pathInPackage(base, rel) : path.join(base, rel);
  }

  private finished(): ResourceListing {
    return Object.freeze({ scripts: Object.freeze(this.scripts), files: Object.freeze(this.files), truncated: this.truncated });
  }

  /** The entries of one directory, sorted by name; null when it cannot be read or the bound is spent. */
  private async read(rel: string): Promise<Dirent[] | null> {
    const now = this.readNow(rel);
    if (now !== LATER) return now;
    const dirPath = this.pathOf(rel);
    const entries: Dirent[] = [];
    // Stamped before its entries are read, so a change made while they are read shows as a new stamp.
    const stamped = this.stamping ? directoryStamp(dirPath) : null;
    try {
      const handle = await fsp.opendir(dirPath, { bufferSize: READ_BATCH });
      // Breaking out of the loop closes the handle.
      for await (const entry of handle) {
        if (this.entriesLeft === 0) {
          this.truncated = true;
          break;
        }
        this.entriesLeft--;
        entries.push(entry);
      }
    } catch {
      this.keepable = false;
      if (entries.length === 0) return null;
      // A directory that fails part-way lists what was read.
    }
    const stamp = await stamped;
    if (stamp === null) this.keepable = false;
    else this.directories.push({ path: dirPath, stamp });
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * The part of `read` done without leaving the turn: the entries of a small directory while the
   * walk has synchronous reads left, null when the bound is spent, or LATER for the asynchronous
   * read to take the directory from the start (larger than a batch, or unreadable: it reports).
   */
  private readNow(rel: string): Dirent[] | null | typeof LATER {
    if (this.directoriesLeft === 0) {
      this.truncated = true;
      return null;
    }
    this.directoriesLeft--;
    if (this.syncReadsLeft === 0) return LATER;
    this.syncReadsLeft--;
    const dirPath = this.pathOf(rel);
    // Stamped before its entries are read, so a change made while they are read shows as a new stamp.
    const stat = directoryStatSync(dirPath, this.stamping);
    const stamp = stat !== null && typeof stat.size === "bigint" ? settledStamp(stat as BigIntStats) : null;
    const small = smallListingSync(dirPath, stat === null ? null : Number(stat.size));
    return small ? this.took(small, dirPath, stamp) : LATER;
  }

  /**
   * The skill folder's entries as discovery read them, taken as a read of it that cannot be kept
   * (no stamp was taken before they were read). At most one batch, so the same entries a read
   * now would take whole (`smallListingSync`), and the same listing.
   */
  private readDiscovered(entries: readonly Dirent[]): Dirent[] {
    this.directoriesLeft--;
    this.syncReadsLeft--;
    return this.took(entries, this.dir, null);
  }

  /** A directory read whole in one go, counted against the bounds as the asynchronous read counts it. */
  private took(listed: readonly Dirent[], dirPath: string, stamp: string | null): Dirent[] {
    const entries: Dirent[] = [];
    for (const entry of listed) {
      if (this.entriesLeft === 0) {
        this.truncated = true;
        break;
      }
      this.entriesLeft--;
      entries.push(entry);
    }
    if (stamp === null) this.keepable = false;
    else this.directories.push({ path: dirPath, stamp });
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  private async visit(rel: string, depth: number, entries: Dirent[]): Promise<void> {
    for (const entry of entries) {
      if (this.full) return;
      const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
      const step = this.stepInto(childRel, depth, entry);
      if (step === null) continue;
      if (step === "link") {
        if (await this.isConfinedFile(childRel)) this.add(childRel);
        continue;
      }
      const children = await this.read(childRel);
      if (!children || this.endsPackage(childRel, children)) continue;
      await this.visit(childRel, depth + 1, children);
    }
  }

  /** `visit` without leaving the turn; false as soon as an entry needs the asynchronous walk. */
  private visitNow(rel: string, depth: number, entries: Dirent[]): boolean {
    for (const entry of entries) {
      if (this.full) return true;
      const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
      const step = this.stepInto(childRel, depth, entry);
      if (step === null) continue;
      if (step === "link") return false;
      const children = this.readNow(childRel);
      if (children === LATER) return false;
      if (!children || this.endsPackage(childRel, children)) continue;
      if (!this.visitNow(childRel, depth + 1, children)) return false;
    }
    return true;
  }

  /**
   * What the walk makes of one entry, `childRel`, of a folder `depth` levels down, for both
   * walks: a file is listed here; a link (whose target is checked where a read would take it;
   * symlinked directories are never descended) or a folder within the depth bound is left to the
   * caller; anything else is passed over (null), a folder too deep marking the listing cut.
   */
  private stepInto(childRel: string, depth: number, entry: Dirent): "link" | "folder" | null {
    const name = entry.name;
    if (isLeftOutOfPackage(name) || name.includes("\\") || hasUnshowableCharacter(name)) return null;
    if (depth === 0 && SKILL_FILE_NAMES.includes(name)) return null;
    if (name.includes(NOT_UTF8_MARK) && !this.namesItself(childRel)) return null;
    if (entry.isSymbolicLink()) return "link";
    if (entry.isFile()) {
      this.add(childRel);
      return null;
    }
    if (!entry.isDirectory()) return null;
    if (depth + 1 > MAX_RESOURCE_DEPTH) {
      this.truncated = true;
      return null;
    }
    return "folder";
  }

  /**
   * Whether a listed name holding NOT_UTF8_MARK finds its entry: one that does not is not UTF-8
   * on disk, nothing can be read or served by it, and it is left out, as a name that cannot be
   * shown is. A name that really holds U+FFFD finds its entry and is listed.
   */
  private namesItself(rel: string): boolean {
    try {
      return fs.lstatSync(this.pathOf(rel), { throwIfNoEntry: false }) !== undefined;
    } catch {
      return false;
    }
  }

  private add(rel: string): void {
    if (this.scripts.length + this.files.length === MAX_RESOURCE_ENTRIES) {
      this.truncated = true;
      this.full = true;
      return;
    }
    if (rel.startsWith(`${SCRIPTS_DIR}/`)) this.scripts.push(this.pathOf(rel));
    else this.files.push(rel);
  }

  /** A nested skill or another source's root: its files are not this package's. */
  private endsPackage(rel: string, entries: Dirent[]): boolean {
    const top = rel.split("/", 1)[0]!;
    return endsPackage(this.pathOf(rel, this.realDir), top, this.sourceRoots, () => entries.some(isSkillFileEntry));
  }

  private async isConfinedFile(rel: string): Promise<boolean> {
    try {
      const real = await fsp.realpath(path.join(this.dir, rel));
      if (!isInside(this.realDir, real)) return false;
      const segments = path.relative(this.realDir, real).split(path.sep);
      if (segments.some(isLeftOutOfPackage)) return false;
      // A link into a nested skill or another source: a read refuses it, so it is not offered.
      if (liesInOtherPackage(this.realDir, segments, this.sourceRoots)) return false;
      return (await fsp.stat(real)).isFile();
    } catch {
      return false;
    }
  }
}

/**
 * A directory whose `stat` size is at most this is read whole in one call. Every common file
 * system reports a directory's size growing with its entries (ext4 and xfs by block, tmpfs 20
 * bytes an entry, btrfs twice the names' length, zfs one an entry), so this many bytes hold a few
 * hundred entries at most; a larger one is read through a bounded handle. A file system that
 * reports a huge directory as small costs one unbounded read here, as discovery's own listing of
 * every folder it walks already does; what is listed stays bounded either way.
 */
const SMALL_DIRECTORY_BYTES = 4096;

/**
 * Every entry of `dir` when it holds at most one batch, read synchronously; null when it holds
 * more or cannot be read, for the asynchronous read to take from the start (reporting errors as
 * it always has). A directory its size says is small is read in one call (a handle cost three
 * times as much: Node builds two promise wrappers for each); any other through a handle, stopping
 * one entry past the batch, which bounds the work to two batches.
 */
function smallListingSync(dir: string, size: number | null): Dirent[] | null {
  if (size !== null && size > 0 && size <= SMALL_DIRECTORY_BYTES) {
    try {
      const entries = fs.readdirSync(dir, { withFileTypes: true });
      return entries.length <= READ_BATCH ? entries : null;
    } catch {
      return null;
    }
  }
  let handle: fs.Dir;
  try {
    handle = fs.opendirSync(dir, { bufferSize: READ_BATCH });
  } catch {
    return null;
  }
  try {
    const entries: Dirent[] = [];
    for (;;) {
      const entry = handle.readSync();
      if (entry === null) return entries;
      if (entries.length === READ_BATCH) return null;
      entries.push(entry);
    }
  } catch {
    return null;
  } finally {
    try {
      handle.closeSync();
    } catch {
      // A handle that failed mid-read may be closed already; the listing above stands either way.
    }
  }
}
