/**
 * Small facts the docs and the repository state that drift apart from the code unless a test
 * holds them together: every command in CLI.md's command table, the "No skills found" sample as
 * `list` prints it, the `npm pack` tarball kept out of git, and the README's `ai` versions with
 * the Node each needs.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { COMMANDS } from "../src/cli/all-commands.js";
import { packageVersion } from "../src/package/skillport-version.js";
import { REPO, runCli } from "./cli/cli-process.js";
import { tempDir } from "./support/tmp.js";

const read = (file: string): string => fs.readFileSync(path.join(REPO, file), "utf8");

test("CLI.md's command table has a row for every command", () => {
  const rows = new Set([...read("docs/CLI.md").matchAll(/^\| `([a-z]+)[ `]/gm)].map((m) => m[1]!));
  for (const [name] of COMMANDS) assert.ok(rows.has(name), `docs/CLI.md's command table lacks ${name}`);
});

test("the 'No skills found' sample in CLI.md is what list prints, folder for folder", { timeout: 60_000 }, async () => {
  const sample = /```\n(No skills found\.[\s\S]*?)```/.exec(read("docs/CLI.md"));
  assert.ok(sample, "CLI.md shows list with no skills");
  // The sample's machine: HOME /home/me with an empty ~/.claude/skills, run in /home/me/src/app.
  const base = fs.realpathSync(tempDir("skillport-docs-home-"));
  const home = path.join(base, "home", "me");
  const cwd = path.join(home, "src", "app");
  fs.mkdirSync(cwd, { recursive: true });
  fs.mkdirSync(path.join(home, ".claude", "skills"), { recursive: true });
  const run = await runCli(["list"], { cwd, env: { HOME: home } });
  assert.equal(run.code, 0, run.stderr);
  assert.equal((run.stdout + run.stderr).split(home).join("/home/me"), sample[1]);
});

test("the tarball npm pack writes is ignored by git", () => {
  const tarball = `skillport-${packageVersion()}.tgz`;
  const patterns = read(".gitignore").split("\n").map((line) => line.trim()).filter((line) => line !== "" && !line.startsWith("#"));
  const matches = (pattern: string): boolean => new RegExp(`^${pattern.replace(/^\//, "").replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}$`).test(tarball);
  assert.ok(patterns.some(matches), `.gitignore has no pattern for ${tarball}`);
});

test("the README's `ai` versions say which Node each needs: ai 7 runs on Node 22 only", () => {
  const line = read("README.md").split("\n").find((l) => l.includes("npm install skillport ai"));
  assert.ok(line, "the README shows installing the AI SDK adapter");
  if (/\b7\b/.test(line)) assert.match(line, /7[^`]*Node 22/, line);
});
