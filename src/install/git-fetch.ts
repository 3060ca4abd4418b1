/**
 * Fetching one commit of a git source (SPEC §10). Git runs as the `git` binary, never through a
 * shell (git-process.ts: arguments an array, anything the user typed after `--`, no prompt, no
 * system or global configuration, a deadline on every process). The fetch is shallow and
 * partial: one commit, its trees, no tags, no submodules, no blobs (`--filter=blob:none`); then
 * only the blobs of the skills asked for are fetched and written out raw, bounded as they are
 * (git-tree.ts), never checked out, so no filter, hook or attribute of the repository runs. While
 * git fetches, what it has stored is measured, and past `MAX_FETCHED_BYTES` it is stopped. It all
 * happens in a temporary folder that is removed when the work on it ends, however it ends:
 * returned, thrown, or the process leaving on a signal the CLI turns into an exit.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { InstallError } from "./install-error.js";
import { gitDeadlineMs, gitEnvironment, runGit } from "./git-process.js";
import { boundBlobs, MAX_FETCHED_BYTES, parseTree, planTree, TreeWriter, type TreeSelection } from "./git-tree.js";

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
  /** The environment git runs with, less the configuration `gitEnvironment` takes away; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Which skills are written out; default every skill of the whole tree. */
  select?: TreeSelection;
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
 * Fetches `ref` (a branch, tag or commit; null for the default branch) of `url`, writes the skills
 * `options.select` asks for into a temporary folder, runs `work` on it, and removes the folder.
 */
export async function withFetchedCommit<T>(url: string, ref: string | null, options: FetchOptions, work: (fetched: FetchedCommit) => Promise<T>): Promise<T> {
  if (!exitHookInstalled) {
    process.once("exit", removeLive);
    exitHookInstalled = true;
  }
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), "skillport-fetch-"));
  live.add(temp);
  try {
    const gitDir = path.join(temp, "git");
    // The folder the files are written to is named as the checkout was, so a source that is
    // itself a skill keeps the name it had.
    const tree = path.join(temp, "repo");
    const env = gitEnvironment(options.env ?? process.env);
    const deadlineMs = gitDeadlineMs(options.env ?? process.env);
    const failure = `cannot fetch ${url}`;
    const git = (args: string[], extra: { input?: string; maxOutput?: number; onStdout?: (chunk: Buffer) => void; bounded?: boolean } = {}): Promise<Buffer> =>
      runGit({
        args: ["--git-dir", gitDir, ...QUIET_CONFIG, ...args],
        env,
        failure,
        deadlineMs,
        ...(extra.input !== undefined ? { input: extra.input } : {}),
        ...(extra.maxOutput !== undefined ? { maxOutput: extra.maxOutput } : {}),
        ...(extra.onStdout ? { onStdout: extra.onStdout } : {}),
        ...(extra.bounded ? { watch: () => storedPast(gitDir, MAX_FETCHED_BYTES) } : {}),
      });
    options.onProgress?.(`fetching ${url}${ref ? ` (${ref})` : ""}`);
    // An empty template: no sample hooks, nothing but what git needs.
    await runGit({ args: ["init", "--quiet", "--bare", "--template=", gitDir], env, failure, deadlineMs });
    await git(["remote", "add", "--", "origin", url]);
    const server = uploadPackOf(url);
    await git(["fetch", "--quiet", ...server, "--depth=1", "--filter=blob:none", "--no-tags", "--no-recurse-submodules", "--", "origin", ref ?? "HEAD"], { bounded: true });
    const commit = (await git(["rev-parse", "--verify", "--quiet", "FETCH_HEAD^{commit}"])).toString("utf8").trim();
    if (!/^[0-9a-f]{40,64}$/.test(commit)) throw new InstallError(`${url}: ${ref ?? "HEAD"} is not a commit`, "failed");

    const entries = parseTree(await git(["ls-tree", "-r", "-t", "-z", "--full-tree", commit], { maxOutput: 64 * 1024 * 1024 }));
    const plan = planTree(entries, options.select ?? { inside: "", names: null }, path.basename(tree));
    const oids = [...new Set(plan.blobs.map((blob) => blob.oid))];
    if (oids.length > 0) {
      // Only the blobs of the skills asked for; the server sends nothing else.
      await git(["-c", "fetch.negotiationAlgorithm=noop", "fetch", "--quiet", ...server, "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules", "--filter=blob:none", "--stdin", "origin"], { input: `${oids.join("\n")}\n`, bounded: true });
    }
    const sizes = parseSizes(oids.length === 0 ? Buffer.alloc(0) : await git(["cat-file", "--batch-check"], { input: `${oids.join("\n")}\n`, maxOutput: oids.length * 128 + 1024, bounded: true }));
    const { real } = boundBlobs(plan, sizes);
    fs.mkdirSync(tree, { mode: 0o755 });
    const writer = new TreeWriter(tree, plan, real, sizes);
    if (writer.oids.length > 0) await git(["cat-file", "--batch"], { input: `${writer.oids.join("\n")}\n`, onStdout: (chunk) => writer.write(chunk), bounded: true });
    if (!writer.finished()) throw new InstallError(`${failure}: git did not give every file of the commit`, "failed");
    options.onProgress?.(`fetched ${url} at ${commit.slice(0, 12)}`);
    return await work({ dir: tree, commit });
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
    live.delete(temp);
  }
}

/**
 * For a `file://` source git starts the serving side itself, with that repository's own
 * configuration, which rarely allows partial fetches: the filter would be ignored and every blob
 * sent. The serving side is told to allow them (a fixed command, nothing of the URL in it). A
 * server across the network decides for itself; the size bound holds either way.
 */
function uploadPackOf(url: string): string[] {
  return url.startsWith("file://") ? ["--upload-pack=git -c uploadpack.allowFilter=true -c uploadpack.allowAnySHA1InWant=true upload-pack"] : [];
}

/** `<oid> blob <size>` lines; a line saying `missing` leaves its object out (the writer then says so). */
function parseSizes(output: Buffer): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const line of output.toString("latin1").split("\n")) {
    const [oid, type, size] = line.split(" ");
    if (oid && type === "blob" && size !== undefined && /^\d+$/.test(size)) sizes.set(oid, Number(size));
  }
  return sizes;
}

/** Past `limit` bytes stored under the repository's objects: the message that stops git, else null. */
function storedPast(gitDir: string, limit: number): string | null {
  let total = 0;
  const walk = (dir: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else {
        try {
          total += fs.lstatSync(full).size;
        } catch {
          // Renamed or removed by git meanwhile.
        }
      }
    }
  };
  walk(path.join(gitDir, "objects"));
  return total > limit ? `the source sent more than ${limit} bytes; it is refused before it fills the disk` : null;
}

/**
 * No hooks, no attributes file, no LFS filter, no advice text, no background maintenance, and
 * protocol v2 (which asks for objects by name). Filters and hooks the repository names are never
 * reached anyway: nothing is checked out.
 */
const QUIET_CONFIG = [
  "-c", "core.hooksPath=/dev/null",
  "-c", "core.attributesFile=/dev/null",
  "-c", "core.fsmonitor=false",
  "-c", "filter.lfs.smudge=",
  "-c", "filter.lfs.process=",
  "-c", "filter.lfs.required=false",
  "-c", "advice.detachedHead=false",
  "-c", "maintenance.auto=false",
  "-c", "gc.auto=0",
  "-c", "protocol.version=2",
];
