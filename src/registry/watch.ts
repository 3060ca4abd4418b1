/**
 * Opt-in watching (SPEC §2). One non-recursive `fs.watch` per directory that can matter: each
 * source root, the category directories below it, and each skill directory (an edit of its
 * SKILL.md is an event there). Node's recursive mode on Linux is built in JavaScript from a
 * watcher per file and directory, which took 0.75–1.9 s and 60 MB for 10,000 skills; a watch
 * per directory takes a third of that time in slices that leave the event loop free. Subfolders
 * of a skill (`scripts/`, `references/`…) are not watched unless a skill lies below them: they
 * change what a skill ships, not what the registry holds.
 *
 * Events are turned into the directories to examine again (the skill whose directory saw the
 * event, or the child of a category that was created, removed or renamed) and handed over in
 * one debounced burst, so the registry walks only those. Watchers and timers are non-persistent:
 * watching never keeps a process alive, and `close()` ends it.
 *
 * A watcher follows the directory it was opened on, not the path: a source replaced by another
 * directory (a checkout, `rm -rf` then `mkdir`, a rename over it) would leave it watching the old
 * one. So each burst also checks that every source root is still the directory being watched,
 * and watches it afresh when not. A source that does not exist, at the start or later, is polled
 * with `stat` until it does, then watched and walked whole.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { diagnostic, type Diagnostic } from "../package/diagnostic.js";
import { MAX_SKILL_DEPTH } from "./discover.js";
import type { SourceChanges } from "./registry.js";
import { TimeSlicer } from "./time-slice.js";

export interface SourceWatcher {
  /** Directories that could not be watched (their changes still show after a refresh). */
  readonly diagnostics: readonly Diagnostic[];
  /** Resolves once every directory known at the start is watched. */
  readonly ready: Promise<void>;
  /** The directories watched now (one `fs.watch` each). */
  watchedDirectories(): string[];
  close(): void;
}

const WATCHED_DIR = Symbol("watched directory");
const OWNERS = Symbol("sources of the directory");
const IS_SKILL = Symbol("skill directory");
/**
 * A watcher carries what is known of its directory, so the listeners shared by every watcher
 * read it from `this`, and no object is made beside each of 10,000 watchers to hold it.
 */
type DirectoryWatcher = fs.FSWatcher & {
  [WATCHED_DIR]: string;
  /**
   * The source the directory belongs to, or the sources when two share a tree: a number, not a
   * list, for the one source nearly every directory has.
   */
  [OWNERS]: number | number[];
  /** A skill directory: every event in it is a change of that skill. */
  [IS_SKILL]: boolean;
};
const WATCH_OPTIONS = Object.freeze({ persistent: false });

/** What the watcher needs from the registry it serves. */
export interface WatchHost {
  /** The real skill directories the last scan found in source `index`. */
  skillDirectories(index: number): readonly string[];
  /** Rescans what changed; the watcher covers new directories once this settles. */
  refresh(changes: SourceChanges): Promise<unknown>;
  /**
   * Whether source `index`, its folder resolving to `realRoot`, may be walked (`sourceRootAllowed`):
   * one that may not (a project folder linked out of its repository) is not watched either,
   * only looked at until it resolves elsewhere. Default: every root may.
   */
  rootAllowed?(index: number, realRoot: string): boolean;
}

/** How often a missing source is looked for. */
const MISSING_POLL_MS = 500;
/** Folders of a skill that hold its files, never other skills: a walk does not look inside them. */
const RESOURCE_FOLDERS = new Set(["scripts", "references", "assets"]);

interface WatchedSource {
  index: number;
  path: string;
  /** Real path of the root being watched; null while the source is missing. */
  realRoot: string | null;
  /** `dev:ino` of that root. */
  identity: string | null;
  /** The timer looking for the source while it is missing. */
  poll: NodeJS.Timeout | null;
}

export function watchSources(paths: readonly string[], host: WatchHost, debounceMs: number): SourceWatcher {
  // A source without a usable path is reported by the registry; here it is simply never watched.
  const sources: WatchedSource[] = [];
  paths.forEach((p, index) => {
    if (typeof p === "string" && p !== "") sources.push({ index, path: path.resolve(p), realRoot: null, identity: null, poll: null });
  });
  const sourceAt = new Map(sources.map((source) => [source.index, source]));
  const dirs = new Map<string, DirectoryWatcher>();
  const diagnostics: Diagnostic[] = [];
  /** Per source, what events named since the last burst; null: walk the source whole. */
  let pending = new Map<number, Set<string> | null>();
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  /** Bursts run one after another, and after the first cover: each covers what the refresh before it found. */
  let bursts: Promise<void> = Promise.resolve();
  /** Set once `fs.watch` ran out of inotify watches: trying more only throws again. */
  let exhausted = false;

  const schedule = () => {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      bursts = bursts.then(burst, burst);
    }, debounceMs);
    timer.unref();
  };

  const note = (index: number, dir: string | null) => {
    const known = pending.get(index);
    if (dir === null) pending.set(index, null);
    else if (known === undefined) pending.set(index, new Set([dir]));
    else known?.add(dir);
  };

  /** Watches `dir` for source `index`; true when it was not watched for that source before. */
  const watchDir = (dir: string, index: number, skill: boolean): boolean => {
    const existing = dirs.get(dir);
    if (existing) {
      existing[IS_SKILL] ||= skill;
      const owners = existing[OWNERS];
      if (owners === index || (typeof owners !== "number" && owners.includes(index))) return false;
      if (typeof owners === "number") existing[OWNERS] = [owners, index];
      else owners.push(index);
      return true;
    }
    if (exhausted) return false;
    let watcher: DirectoryWatcher;
    try {
      // Listeners shared by every watcher, which carries its directory: two closures per
      // directory were a third of the set-up's own cost at 10,000 skills.
      watcher = fs.watch(dir, WATCH_OPTIONS, onChangeEvent) as DirectoryWatcher;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      if (code === "ENOENT" || code === "ENOTDIR") return false;
      if (code === "ENOSPC") exhausted = true;
      const why = code === "ENOSPC" ? "ENOSPC: the system's limit on watches, fs.inotify.max_user_watches, is reached" : code;
      diagnostics.push(diagnostic(dir, "warning", "watch_failed", `Cannot watch ${dir} (${why}); changes there show only after a refresh`));
      return false;
    }
    watcher[WATCHED_DIR] = dir;
    watcher[OWNERS] = index;
    watcher[IS_SKILL] = skill;
    watcher.on("error", onErrorEvent);
    dirs.set(dir, watcher);
    return true;
  };

  function onChangeEvent(this: DirectoryWatcher, _event: string, filename: string | Buffer | null): void {
    onEvent(this[WATCHED_DIR], filename);
  }

  // A watched directory that goes away may end its watcher with an error: look at it again.
  function onErrorEvent(this: DirectoryWatcher): void {
    const dir = this[WATCHED_DIR];
    if (dirs.get(dir) !== this) {
      this.close();
      return;
    }
    unwatch(dir);
    for (const owner of ownersOf(this)) note(owner, dir);
    schedule();
  }

  const unwatch = (dir: string): void => {
    const watcher = dirs.get(dir);
    if (!watcher) return;
    watcher.close();
    dirs.delete(dir);
  };

  const onEvent = (dir: string, filename: string | Buffer | null): void => {
    const entry = dirs.get(dir);
    if (!entry || closed) return;
    let changed = dir;
    if (filename !== null && !entry[IS_SKILL]) {
      const name = filename.toString();
      // A SKILL.md appearing in a category makes the category itself a skill.
      if (name !== "SKILL.md" && name !== "skill.md") changed = dir + path.sep + name;
    }
    for (const index of ownersOf(entry)) note(index, changed);
    schedule();
  };

  /**
   * Watches `dir` and what below it can hold skills, `depth` levels below its source's root:
   * categories are listed and descended into; a known skill directory is watched without being
   * listed, unless another known skill lies below it.
   */
  const cover = async (index: number, dir: string, depth: number, known: KnownTree, slicer: TimeSlicer): Promise<void> => {
    const skill = skillAt(known, dir) !== undefined;
    if (watchDir(dir, index, skill) && skill) known.covered += 1;
    if ((skill && !known.ancestors.has(dir)) || depth >= MAX_SKILL_DEPTH || exhausted || closed) return;
    // Names only: entry types doubled the cost of listing a source of 1,000 skills, and every
    // skill the last scan found here is known to be a directory without them.
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return;
    }
    const skillsHere = known.children.get(dir);
    for (const name of names) {
      if (name.startsWith(".") || name === "node_modules" || (skill && RESOURCE_FOLDERS.has(name))) continue;
      // A skill is found by its name and watched under the registry's own string for its path:
      // joining a path per entry to look it up, then keeping the joined copy in the watch, was
      // the largest cost of set-up beyond `fs.watch` itself, and a megabyte at 10,000 skills.
      let canonical = skillsHere?.get(name);
      let child: string;
      if (canonical !== undefined) child = canonical;
      else {
        const joined = dir + path.sep + name;
        const kind = entryKind(joined);
        if (kind === "link") {
          const real = realDirectory(joined);
          if (real === null || known.seen.has(real)) continue;
          known.seen.add(real);
          canonical = skillAt(known, real);
          child = real;
        } else if (kind === "directory") child = joined;
        else continue;
      }
      const childIsSkill = canonical !== undefined;
      const leadsToSkill = known.ancestors.size > 0 && known.ancestors.has(child);
      // Inside a skill only the way to a skill below it is worth a watch.
      if (skill && !childIsSkill && !leadsToSkill) continue;
      // A skill with no skill below it is watched here: no listing, and no async call per skill.
      if (childIsSkill && !leadsToSkill) {
        if (watchDir(child, index, true)) known.covered += 1;
      }
      else await cover(index, child, depth + 1, known, slicer);
      if (slicer.due()) await slicer.yield();
    }
  };

  /** Watches a source's whole tree as the last scan found it. */
  const coverSource = async (source: WatchedSource, slicer: TimeSlicer): Promise<void> => {
    const root = realDirectory(source.path);
    if (root !== null && host.rootAllowed?.(source.index, root) === false) {
      // Refused by the walk too: covering it would watch where the link leads (`/`: the disk).
      source.realRoot = null;
      source.identity = null;
      startPolling(source, root);
      return;
    }
    source.realRoot = root;
    source.identity = root === null ? null : identityOf(root);
    if (root === null || source.identity === null) {
      startPolling(source);
      return;
    }
    const known = knownTree(root, host.skillDirectories(source.index));
    await cover(source.index, root, 0, known, slicer);
    // Skills reached through a link from outside the tree the walk above followed. Looked for
    // only when the walk above did not watch every skill: a look-up per skill otherwise.
    if (known.covered < known.count) for (const dir of known.list) if (!dirs.has(dir)) watchDir(dir, source.index, true);
  };

  const dropSource = (source: WatchedSource): void => {
    for (const [dir, watcher] of [...dirs]) {
      const owners = watcher[OWNERS];
      if (typeof owners === "number") {
        if (owners === source.index) unwatch(dir);
        continue;
      }
      const at = owners.indexOf(source.index);
      if (at < 0) continue;
      owners.splice(at, 1);
      if (owners.length === 0) unwatch(dir);
    }
    source.realRoot = null;
    source.identity = null;
  };

  /**
   * Looks for a missing source (or one refused where it resolves to, `from`) every
   * MISSING_POLL_MS, until its folder resolves anywhere else. A plain timer, not `fs.watchFile`:
   * that one takes its first `stat` as the baseline, so a folder made before that first look was
   * never reported as a change.
   */
  const startPolling = (source: WatchedSource, from: string | null = null): void => {
    if (source.poll !== null || closed) return;
    source.poll = setInterval(() => {
      if (closed || realDirectory(source.path) === from) return;
      stopPolling(source);
      // Here now: walk it whole, then watch what the walk found.
      note(source.index, null);
      schedule();
    }, MISSING_POLL_MS);
    source.poll.unref();
  };

  const stopPolling = (source: WatchedSource): void => {
    if (source.poll !== null) clearInterval(source.poll);
    source.poll = null;
  };

  /** One debounced burst: what changed is rescanned, then what is new is watched. */
  const burst = async (): Promise<void> => {
    if (closed) return;
    // Roots first: one replaced or gone is walked whole, and watched afresh (or polled).
    for (const source of sources) {
      if (source.poll !== null) continue;
      const root = realDirectory(source.path);
      const identity = root === null ? null : identityOf(root);
      if (source.identity !== null && identity === source.identity && root === source.realRoot) continue;
      if (source.identity === null && root === null) continue;
      dropSource(source);
      note(source.index, null);
    }
    const changes = new Map<number, string[] | null>();
    for (const [index, dirsNamed] of pending) {
      if (dirsNamed === null) {
        changes.set(index, null);
        continue;
      }
      // A file in a category holds no skill: only directories, and paths now gone, matter.
      const relevant = [...dirsNamed].filter((dir) => dirs.get(dir)?.[IS_SKILL] === true || !isOtherThanDirectory(dir));
      if (relevant.length > 0) changes.set(index, relevant);
    }
    pending = new Map();
    if (changes.size === 0) return;
    try {
      await host.refresh(changes);
    } catch {
      // The registry reports its own failures; the watcher goes on.
    }
    if (closed) return;
    const slicer = new TimeSlicer();
    for (const [index, changed] of changes) {
      const source = sourceAt.get(index);
      if (!source) continue;
      if (changed === null) {
        if (source.realRoot === null) await coverSource(source, slicer);
        continue;
      }
      if (source.realRoot === null) continue;
      for (const dir of changed) {
        if (realDirectory(dir) === null) {
          // Gone: so is every watch at or below it.
          for (const watched of [...dirs.keys()]) if (isWithin(watched, dir)) unwatch(watched);
          continue;
        }
        if (dirs.get(dir)?.[IS_SKILL] === true) continue;
        const within = host.skillDirectories(index).filter((skill) => isWithin(skill, dir));
        const known = knownTree(source.realRoot, within);
        await cover(index, dir, depthBelow(source.realRoot, dir), known, slicer);
      }
    }
  };

  const ready = (async () => {
    const slicer = new TimeSlicer();
    for (const source of sources) {
      if (closed) return;
      await coverSource(source, slicer);
    }
  })();
  bursts = ready;

  return {
    diagnostics,
    ready,
    watchedDirectories: () => [...dirs.keys()],
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      for (const watcher of dirs.values()) watcher.close();
      dirs.clear();
      for (const source of sources) stopPolling(source);
    },
  };
}

/** The skill directories of a tree, and every directory on the way to one. */
interface KnownTree {
  /** Per directory, the skill directories right inside it by name, each the registry's own string for its path. */
  children: Map<string, Map<string, string>>;
  /** The skill directories as the registry listed them. */
  list: readonly string[];
  /** How many different ones. */
  count: number;
  ancestors: Set<string>;
  /** Real directories reached through links, so a link loop is followed once. */
  seen: Set<string>;
  /** Skills of the tree a cover of its source watched for that source. */
  covered: number;
}

function knownTree(root: string, skillDirs: readonly string[]): KnownTree {
  const children = new Map<string, Map<string, string>>();
  const ancestors = new Set<string>();
  let lastParent: string | null = null;
  let lastNames: Map<string, string> | null = null;
  for (let i = 0; i < skillDirs.length; i++) {
    const dir = skillDirs[i]!;
    const cut = dir.lastIndexOf(path.sep);
    // Most skills sit right below the root: their parent is the root's own string, no copy cut,
    // and no ancestor to record.
    const belowRoot = cut === root.length && dir.startsWith(root);
    const parent = belowRoot ? root : dir.slice(0, cut);
    let names: Map<string, string> | null | undefined = parent === lastParent ? lastNames : children.get(parent);
    if (!names) children.set(parent, (names = new Map()));
    lastParent = parent;
    lastNames = names;
    names.set(dir.slice(cut + 1), dir);
    if (belowRoot || cut <= root.length || !isWithin(dir, root)) continue;
    for (let up = parent; up.length > root.length && !ancestors.has(up); up = path.dirname(up)) ancestors.add(up);
  }
  let count = 0;
  for (const names of children.values()) count += names.size;
  return { children, list: skillDirs, count, ancestors, seen: new Set(), covered: 0 };
}

/** The registry's string for the skill directory at `dir`, if `dir` is one. */
function skillAt(known: KnownTree, dir: string): string | undefined {
  const cut = dir.lastIndexOf(path.sep);
  return known.children.get(dir.slice(0, cut))?.get(dir.slice(cut + 1));
}

/** The real path of the directory at `p`, or null when there is none. */
function realDirectory(p: string): string | null {
  try {
    const real = fs.realpathSync.native(p);
    return fs.statSync(real).isDirectory() ? real : null;
  } catch {
    return null;
  }
}

/** What is at `p` itself (a link is not followed); null for anything else, or nothing. */
function entryKind(p: string): "directory" | "link" | null {
  try {
    const stat = fs.lstatSync(p, { throwIfNoEntry: false });
    return stat?.isDirectory() ? "directory" : stat?.isSymbolicLink() ? "link" : null;
  } catch {
    return null;
  }
}

/** Something other than a directory is there (a file, a FIFO); false when nothing is. */
function isOtherThanDirectory(p: string): boolean {
  try {
    return !fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** `dev:ino` of the directory at `dir`, or null when there is none. */
function identityOf(dir: string): string | null {
  try {
    const stat = fs.statSync(dir, { throwIfNoEntry: false });
    return stat?.isDirectory() ? `${stat.dev}:${stat.ino}` : null;
  } catch {
    return null;
  }
}

/** The sources a watched directory belongs to, as a list. */
function ownersOf(watcher: DirectoryWatcher): readonly number[] {
  const owners = watcher[OWNERS];
  return typeof owners === "number" ? [owners] : owners;
}

function isWithin(dir: string, root: string): boolean {
  return dir === root || (dir.startsWith(root) && dir[root.length] === path.sep);
}

function depthBelow(root: string, dir: string): number {
  return dir === root ? 0 : path.relative(root, dir).split(path.sep).length;
}
