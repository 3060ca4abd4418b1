/**
 * Where `skillport mcp` keeps session logs (SPEC §5.6): under the user's state directory, never
 * in the working tree, which may be a cloned repository that plants symlinks; directories 0700,
 * files 0600, and no component below the state directory followed through a symlink.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { callSkill } from "../adapters/mcp-fixtures.js";
import { eventually } from "../support/eventually.js";
import { serverCommand } from "../support/mcp-server.js";
import { realTempDir, writeSkill } from "../support/tmp.js";

interface Repo {
  /** The working directory: a repository whose `.skillport/sessions` points elsewhere. */
  cwd: string;
  /** Where the planted symlink points. */
  elsewhere: string;
  home: string;
  skills: string;
}

function plantedRepo(): Repo {
  const top = realTempDir("skillport-log-home");
  const cwd = path.join(top, "repo");
  const elsewhere = path.join(top, "elsewhere");
  const home = path.join(top, "home");
  const skills = path.join(cwd, ".agents", "skills");
  for (const dir of [cwd, elsewhere, home]) fs.mkdirSync(dir, { recursive: true });
  writeSkill(skills, "alpha", "name: alpha\ndescription: Alpha does the first thing when a task needs it.");
  fs.mkdirSync(path.join(cwd, ".skillport"));
  fs.symlinkSync(elsewhere, path.join(cwd, ".skillport", "sessions"));
  return { cwd, elsewhere, home, skills };
}

/** The environment with HOME and XDG_STATE_HOME the test's own, so nothing reaches the real home. */
function envWith(overrides: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && key !== "XDG_STATE_HOME") env[key] = value;
  for (const [key, value] of Object.entries(overrides)) if (value !== undefined) env[key] = value;
  return env;
}

/** Runs `skillport mcp` (stdio) in `cwd`, makes one activation and shuts the server down; returns its stderr. */
async function oneActivation(cwd: string, env: Record<string, string>, args: string[] = []): Promise<string> {
  const transport = new StdioClientTransport({ ...serverCommand(args), env, cwd, stderr: "pipe" });
  let stderr = "";
  transport.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "skillport-log-test", version: "1.0.0" });
  await client.connect(transport);
  const pid = transport.pid!;
  const call = await callSkill(client, { name: "alpha" });
  assert.equal(call.isError, false, call.text);
  await client.close();
  await eventually(() => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  }, "the server to exit");
  return stderr;
}

function modeOf(file: string): number {
  return fs.statSync(file).mode & 0o777;
}

test("skillport mcp writes no log through a .skillport/sessions symlink planted in the working tree", async () => {
  const repo = plantedRepo();
  const state = path.join(repo.home, "state");
  await oneActivation(repo.cwd, envWith({ HOME: repo.home, XDG_STATE_HOME: state }));
  assert.deepEqual(fs.readdirSync(repo.elsewhere), [], "nothing written where the planted link points");
  const logs = fs.readdirSync(path.join(state, "skillport", "sessions"));
  assert.equal(logs.length, 1);
  assert.match(logs[0]!, /\.jsonl$/);
});

test("logs go to $XDG_STATE_HOME/skillport/sessions, else ~/.local/state/skillport/sessions, created 0700 with files 0600", async () => {
  const repo = plantedRepo();
  const state = path.join(repo.home, "xdg-state");
  await oneActivation(repo.cwd, envWith({ HOME: repo.home, XDG_STATE_HOME: state }));
  for (const dir of [path.join(state, "skillport"), path.join(state, "skillport", "sessions")]) assert.equal(modeOf(dir), 0o700, dir);
  const [file] = fs.readdirSync(path.join(state, "skillport", "sessions"));
  assert.equal(modeOf(path.join(state, "skillport", "sessions", file!)), 0o600);

  // XDG_STATE_HOME unset, or relative (the XDG spec says to ignore it): the home's .local/state.
  await oneActivation(repo.cwd, envWith({ HOME: repo.home }));
  await oneActivation(repo.cwd, envWith({ HOME: repo.home, XDG_STATE_HOME: "relative/state" }));
  const fallback = path.join(repo.home, ".local", "state", "skillport", "sessions");
  assert.equal(fs.readdirSync(fallback).length, 2);
  for (const dir of [".local", ".local/state", ".local/state/skillport", ".local/state/skillport/sessions"]) {
    assert.equal(modeOf(path.join(repo.home, dir)), 0o700, dir);
  }
  assert.equal(fs.existsSync(path.join(repo.cwd, "relative")), false);
  assert.deepEqual(fs.readdirSync(repo.elsewhere), []);
});

test("a symlink anywhere below the state directory is refused, and the session goes on in memory", async () => {
  const repo = plantedRepo();
  const state = path.join(repo.home, "state");
  fs.mkdirSync(state);
  fs.symlinkSync(repo.elsewhere, path.join(state, "skillport"));
  const stderr = await oneActivation(repo.cwd, envWith({ HOME: repo.home, XDG_STATE_HOME: state }));
  assert.deepEqual(fs.readdirSync(repo.elsewhere), []);
  assert.match(stderr, /skillport is a symlink/);

  // A file planted as a symlink where the log will be is refused too (the id is the client's
  // session id, so the test plants the link for every name by making the directory one).
  const explicit = path.join(repo.home, "explicit");
  fs.mkdirSync(explicit);
  fs.symlinkSync(repo.elsewhere, path.join(explicit, "logs"));
  const second = await oneActivation(repo.cwd, envWith({ HOME: repo.home, XDG_STATE_HOME: state }), ["--log-dir", path.join(explicit, "logs")]);
  assert.match(second, /logs is a symlink/);
  assert.deepEqual(fs.readdirSync(repo.elsewhere), []);
});

test("skillport stats reads the same default directory", async () => {
  const repo = plantedRepo();
  const state = path.join(repo.home, "state");
  const env = envWith({ HOME: repo.home, XDG_STATE_HOME: state });
  await oneActivation(repo.cwd, env);
  const { runCli } = await import("./cli-process.js");
  const run = await runCli(["stats", "--json"], { cwd: repo.cwd, env });
  assert.equal(run.code, 0, run.stderr);
  const stats = JSON.parse(run.stdout) as { logDir: string; sessions: number; skills: Array<{ name: string; activations: number }> };
  assert.equal(stats.logDir, path.join(state, "skillport", "sessions"));
  assert.equal(stats.sessions, 1);
  assert.deepEqual(stats.skills.map((s) => [s.name, s.activations]), [["alpha", 1]]);
});
