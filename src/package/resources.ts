/**
 * Lists a skill's resource files (SPEC §1): every regular file of its package other than
 * SKILL.md, whatever folder the author keeps it in (`references/`, `reference/`, `themes/`,
 * `forms.md` at the root). Scripts are absolute (the model runs them directly); every other file
 * is skill-relative (the model reads it through the tool).
 *
 * Bounded four ways, because the directory is the author's and may be anything: files at most
 * five directories below the skill, 500 files listed, 500 directories read and 5,000 directory
 * entries read in all. A `references/` holding 100,000 directories then costs a bounded walk,
 * and the listing says it was cut. The walk is asynchronous: every directory is read in batches
 * off the event loop, so no session waits while another's activation lists a large package.
 * It is not cached: a file added to a package shows at the next activation, and the bounds keep
 * a walk cheap. Concurrent listings of one directory share one walk.
 *
 * Left out: what the package leaves out (package-shape.ts), the files of a nested skill (a
 * subdirectory with its own SKILL.md, outside `scripts/`, `references/`, `assets/`, which is how
 * discovery finds nested skills), symlinked directories (a listing must not loop), a symlink
 * whose target lies outside the skill's real directory (the listing must not offer a file that a
 * confined read refuses), a name holding a backslash (a read takes it for a separator, so it
 * could never be read), and a name with a line break or a hidden character (the listing reaches
 * the model one file a line, and such a name could forge entries there).
 */
import type { Dirent } from "node:fs";
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { isInside } from "./confined-read.js";
import { hasUnshowableCharacter } from "./display-text.js";
import { isLeftOutOfPackage, RESOURCE_DIRS, SCRIPTS_DIR, SKILL_FILE_NAMES } from "./package-shape.js";

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

export interface ResourceListing {
  /** Files under `scripts/`, as absolute paths. */
  readonly scripts: readonly string[];
  /** Every other listed file, relative to the skill directory, separated by `/`. */
  readonly files: readonly string[];
  /** True when a bound cut the listing short: the package holds more than is listed. */
  readonly truncated: boolean;
}

const inFlight = new Map<string, Promise<ResourceListing>>();

/** Never throws: what cannot be read is simply not listed. */
export function listResources(dir: string): Promise<ResourceListing> {
  let walk = inFlight.get(dir);
  if (!walk) {
    walk = new PackageWalk(dir).run().finally(() => inFlight.delete(dir));
    inFlight.set(dir, walk);
  }
  return walk;
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

  constructor(private readonly dir: string) {}

  async run(): Promise<ResourceListing> {
    try {
      this.realDir = await fsp.realpath(this.dir);
      const top = await this.read("");
      if (top) await this.visit("", 0, top);
    } catch {
      // The directory vanished or cannot be resolved: nothing to list.
    }
    return Object.freeze({ scripts: Object.freeze(this.scripts), files: Object.freeze(this.files), truncated: this.truncated });
  }

  /** The entries of one directory, sorted by name; null when it cannot be read or the bound is spent. */
  private async read(rel: string): Promise<Dirent[] | null> {
    if (this.directoriesLeft === 0) {
      this.truncated = true;
      return null;
    }
    this.directoriesLeft--;
    const entries: Dirent[] = [];
    try {
      const handle = await fsp.opendir(path.join(this.dir, rel), { bufferSize: READ_BATCH });
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
      if (entries.length === 0) return null;
      // A directory that fails part-way lists what was read.
    }
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  private async visit(rel: string, depth: number, entries: Dirent[]): Promise<void> {
    for (const entry of entries) {
      if (this.full) return;
      const name = entry.name;
      if (isLeftOutOfPackage(name) || name.includes("\\") || hasUnshowableCharacter(name)) continue;
      if (rel === "" && SKILL_FILE_NAMES.includes(name)) continue;
      const childRel = rel === "" ? name : `${rel}/${name}`;
      if (entry.isSymbolicLink()) {
        // Symlinked directories are not descended; a symlinked file counts where a read would take it.
        if (await this.isConfinedFile(childRel)) this.add(childRel);
      } else if (entry.isFile()) {
        this.add(childRel);
      } else if (entry.isDirectory()) {
        if (depth + 1 > MAX_RESOURCE_DEPTH) {
          this.truncated = true;
          continue;
        }
        const children = await this.read(childRel);
        if (!children || this.isNestedSkill(childRel, children)) continue;
        await this.visit(childRel, depth + 1, children);
      }
    }
  }

  private add(rel: string): void {
    if (this.scripts.length + this.files.length === MAX_RESOURCE_ENTRIES) {
      this.truncated = true;
      this.full = true;
      return;
    }
    if (rel.startsWith(`${SCRIPTS_DIR}/`)) this.scripts.push(path.join(this.dir, rel));
    else this.files.push(rel);
  }

  /** A subdirectory holding its own SKILL.md is a skill of its own, unless it sits in a resource folder. */
  private isNestedSkill(rel: string, entries: Dirent[]): boolean {
    const top = rel.split("/", 1)[0]!;
    if ((RESOURCE_DIRS as readonly string[]).includes(top)) return false;
    return entries.some((e) => SKILL_FILE_NAMES.includes(e.name) && !e.isDirectory());
  }

  private async isConfinedFile(rel: string): Promise<boolean> {
    try {
      const real = await fsp.realpath(path.join(this.dir, rel));
      if (!isInside(this.realDir, real)) return false;
      if (path.relative(this.realDir, real).split(path.sep).some(isLeftOutOfPackage)) return false;
      return (await fsp.stat(real)).isFile();
    } catch {
      return false;
    }
  }
}
