import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { CORPUS, EXAMPLES, tempDir, writeSkill } from "../support/tmp.js";
import { jsonOf, runCli } from "./cli-process.js";

const root = tempDir("skillport-validate-");
const good = writeSkill(root, "good-skill", "name: good-skill\ndescription: Does a good thing when asked.");
const bad = writeSkill(root, "bad-skill", "name: Bad-Skill\ndescription: Broken on purpose.\ncolour: red");
const missing = path.join(root, "no-such-skill");
const readme = path.join(root, "README.md");
fs.writeFileSync(readme, "not a skill\n");

test("a valid skill directory prints `Valid skill: PATH` on stdout and exits 0", async () => {
  const run = await runCli(["validate", good]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, `Valid skill: ${good}\n`);
});

test("a SKILL.md path means its directory; a trailing slash is not repeated", async () => {
  const viaFile = await runCli(["validate", path.join(good, "SKILL.md")]);
  assert.equal(viaFile.code, 0, viaFile.stderr);
  assert.equal(viaFile.stdout, `Valid skill: ${good}\n`);
  const viaSlash = await runCli(["validate", `${good}/`]);
  assert.equal(viaSlash.stdout, `Valid skill: ${good}\n`);
});

test("an invalid skill lists every message in the reference validator's order and exits 1", async () => {
  const run = await runCli(["validate", bad]);
  assert.equal(run.code, 1);
  assert.equal(
    run.stdout,
    [
      `Validation failed for ${bad}:`,
      "  - Unexpected fields in frontmatter: colour. Only ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'] are allowed.",
      "  - Skill name 'Bad-Skill' must be lowercase",
      "  - Directory name 'bad-skill' must match skill name 'Bad-Skill'",
      "",
    ].join("\n"),
  );
});

test("the corpus claude-api skill fails on its over-long description", async () => {
  const dir = path.join(CORPUS, "claude-api");
  const run = await runCli(["validate", dir]);
  assert.equal(run.code, 1);
  assert.match(run.stdout, /^ {2}- Description exceeds 1024 character limit \(1068 chars\)$/m);
});

test("several paths: each is reported, and one invalid skill makes the exit 1", async () => {
  const corpusSkill = path.join(CORPUS, "mcp-builder");
  const run = await runCli(["validate", good, bad, corpusSkill]);
  assert.equal(run.code, 1);
  const lines = run.stdout.split("\n");
  assert.equal(lines[0], `Valid skill: ${good}`);
  assert.equal(lines[1], `Validation failed for ${bad}:`);
  assert.equal(lines.at(-2), `Valid skill: ${corpusSkill}`);
});

test("a path that does not exist is a path error: message on stderr, nothing on stdout, exit 2", async () => {
  const run = await runCli(["validate", missing]);
  assert.equal(run.code, 2);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, new RegExp(`Path does not exist: ${escape(missing)}`));
});

test("a bad path wins over an invalid skill for the exit code, and the other paths are still checked", async () => {
  const run = await runCli(["validate", bad, missing, good]);
  assert.equal(run.code, 2);
  assert.match(run.stdout, /Validation failed for/);
  assert.match(run.stdout, /Valid skill: /);
});

test("a file that is not SKILL.md fails as the reference fails it: `Not a directory: PATH`, exit 1", async () => {
  const run = await runCli(["validate", readme]);
  assert.equal(run.code, 1);
  assert.equal(run.stdout, `Validation failed for ${readme}:\n  - Not a directory: ${readme}\n`);
});

test("a folder of skills validates each skill in it, by name, each as the reference reports it", async () => {
  const folder = tempDir("skillport-validate-folder-");
  const one = writeSkill(folder, "b-skill", "name: b-skill\ndescription: Fine.");
  const two = writeSkill(folder, "a-skill", "name: a-skill\ndescription: Fine.\ntags: [x]");
  fs.mkdirSync(path.join(folder, "not-a-skill"));
  const run = await runCli(["validate", folder]);
  assert.equal(run.code, 1);
  assert.ok(run.stdout.startsWith(`Validation failed for ${two}:\n  - Invalid YAML in frontmatter: While scanning\n`), run.stdout);
  assert.ok(run.stdout.endsWith(`Valid skill: ${one}\n`), run.stdout);
  const empty = await runCli(["validate", path.join(folder, "not-a-skill")]);
  assert.equal(empty.stdout, `Validation failed for ${path.join(folder, "not-a-skill")}:\n  - Missing required file: SKILL.md\n`);
});

test("--json reports every path with its messages and an overall verdict", async () => {
  const run = await runCli(["validate", "--json", good, bad, missing]);
  assert.equal(run.code, 2);
  const report = jsonOf<{ valid: boolean; results: Array<{ path: string; valid: boolean; errors: string[]; pathError?: string }> }>(run);
  assert.equal(report.valid, false);
  assert.deepEqual(report.results[0], { path: good, valid: true, errors: [] });
  assert.equal(report.results[1]!.valid, false);
  assert.equal(report.results[1]!.errors.length, 3);
  assert.equal(report.results[1]!.pathError, undefined);
  assert.equal(report.results[2]!.pathError, `Path does not exist: ${missing}`);
});

test("--json of only valid skills exits 0", async () => {
  const run = await runCli(["validate", good, "--json"]);
  assert.equal(run.code, 0);
  assert.equal(jsonOf<{ valid: boolean }>(run).valid, true);
});

test("no path at all is a usage error (exit 2) with the usage on stderr", async () => {
  const run = await runCli(["validate"]);
  assert.equal(run.code, 2);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, /missing required argument 'path'/);
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

test("every bundled example skill passes the reference validator's checks (validate examples/skills/* exits 0)", async () => {
  const skills = fs.readdirSync(EXAMPLES).map((name) => path.join(EXAMPLES, name));
  assert.ok(skills.length >= 3);
  const run = await runCli(["validate", ...skills]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.equal(run.stdout, skills.map((dir) => `Valid skill: ${dir}\n`).join(""));
});
