/**
 * Opening a session log file without following a symlink planted on the way (SPEC §5.6).
 *
 * A log holds text that skill authors chose (skill bodies), so a log written through a link
 * planted in a repository (`.skillport/sessions -> ~/.config/autostart`) puts their bytes
 * wherever they like. So a log path is split into a trusted base and the components below it:
 * the base is the user's own state directory or home (`$XDG_STATE_HOME`, `$HOME`), whichever is
 * the longest that holds the log, and is opened as named, because where a user's home lives is
 * the user's choice (`/home -> /usr/home`); a log outside both is based at `/`. Every component
 * below the base is opened with `O_NOFOLLOW`, one at a time, and a symlink there refuses the log.
 * Directories are created 0700 and files 0600: a log is a transcript of someone's work.
 *
 * Checking with `lstat` and then opening the path is a race: the component can be swapped for a
 * link in between. Node has no `openat`, so on Linux each step opens its child through the
 * parent's descriptor (`/proc/self/fd/N/name`), which resolves in the directory already opened,
 * whatever has been renamed or swapped since: the same guarantee as `openat(..., O_NOFOLLOW)`.
 * Where `/proc` is missing, each step opens the full path with `O_NOFOLLOW`, which refuses a link
 * in the last component only; an earlier one swapped between two steps is then not caught.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { NotRegularFileError, openRegularFileSync } from "../package/regular-file.js";

const DIRECTORY_MODE = 0o700;
const FILE_MODE = 0o600;
const { O_RDONLY, O_RDWR, O_APPEND, O_CREAT } = fs.constants;
// Both exist wherever skillport runs (Linux, macOS); 0 keeps other platforms working, unprotected.
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY = fs.constants.O_DIRECTORY ?? 0;

/** A symlink met below the trusted base of a log path. */
export class SymlinkInLogPathError extends Error {
  readonly code = "ESYMLINK";

  constructor(link: string) {
    super(`${link} is a symlink; session logs are never written or read through one (name the real directory instead)`);
    this.name = "SymlinkInLogPathError";
  }
}

/**
 * The user's state directory: `$XDG_STATE_HOME` when it is an absolute path (the XDG spec says
 * to ignore a relative one), else `~/.local/state`.
 */
export function stateHome(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_STATE_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.resolve(xdg);
  return path.join(homeOf(env), ".local", "state");
}

function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME && path.isAbsolute(env.HOME) ? path.resolve(env.HOME) : os.homedir();
}

/** The trusted base of `dir` and the components below it that must not be symlinks. */
export function splitAtTrustedBase(dir: string, env: NodeJS.ProcessEnv = process.env): { base: string; below: string[] } {
  const target = path.resolve(dir);
  const xdg = env.XDG_STATE_HOME;
  const bases = [homeOf(env), ...(xdg && path.isAbsolute(xdg) ? [path.resolve(xdg)] : [])];
  let base = path.parse(target).root;
  for (const candidate of bases) {
    const inside = target === candidate || target.startsWith(candidate.endsWith(path.sep) ? candidate : candidate + path.sep);
    if (inside && candidate.length > base.length) base = candidate;
  }
  const below = path.relative(base, target).split(path.sep).filter((part) => part !== "");
  return { base, below };
}

let procFdUsable: boolean | undefined;

/** Whether `/proc/self/fd/N/name` can stand in for `openat(N, name)` here. */
function viaProc(): boolean {
  if (procFdUsable === undefined) {
    try {
      procFdUsable = process.platform === "linux" && fs.statSync("/proc/self/fd").isDirectory();
    } catch {
      procFdUsable = false;
    }
  }
  return procFdUsable;
}

/** The path that names `name` inside the directory open as `fd` (known to people as `shown`). */
function childOf(fd: number, shown: string, name: string): string {
  return viaProc() ? `/proc/self/fd/${fd}/${name}` : path.join(shown, name);
}

function isSymlink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * An error from opening `at` as it should read to a person: the path they know (`shown`), not
 * `/proc/self/fd/N/name`, and a refused link named as one.
 */
function asShown(error: unknown, at: string, shown: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if ((code === "ELOOP" || code === "ENOTDIR" || code === "EMLINK") && isSymlink(at)) return new SymlinkInLogPathError(shown);
  if (error instanceof NotRegularFileError) return new NotRegularFileError(shown, error.code === "EISDIR");
  if (error instanceof Error && at !== shown) error.message = error.message.split(at).join(shown);
  return error;
}

/** `open` with `O_NOFOLLOW`: a link in the last component is refused. */
function openNoFollow(at: string, shown: string, flags: number, mode?: number): number {
  try {
    return fs.openSync(at, flags | O_NOFOLLOW, mode);
  } catch (error) {
    throw asShown(error, at, shown);
  }
}

/** Opens `dir` for lookups, creating missing components 0700 when `create`; returns its descriptor. */
function openDirectoryChain(dir: string, create: boolean): { fd: number; shown: string } {
  const { base, below } = splitAtTrustedBase(dir);
  if (create) fs.mkdirSync(base, { recursive: true, mode: DIRECTORY_MODE });
  let fd = fs.openSync(base, O_RDONLY | O_DIRECTORY);
  let shown = base;
  try {
    for (const name of below) {
      const at = childOf(fd, shown, name);
      const next = path.join(shown, name);
      let opened: number;
      try {
        opened = openNoFollow(at, next, O_RDONLY | O_DIRECTORY);
      } catch (error) {
        if (!create || (error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        // mkdir never follows a link in its last component: a link planted meanwhile is EEXIST,
        // and the open after it refuses it.
        try {
          fs.mkdirSync(at, { mode: DIRECTORY_MODE });
        } catch (mkdirError) {
          if ((mkdirError as NodeJS.ErrnoException).code !== "EEXIST") throw asShown(mkdirError, at, next);
        }
        opened = openNoFollow(at, next, O_RDONLY | O_DIRECTORY);
      }
      fs.closeSync(fd);
      fd = opened;
      shown = next;
    }
    return { fd, shown };
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

/**
 * Opens a log file for appending (created 0600 with its directories 0700) or for reading,
 * following no symlink below its trusted base. The caller closes the descriptor.
 */
export function openLogFileSync(file: string, purpose: "append" | "read"): number {
  const append = purpose === "append";
  const { fd, shown } = openDirectoryChain(path.dirname(path.resolve(file)), append);
  try {
    const name = path.basename(file);
    const at = childOf(fd, shown, name);
    // Read-write even for appending: the log looks at the last byte of a file it continues.
    const flags = append ? O_RDWR | O_APPEND | O_CREAT : O_RDONLY;
    try {
      return openRegularFileSync(at, flags | O_NOFOLLOW, FILE_MODE);
    } catch (error) {
      throw asShown(error, at, path.join(shown, name));
    }
  } finally {
    fs.closeSync(fd);
  }
}
