/**
 * Running part of the suite as an unprivileged user, from any checkout location.
 *
 * File modes do not bind root, so tests about unreadable files run a child as `nobody` when the
 * suite runs as root (as CI does). That child must reach its code: a checkout under a 0700
 * directory (`/root/...`, a CI workspace) is closed to it, and so may be the node binary. So the
 * child's entry module is bundled with everything it imports into one file in a fresh temp
 * directory anyone can read, and run with a node binary the user can execute (a copy beside the
 * bundle when the test runner's own is out of reach). No tsx, no node_modules: nothing else to reach.
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { tempDir } from "./tmp.js";

export const NOBODY = 65534;

export interface UnprivilegedChild {
  /** Runs the bundled entry as `nobody` with these arguments and options. */
  run(args: string[], options?: { cwd?: string; env?: Record<string, string>; timeout?: number }): SpawnSyncReturns<string>;
  /** A directory the child may write in (its TMPDIR). */
  scratch: string;
}

/**
 * Why this process cannot run a child as another user, or null when it can: it must be root on a
 * system where a process can switch user.
 */
export function cannotSwitchUser(): string | null {
  if (process.getuid?.() !== 0) return "this process is not root, so file modes already bind it";
  const probe = spawnSync("/bin/sh", ["-c", "exit 0"], { uid: NOBODY, gid: NOBODY });
  if (probe.error) return `cannot start a process as uid ${NOBODY}: ${probe.error.message}`;
  return null;
}

/** Bundles `entry` (a module of this suite) for a child running as `nobody`. */
export async function unprivilegedChild(entry: string): Promise<UnprivilegedChild> {
  const dir = tempDir("skillport-unprivileged-");
  fs.chmodSync(dir, 0o755);
  const scratch = path.join(dir, "scratch");
  fs.mkdirSync(scratch);
  fs.chmodSync(scratch, 0o777);
  const bundle = path.join(dir, "entry.mjs");
  const esbuild = await import("esbuild");
  await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: bundle,
    logLevel: "silent",
    // CommonJS dependencies inside an ES module bundle still call require.
    banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
  });
  fs.chmodSync(bundle, 0o644);
  const node = reachableNode(dir);
  return {
    scratch,
    run(args, options = {}) {
      return spawnSync(node, [bundle, ...args], {
        uid: NOBODY,
        gid: NOBODY,
        cwd: options.cwd ?? dir,
        env: { PATH: process.env.PATH ?? "", HOME: scratch, TMPDIR: scratch, ...(options.env ?? {}) },
        encoding: "utf8",
        timeout: options.timeout ?? 60_000,
      });
    },
  };
}

/** The test runner's node when `nobody` can run it, else a copy of it in `dir`. */
function reachableNode(dir: string): string {
  const probe = spawnSync(process.execPath, ["-e", ""], { uid: NOBODY, gid: NOBODY });
  if (!probe.error && probe.status === 0) return process.execPath;
  const copy = path.join(dir, "node");
  fs.copyFileSync(process.execPath, copy);
  fs.chmodSync(copy, 0o755);
  return copy;
}
