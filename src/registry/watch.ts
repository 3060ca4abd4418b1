/**
 * Opt-in watching (SPEC §2): filesystem events under any existing source start a debounced
 * callback, so a burst of writes (an editor saving, a checkout) causes one refresh. Watchers and
 * the timer are non-persistent: watching never keeps a process alive, and `close()` ends it.
 *
 * A watcher follows the directory it was opened on, not the path: a source replaced by another
 * directory (a checkout, `rm -rf` then `mkdir`, a rename over it) would leave it watching the
 * old one, or nothing, for good. So each burst of events also checks that every source is still
 * the directory being watched, and watches it afresh when not. A source that has vanished is
 * polled with `stat` until it is back.
 */
import * as fs from "node:fs";
import { diagnostic, type Diagnostic } from "../package/diagnostic.js";
import { isDirectory } from "../package/path-kind.js";

export interface SourceWatcher {
  /** Sources that could not be watched (they still refresh on demand). */
  readonly diagnostics: readonly Diagnostic[];
  close(): void;
}

/** How often a vanished source is looked for again. */
const VANISHED_POLL_MS = 500;

/** One watched source: the directory it names, by identity, and what watches it now. */
interface WatchedSource {
  dir: string;
  watcher: fs.FSWatcher | null;
  /** `dev:ino` of the directory the watcher was opened on. */
  identity: string;
  polling: boolean;
  /** `fs.watch` refused this directory (reported once); it is not tried again while it stays. */
  unwatchable: boolean;
}

export function watchSources(paths: readonly string[], onChange: () => void, debounceMs: number): SourceWatcher {
  const sources: WatchedSource[] = [];
  const diagnostics: Diagnostic[] = [];
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  const schedule = () => {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      if (closed) return;
      for (const source of sources) follow(source);
      onChange();
    }, debounceMs);
    timer.unref();
  };

  /** Opens a watcher on what `source.dir` names now; false when there is no directory there. */
  const arm = (source: WatchedSource): boolean => {
    const identity = identityOf(source.dir);
    if (identity === null) return false;
    source.identity = identity;
    try {
      const watcher = fs.watch(source.dir, { recursive: true, persistent: false }, schedule);
      // A watched root that disappears ends its watcher with an error; the burst it starts is
      // where the source is looked at again.
      watcher.on("error", () => {
        if (source.watcher === watcher) source.watcher = null;
        watcher.close();
        schedule();
      });
      source.watcher = watcher;
      source.unwatchable = false;
    } catch (error) {
      source.unwatchable = true;
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      diagnostics.push(diagnostic(source.dir, "warning", "watch_failed", `Cannot watch ${source.dir} (${code}); its changes show only after a refresh`));
    }
    return true;
  };

  /** Watches the source afresh if its path now names another directory, or polls until one is back. */
  const follow = (source: WatchedSource): void => {
    if (source.polling) return;
    const identity = identityOf(source.dir);
    if (identity !== null && identity === source.identity && (source.watcher !== null || source.unwatchable)) return;
    source.watcher?.close();
    source.watcher = null;
    if (arm(source)) return;
    source.polling = true;
    fs.watchFile(source.dir, { persistent: false, interval: VANISHED_POLL_MS }, () => {
      if (closed || identityOf(source.dir) === null) return;
      fs.unwatchFile(source.dir);
      source.polling = false;
      // Back: watch it, and refresh for what it brought.
      arm(source);
      schedule();
    });
  };

  for (const dir of new Set(paths)) {
    // Sources missing at the start are not watched: they cost nothing until a refresh finds them.
    if (!isDirectory(dir)) continue;
    const source: WatchedSource = { dir, watcher: null, identity: "", polling: false, unwatchable: false };
    arm(source);
    sources.push(source);
  }
  return {
    diagnostics,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      for (const source of sources) {
        source.watcher?.close();
        if (source.polling) fs.unwatchFile(source.dir);
      }
    },
  };
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
