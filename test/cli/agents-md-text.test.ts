/**
 * The words `skillport sync` writes into AGENTS.md, whole: an agent without tool calling reads
 * nothing else about skills, so each line of the block is part of the contract (and its shape
 * openskills' own). Through the real CLI, on the default folders, so the block names no path.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { writeSkill } from "../support/tmp.js";
import { jsonOf, runCli, sandbox } from "./cli-process.js";

const T = { timeout: 120_000 };

/** A project (its own repository root) whose `.agents/skills` holds `names`, and a HOME with none. */
function project(names: string[]): { cwd: string; env: Record<string, string>; file: string } {
  const box = sandbox();
  const cwd = path.join(fs.realpathSync(box.cwd), "project");
  fs.mkdirSync(path.join(cwd, ".git"), { recursive: true });
  for (const name of names) writeSkill(path.join(cwd, ".agents", "skills"), name, `name: ${name}\ndescription: ${name} does one thing.`);
  return { cwd, env: box.env, file: path.join(cwd, "AGENTS.md") };
}

function block(available: string): string {
  return [
    '<skills_system priority="1">',
    "",
    "## Available Skills",
    "",
    "<!-- SKILLS_TABLE_START -->",
    "<usage>",
    "When a task matches a skill listed below, load the skill first and follow its instructions.",
    "",
    "How to use skills:",
    "- Load one: run `skillport read <skill-name>` in your shell. It prints the skill's instructions, its base directory and the files it ships.",
    "- Read one of its files: `skillport read <skill-name> <path>`, the path relative to the skill's base directory.",
    "",
    "Usage notes:",
    "- Only use skills listed in <available_skills> below",
    "- Do not load a skill that is already loaded in your context",
    "</usage>",
    "",
    available,
    "<!-- SKILLS_TABLE_END -->",
    "",
    "</skills_system>",
    "",
  ].join("\n");
}

test("the block sync writes, word for word, with two skills; the summary counts them in the plural", T, async () => {
  const p = project(["alpha", "beta"]);
  const run = await runCli(["sync"], { cwd: p.cwd, env: p.env });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, `${p.file}: created, 2 skills\n`);
  const groups = '<available_skills>\n<skill_group label="Project">\n<skill><name>alpha</name><description>alpha does one thing.</description></skill>\n<skill><name>beta</name><description>beta does one thing.</description></skill>\n</skill_group>\n</available_skills>';
  assert.equal(fs.readFileSync(p.file, "utf8"), block(groups));
});

test("with no skills the block still holds an empty <available_skills> element", T, async () => {
  const p = project([]);
  const run = await runCli(["sync"], { cwd: p.cwd, env: p.env });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, `${p.file}: created, 0 skills\n`);
  assert.equal(fs.readFileSync(p.file, "utf8"), block("<available_skills>\n</available_skills>"));
});

test("a second sync with nothing changed leaves the file itself alone: same inode, same modification time", T, async () => {
  const p = project(["alpha"]);
  assert.equal((await runCli(["sync"], { cwd: p.cwd, env: p.env })).code, 0);
  const old = new Date(Date.now() - 3_600_000);
  fs.utimesSync(p.file, old, old);
  const before = fs.statSync(p.file);
  const second = await runCli(["sync", "--json"], { cwd: p.cwd, env: p.env });
  assert.equal(jsonOf<{ status: string }>(second).status, "unchanged");
  const after = fs.statSync(p.file);
  assert.deepEqual([after.ino, after.mtimeMs], [before.ino, before.mtimeMs]);
});

test("an unclosed <skills_system> or a table start with no end is the author's text: kept whole, the block appended after it", T, async () => {
  for (const text of ["# Notes\n\n<skills_system> is where skills go, once synced.\n", "# Notes\n\n<!-- SKILLS_TABLE_START --> marks the table.\n"]) {
    const p = project(["alpha"]);
    fs.writeFileSync(p.file, text);
    assert.equal((await runCli(["sync"], { cwd: p.cwd, env: p.env })).code, 0);
    const after = fs.readFileSync(p.file, "utf8");
    assert.ok(after.startsWith(`${text.trimEnd()}\n\n<skills_system priority="1">\n`), after);
    assert.ok(after.endsWith("</skills_system>\n"), after);
  }
});

test("the read command carries --config, quoted for the shell when the path needs it", T, async () => {
  const p = project(["alpha"]);
  fs.writeFileSync(path.join(p.cwd, "it's config.json"), "{}\n");
  const run = await runCli(["sync", "--config", "it's config.json"], { cwd: p.cwd, env: p.env });
  assert.equal(run.code, 0, run.stderr);
  const text = fs.readFileSync(p.file, "utf8");
  assert.match(text, /run `skillport read <skill-name> --config '[^`]*it'\\''s config\.json'` in your shell/);
});

test("sync --help describes the command, its FILE and --command", T, async () => {
  const run = await runCli(["sync", "--help"]);
  assert.equal(run.code, 0);
  for (const words of ["into the skills block of AGENTS.md", "the file to update (default: AGENTS.md", "how the agent runs skillport"]) {
    assert.ok(run.stdout.replace(/\s+/g, " ").includes(words), `${words}:\n${run.stdout}`);
  }
});
