/**
 * Fetching one commit of a git source (SPEC §10). Git runs as the `git` binary through
 * `execFile`, never a shell: arguments are an array, anything the user typed comes after `--`,
 * `GIT_TERMINAL_PROMPT=0` keeps a private repository from waiting on a password prompt that no one
 * sees, and hooks are pointed at nothing. The fetch is shallow (`--depth=1`, one commit, no tags,
 * no submodules) into a temporary folder that is removed when the work on it ends, however it
 * ends: returned, thrown, or the process leaving on a signal the CLI turns into an exit.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { InstallError } from "./install-error.js";

/** A checked-out commit, alive while the callback given to `withFetchedCommit` runs. */
export interface FetchedCommit {
  /** The work tree: the source's files at `commit`. */
  dir: string;
  /** Full hex name of the commit. */
  commit: string;
}

export interface FetchOptions {
  /** Lines for the person waiting (stderr in the CLI). */
  onProgress?: (line: string) => void;
  /** The environment git runs with; default `process.env`. `GIT_TERMINAL_PROMPT=0` is always set. */
  env?: NodeJS.ProcessEnv;
}

/** Temporary folders alive in this process, removed on exit if their owner could not. */
const live = new Set<string>();
let exitHookInstalled = false;

function removeLive(): void {
  for (const dir of live) fs.rmSync(dir, { recursive: true, force: true });
  live.clear();
}

/** The temporary folders this process has not removed yet (for tests and exit handlers). */
export function liveFetchFolders(): string[] {
  return [...live];
}

/**
 * Fetches `ref` (a branch, tag or commit; null for the default branch) of `url`, checks it out
 * into a temporary folder, runs `work` on it, and removes the folder.
 */
export async function withFetchedCommit<T>(url: string, ref: string | null, options: FetchOptions, work: (fetched: FetchedCommit) => Promise<T>): Promise<T> {
  if (!exitHookInstalled) {
    process.once("exit", removeLive);
    exitHookInstalled = true;
  }
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), "skillport-fetch-"));
  live.add(temp);
  try {
    const repo = path.join(temp, "repo");
    // Only the transports a SOURCE may name (SPEC §10), whatever the user's git configuration
    // allows: a URL read back from a committed lockfile could otherwise name `ext::sh -c …`,
    // which runs its command wherever `protocol.ext.allow` (or `protocol.allow`) is `always`.
    const env = { ...(options.env ?? process.env), GIT_TERMINAL_PROMPT: "0", GCM_INTERACTIVE: "never", GIT_ALLOW_PROTOCOL: ALLOWED_PROTOCOLS };
    options.onProgress?.(`fetching ${url}${ref ? ` (${ref})` : ""}`);
    // An empty template: no sample hooks, nothing but what git needs.
    await git(["init", "--quiet", "--template=", repo], env, url);
    await git(["-C", repo, ...QUIET_CONFIG, "fetch", "--quiet", "--depth=1", "--no-tags", "--no-recurse-submodules", "--", url, ref ?? "HEAD"], env, url);
    const commit = (await git(["-C", repo, "rev-parse", "--verify", "--quiet", "FETCH_HEAD^{commit}"], env, url)).trim();
    if (!/^[0-9a-f]{40,64}$/.test(commit)) throw new InstallError(`${url}: ${ref ?? "HEAD"} is not a commit`, "failed");
    await git(["-C", repo, ...QUIET_CONFIG, "checkout", "--quiet", "--detach", commit, "--"], env, url);
    options.onProgress?.(`fetched ${url} at ${commit.slice(0, 12)}`);
    return await work({ dir: repo, commit });
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
    live.delete(temp);
  }
}

/** git's own names of the transports behind `https://`, `ssh://` and `git@host:path`, and `file://`. */
const ALLOWED_PROTOCOLS = "https:ssh:file";

/** No hooks (whatever the user's config says), no advice text, no background maintenance. */
const QUIET_CONFIG = ["-c", "core.hooksPath=/dev/null", "-c", "advice.detachedHead=false", "-c", "maintenance.auto=false", "-c", "gc.auto=0"];

function git(args: string[], env: NodeJS.ProcessEnv, url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("git", args, { env, maxBuffer: 16 * 1024 * 1024, windowsHide: true }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return reject(new InstallError("git is not installed (or not on PATH); it is needed to fetch git sources", "usage"));
      const said = stderr.trim().split("\n").filter((line) => line.trim() !== "").slice(-3).join("; ");
      reject(new InstallError(`cannot fetch ${url}: ${said || (error as Error).message}`, "failed"));
    });
  });
}
