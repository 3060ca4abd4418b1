/**
 * Opt-in watching (SPEC §2): filesystem events under any existing source start a debounced
 * callback, so a burst of writes (an editor saving, a checkout) causes one refresh. Watchers and
 * the timer are non-persistent: watching never keeps a process alive, and `close()` ends it.
 */
import * as fs from "node:fs";
import { diagnostic, type Diagnostic } from "../package/diagnostic.js";
import { isDirectory } from "../package/path-kind.js";

export interface SourceWatcher {
  /** Sources that could not be watched (they still refresh on demand). */
  readonly diagnostics: readonly Diagnostic[];
  close(): void;
}

export function watchSources(paths: readonly string[], onChange: () => void, debounceMs: number): SourceWatcher {
  const watchers: fs.FSWatcher[] = [];
  const diagnostics: Diagnostic[] = [];
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  const schedule = () => {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      if (!closed) onChange();
    }, debounceMs);
    timer.unref();
  };
  for (const dir of new Set(paths)) {
    if (!isDirectory(dir)) continue;
    try {
      const watcher = fs.watch(dir, { recursive: true, persistent: false }, schedule);
      // A watched root that disappears ends its watcher with an error; the refresh it triggers
      // is what reports the change, so the error itself needs no handling beyond not crashing.
      watcher.on("error", schedule);
      watchers.push(watcher);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      diagnostics.push(diagnostic(dir, "warning", "watch_failed", `Cannot watch ${dir} (${code}); its changes show only after a refresh`));
    }
  }
  return {
    diagnostics,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      for (const watcher of watchers) watcher.close();
    },
  };
}

