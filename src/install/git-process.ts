/**
 * One run of the `git` binary for an install (SPEC §10), under bounds a hostile source cannot
 * lift: no shell (arguments are an array), a deadline after which git and everything it started
 * (ssh, a remote helper) is killed, a cap on what it may print, and a watch that may stop it
 * mid-run (the fetch's size bound). Git runs with none of the user's or the system's
 * configuration (`gitEnvironment`), so nothing a repository can name (a filter, an LFS URL, a
 * hook) reaches a program the user configured.
 */
import { spawn } from "node:child_process";
import * as os from "node:os";
import { InstallError } from "./install-error.js";

/** How long one git process may run before it is killed: a fetch that stalls never holds the install lock for ever. */
export const DEFAULT_GIT_DEADLINE_MS = 300_000;

/** The environment variable that sets that deadline, in seconds (a slow link, a big monorepo). */
export const GIT_DEADLINE_ENV = "SKILLPORT_GIT_TIMEOUT";

/** git's own names of the transports behind `https://`, `ssh://` and `git@host:path`, and `file://`. */
const ALLOWED_PROTOCOLS = "https:ssh:file";

/**
 * Variables that would point git at another repository, another configuration or another
 * attributes file than the ones this run sets up: dropped from what the caller's environment
 * passes on. (`GIT_SSH_COMMAND`, proxies and `SSH_AUTH_SOCK` pass: they say how to reach a
 * server, not what to run on the files.)
 */
const DROPPED = /^GIT_(?:CONFIG|DIR$|WORK_TREE$|INDEX_FILE$|OBJECT_DIRECTORY$|ALTERNATE_OBJECT_DIRECTORIES$|NAMESPACE$|COMMON_DIR$|CEILING_DIRECTORIES$|DISCOVERY_ACROSS_FILESYSTEM$|ATTR_|EXEC_PATH$|TEMPLATE_DIR$|REPLACE_REF_BASE$|NO_REPLACE_OBJECTS$|GRAFT_FILE$|SHALLOW_FILE$|EXTERNAL_DIFF$|TRACE)/;

/**
 * The environment every install's git runs with: the caller's, minus what names other
 * repositories or configuration, plus no system or global configuration at all (a filter, a
 * credential helper, `protocol.ext.allow` or an `includeIf` there is the user's, for the user's
 * repositories, and must not run on a stranger's files), LFS smudging off, no prompt, and only
 * the transports a SOURCE may name, whatever a lockfile's URL says.
 */
export function gitEnvironment(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) if (!DROPPED.test(key)) env[key] = value;
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_SYSTEM: os.devNull,
    GIT_CONFIG_GLOBAL: os.devNull,
    GIT_ATTR_NOSYSTEM: "1",
    GIT_LFS_SKIP_SMUDGE: "1",
    GIT_TERMINAL_PROMPT: "0",
    GCM_INTERACTIVE: "never",
    GIT_ALLOW_PROTOCOL: ALLOWED_PROTOCOLS,
  };
}

/** The deadline `env` asks for (`SKILLPORT_GIT_TIMEOUT` seconds), else the default. */
export function gitDeadlineMs(env: NodeJS.ProcessEnv): number {
  const raw = env[GIT_DEADLINE_ENV];
  if (raw === undefined || raw.trim() === "") return DEFAULT_GIT_DEADLINE_MS;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new InstallError(`${GIT_DEADLINE_ENV} must be a positive number of seconds, not ${JSON.stringify(raw)}`, "usage");
  return Math.round(seconds * 1000);
}

export interface GitRun {
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  /** What the error says could not be done (`cannot fetch <url>`). */
  failure: string;
  deadlineMs: number;
  /** Written to git's stdin, which is then closed. */
  input?: string;
  /** Most bytes of stdout kept (past it git is stopped and the run fails); ignored with `onStdout`. */
  maxOutput?: number;
  /** Streams stdout to the caller instead of collecting it. */
  onStdout?: (chunk: Buffer) => void;
  /** Asked every quarter second while git runs: a message stops git and fails the run with it. */
  watch?: () => string | null;
}

const WATCH_EVERY_MS = 250;

/**
 * Process groups of the git runs alive in this process. Each runs in a group of its own, which a
 * Ctrl-C at the terminal does not reach: when this process leaves, it ends them itself.
 */
const running = new Set<number>();
let exitHookInstalled = false;

function killRunning(): void {
  for (const pid of running) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  running.clear();
}

/** Runs git; resolves its stdout (empty when streamed), rejects with an `InstallError` saying why. */
export function runGit(run: GitRun): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // Its own process group, so the deadline kills what git started too: an ssh that hangs keeps
    // git's pipes open, and killing git alone would leave it (and this promise) waiting.
    const child = spawn("git", run.args, { env: run.env, detached: true, stdio: ["pipe", "pipe", "pipe"], windowsHide: true });
    if (!exitHookInstalled) {
      process.once("exit", killRunning);
      exitHookInstalled = true;
    }
    if (child.pid !== undefined) running.add(child.pid);
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = "";
    let stopped: string | null = null;
    const stop = (why: string): void => {
      if (stopped !== null) return;
      stopped = why;
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    const deadline = setTimeout(() => stop(`git did not finish within ${Math.round(run.deadlineMs / 1000)} s (${GIT_DEADLINE_ENV} sets the limit in seconds)`), run.deadlineMs);
    const watcher = run.watch ? setInterval(() => {
      const why = run.watch!();
      if (why !== null) stop(why);
    }, WATCH_EVERY_MS) : null;
    child.stdout.on("data", (chunk: Buffer) => {
      if (stopped !== null) return;
      if (run.onStdout) {
        try {
          run.onStdout(chunk);
        } catch (error) {
          stop((error as Error).message);
        }
        return;
      }
      size += chunk.length;
      if (size > (run.maxOutput ?? 16 * 1024 * 1024)) stop(`git printed more than ${run.maxOutput ?? 16 * 1024 * 1024} bytes`);
      else chunks.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      // Only the last lines are ever shown.
      stderr = (stderr + chunk.toString("utf8")).slice(-4096);
    });
    child.stdin.on("error", () => {
      // git ended before reading all of its input: its exit says why.
    });
    child.stdin.end(run.input ?? "");
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (child.pid !== undefined) running.delete(child.pid);
      clearTimeout(deadline);
      if (watcher) clearInterval(watcher);
      if (error.code === "ENOENT") reject(new InstallError("git is not installed (or not on PATH); it is needed to fetch git sources", "usage"));
      else reject(new InstallError(`${run.failure}: ${error.message}`, "failed"));
    });
    child.on("close", (code, signal) => {
      if (child.pid !== undefined) running.delete(child.pid);
      clearTimeout(deadline);
      if (watcher) clearInterval(watcher);
      if (stopped !== null) return reject(new InstallError(`${run.failure}: ${stopped}`, "failed"));
      if (code === 0) return resolve(Buffer.concat(chunks));
      const said = stderr.trim().split("\n").filter((line) => line.trim() !== "" && !/^warning: /.test(line)).slice(-3).join("; ");
      reject(new InstallError(`${run.failure}: ${said || `git exited with ${signal ?? code}`}`, "failed"));
    });
  });
}
