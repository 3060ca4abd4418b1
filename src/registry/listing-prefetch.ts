/**
 * Directory listings read ahead on libuv's thread pool while the walk reads and parses on the
 * event loop. Listing every skill folder is what finding nested skills costs (SPEC §2), and on
 * the loop it cost as much as reading every SKILL.md; one `readdir` request is a single trip to
 * the pool, so the kernel's share of a listing runs on another core while the loop parses, and
 * the loop pays only for the callback.
 *
 * A listing is only ever a hint: the walk takes one that has arrived and lists the directory
 * itself otherwise, so a slow pool never holds the walk up and an answer that comes late is
 * dropped. A listing read ahead is as fresh as one read at that moment would have been: a walk
 * is not atomic, and a change after the listing is caught by the watcher or the next refresh.
 */
import * as fs from "node:fs";

/**
 * Listings in flight or arrived and not yet taken, at most. Enough that the pool stays busy
 * through a slice of the walk (a few milliseconds, a hundred-odd skills); few enough that the
 * callbacks arriving between two slices stay well under a millisecond of the loop, and that a
 * walk slower than the pool (a category of 50,000 folders) holds no more than this many
 * listings it has not reached.
 */
export const PREFETCH_IN_FLIGHT = 128;

/** What a read-ahead produced: the entries, or the error the walk handles as its own. */
export type PrefetchedListing = fs.Dirent[] | NodeJS.ErrnoException;

/**
 * Listings keyed by what the walk holds for each directory (its entry in the parent's listing),
 * not by path: a path built again for the lookup would be hashed again, once per directory.
 */
export class ListingPrefetch<K> {
  private readonly queue: K[] = [];
  private readonly dirs = new Map<K, string>();
  private head = 0;
  private inFlight = 0;
  /** Listings arrived and not yet taken. */
  private arrived = 0;
  /** Directories asked for and not yet taken; their listing once it has arrived. */
  private readonly pending = new Map<K, PrefetchedListing | null>();
  private closed = false;

  /**
   * `started: false` holds requests until `start()`: a walk that finishes within its first slice
   * of the loop never takes a listing read ahead, and would only have listed every folder twice.
   */
  constructor(private started = true) {}

  /** Sends the requests held so far, and every later one as it comes. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.pump();
  }

  /** Asks for the listings of `dirs`, known by `keys`, in the order the walk will reach them. */
  want(keys: readonly K[], dirs: readonly string[]): void {
    if (this.closed) return;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      if (this.pending.has(key)) continue;
      this.pending.set(key, null);
      this.dirs.set(key, dirs[i]!);
      this.queue.push(key);
    }
    this.pump();
  }

  /**
   * The listing of the directory `key` names if it has arrived; otherwise undefined, and its
   * read-ahead is given up (the caller lists it now).
   */
  take(key: K): PrefetchedListing | undefined {
    const listing = this.pending.get(key);
    if (listing === undefined) return undefined;
    this.pending.delete(key);
    this.dirs.delete(key);
    if (listing === null) return undefined;
    this.arrived--;
    this.pump();
    return listing;
  }

  /** Whether the listing `key` names has arrived and waits to be taken. */
  ready(key: K): boolean {
    return (this.pending.get(key) ?? null) !== null;
  }

  /** Requests on the pool now. */
  get inFlightCount(): number {
    return this.inFlight;
  }

  /** Stops asking; answers still in flight are dropped when they come. */
  close(): void {
    this.closed = true;
    this.pending.clear();
    this.dirs.clear();
    this.queue.length = 0;
    this.head = 0;
    this.arrived = 0;
  }

  private pump(): void {
    if (!this.started) return;
    while (this.inFlight + this.arrived < PREFETCH_IN_FLIGHT && this.head < this.queue.length) {
      const key = this.queue[this.head++]!;
      // Taken (listed by the walk itself) before its turn came: nothing to read ahead.
      if (this.pending.get(key) !== null) continue;
      this.inFlight++;
      fs.readdir(this.dirs.get(key)!, { withFileTypes: true }, (error, entries) => {
        this.inFlight--;
        if (this.closed) return;
        // Taken meanwhile: the walk has listed it already.
        if (this.pending.has(key)) {
          this.pending.set(key, error ?? entries);
          this.arrived++;
        }
        this.pump();
      });
    }
    if (this.head === this.queue.length && this.head > 0) {
      this.queue.length = 0;
      this.head = 0;
    }
  }
}
