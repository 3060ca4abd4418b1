/**
 * Runs the real CLI as a child process, from source through tsx, in a working directory and
 * with a HOME the test controls, so the default skill sources never pick up the machine's own.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { tempDir } from "../support/tmp.js";

export const REPO = path.resolve(import.meta.dirname, "../..");
export const CLI_MAIN = path.join(REPO, "src/cli/main.ts");
export const TSX_LOADER = import.meta.resolve("tsx");

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  cwd?: string;
  env?: Record<string, string>;
  input?: string;
  /** How long the command may run before it is killed and the run fails naming it (default 180 s). */
  boundMs?: number;
}

// A bound against a hang, not a timing claim: it only turns a CLI that never exits into a
// failure that names the command, long before the runner's per-file timeout would.
const DEFAULT_BOUND_MS = 180_000;

/**
 * HOME, XDG_STATE_HOME and XDG_CACHE_HOME inside `home`: the CLI keeps session logs under the
 * state directory and its parse cache under the cache directory, and a test must never write to
 * the real ones, whatever the runner's own environment says.
 */
export function homeEnv(home: string): { HOME: string; XDG_STATE_HOME: string; XDG_CACHE_HOME: string } {
  return { HOME: home, XDG_STATE_HOME: path.join(home, ".local", "state"), XDG_CACHE_HOME: path.join(home, ".cache") };
}

/** A fresh working directory with an empty HOME inside it. */
export function sandbox(): { cwd: string; home: string; env: Record<string, string> } {
  const cwd = tempDir("skillport-cli-");
  const home = path.join(cwd, "home");
  fs.mkdirSync(home);
  return { cwd, home, env: homeEnv(home) };
}

export function spawnCli(args: string[], options: CliRunOptions = {}): ChildProcess {
  return spawn(process.execPath, ["--import", TSX_LOADER, CLI_MAIN, ...args], {
    cwd: options.cwd ?? REPO,
    // A HOME of the test's own brings a state directory inside it, whatever the runner's says.
    env: { ...process.env, NO_COLOR: "1", ...(options.env?.HOME ? homeEnv(options.env.HOME) : {}), ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
}

export function runCli(args: string[], options: CliRunOptions = {}): Promise<CliRun> {
  const child = spawnCli(args, options);
  child.stdin!.end(options.input ?? "");
  return collectBounded(child, `skillport ${args.join(" ")}`, options.boundMs ?? DEFAULT_BOUND_MS);
}

/**
 * A child's exit code and whole output, killed and reported (with what it printed) if it has not
 * exited within `boundMs`: no run of another program can hang a test either.
 */
export function collectBounded(child: ChildProcess, what: string, boundMs: number): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${what} did not exit within ${boundMs / 1000} s\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, boundMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Parses stdout as JSON, failing with the whole run in the message when it is not. */
export function jsonOf<T = unknown>(run: CliRun): T {
  try {
    return JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(`stdout is not JSON (exit ${run.code}):\n${run.stdout}\nstderr:\n${run.stderr}`);
  }
}
