import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { writeSkill } from "../support/tmp.js";
import { jsonOf, runCli, sandbox } from "./cli-process.js";

function project(): { cwd: string; env: Record<string, string>; root: string } {
  const box = sandbox();
  const cwd = fs.realpathSync(box.cwd);
  const root = path.join(cwd, "skills");
  writeSkill(root, "alpha", "name: alpha\ndescription: Alpha does <the> first thing.");
  writeSkill(root, "hidden", "name: hidden\ndescription: Only people start this one.\ndisable-model-invocation: true");
  return { cwd, env: box.env, root };
}

const BLOCK = /<skills_system priority="1">[\s\S]*<\/skills_system>/;

test("sync creates AGENTS.md in the working directory with the catalog and how to load a skill from the shell", { timeout: 120_000 }, async () => {
  const p = project();
  const run = await runCli(["sync", "--root", "skills"], { cwd: p.cwd, env: p.env });
  assert.equal(run.code, 0, run.stderr);
  const file = path.join(p.cwd, "AGENTS.md");
  assert.equal(run.stdout, `${file}: created, 1 skill\n`);
  const text = fs.readFileSync(file, "utf8");
  assert.match(text, /^<skills_system priority="1">\n\n## Available Skills\n\n<!-- SKILLS_TABLE_START -->\n<usage>\n/);
  assert.ok(text.includes("run `skillport read <skill-name> --root skills` in your shell"), text);
  assert.ok(text.includes("<skill><name>alpha</name><description>Alpha does &lt;the&gt; first thing.</description></skill>"), text);
  assert.ok(!text.includes("hidden"), "a skill hidden from the model is not offered here either");
  assert.match(text, /<\/available_skills>\n<!-- SKILLS_TABLE_END -->\n\n<\/skills_system>\n$/);
});

test("sync replaces its own block and nothing else, and a second run changes nothing", { timeout: 120_000 }, async () => {
  const p = project();
  const file = path.join(p.cwd, "AGENTS.md");
  const before = "# Agents\n\nBuild with `make`.\n\n<skills_system priority=\"1\">\nstale list\n</skills_system>\n\n## Style\n\nTabs, not spaces.\n";
  fs.writeFileSync(file, before, { mode: 0o640 });
  fs.chmodSync(file, 0o640);
  const first = await runCli(["sync", "--root", "skills", "--json"], { cwd: p.cwd, env: p.env });
  assert.equal(first.code, 0, first.stderr);
  assert.deepEqual(jsonOf(first), { file, status: "updated", skills: ["alpha"] });
  const after = fs.readFileSync(file, "utf8");
  assert.ok(after.startsWith("# Agents\n\nBuild with `make`.\n\n<skills_system priority=\"1\">\n\n## Available Skills"), after);
  assert.ok(after.endsWith("</skills_system>\n\n## Style\n\nTabs, not spaces.\n"), after);
  assert.ok(!after.includes("stale list"));
  assert.equal(fs.statSync(file).mode & 0o777, 0o640, "the file keeps its mode");

  const second = await runCli(["sync", "--root", "skills", "--json"], { cwd: p.cwd, env: p.env });
  assert.equal(jsonOf<{ status: string }>(second).status, "unchanged");
  assert.equal(fs.readFileSync(file, "utf8"), after);
  assert.deepEqual(fs.readdirSync(p.cwd).filter((name) => name.includes("AGENTS")), ["AGENTS.md"], "no temporary file is left");
});

test("sync appends a block to a file that has none, fills an openskills table between its markers, and writes the FILE it is given", { timeout: 120_000 }, async () => {
  const p = project();
  const plain = path.join(p.cwd, "CLAUDE.md");
  fs.writeFileSync(plain, "# Notes\n\nKeep it short.\n\n\n");
  assert.equal((await runCli(["sync", "CLAUDE.md", "--root", "skills"], { cwd: p.cwd, env: p.env })).code, 0);
  const appended = fs.readFileSync(plain, "utf8");
  assert.ok(appended.startsWith("# Notes\n\nKeep it short.\n\n<skills_system"), appended);
  assert.equal(appended.match(BLOCK)?.length, 1);

  // An author who wrapped the table markers in their own text keeps it; only the table is replaced.
  const marked = path.join(p.cwd, "docs", "AGENTS.md");
  fs.mkdirSync(path.dirname(marked));
  fs.writeFileSync(marked, "## Skills\n\n<!-- SKILLS_TABLE_START -->\n<available_skills>\nold\n</available_skills>\n<!-- SKILLS_TABLE_END -->\n\nThe end.\n");
  assert.equal((await runCli(["sync", "docs/AGENTS.md", "--root", "skills"], { cwd: p.cwd, env: p.env })).code, 0);
  const table = fs.readFileSync(marked, "utf8");
  assert.ok(table.startsWith("## Skills\n\n<!-- SKILLS_TABLE_START -->\n<usage>\n"), table);
  assert.ok(table.endsWith("</available_skills>\n<!-- SKILLS_TABLE_END -->\n\nThe end.\n"), table);
  assert.ok(!table.includes("<skills_system") && !table.includes("\nold\n"));
});

test("sync through a link replaces the file the link names and keeps the link", { timeout: 120_000 }, async () => {
  const p = project();
  const real = path.join(p.cwd, "shared-agents.md");
  fs.writeFileSync(real, "# Shared\n");
  fs.symlinkSync(real, path.join(p.cwd, "AGENTS.md"));
  assert.equal((await runCli(["sync", "--root", "skills"], { cwd: p.cwd, env: p.env })).code, 0);
  assert.ok(fs.lstatSync(path.join(p.cwd, "AGENTS.md")).isSymbolicLink());
  assert.match(fs.readFileSync(real, "utf8"), /^# Shared\n\n<skills_system/);
});

test("sync writes the folders of the read command relative to the file's own folder, never as an absolute path", { timeout: 120_000 }, async () => {
  const p = project();
  fs.mkdirSync(path.join(p.cwd, "docs"));
  const top = await runCli(["sync", "--root", "skills"], { cwd: p.cwd, env: p.env });
  assert.equal(top.code, 0, top.stderr);
  const topText = fs.readFileSync(path.join(p.cwd, "AGENTS.md"), "utf8");
  assert.ok(topText.includes("`skillport read <skill-name> --root skills`"), topText);
  assert.ok(!topText.includes(p.cwd), "no absolute path of this checkout");

  const nested = await runCli(["sync", "docs/AGENTS.md", "--root", "skills", "--root", "."], { cwd: p.cwd, env: p.env });
  assert.equal(nested.code, 0, nested.stderr);
  const nestedText = fs.readFileSync(path.join(p.cwd, "docs", "AGENTS.md"), "utf8");
  assert.ok(nestedText.includes("`skillport read <skill-name> --root ../skills --root ..`"), nestedText);
  assert.ok(!nestedText.includes(p.cwd), nestedText);
});

test("sync leaves out of AGENTS.md a skill whose name a shell would run as code or take as an option, and says so on stderr", { timeout: 120_000 }, async () => {
  const p = project();
  const hostile = ["a; touch X #", "b$(touch Y)", "c`id`", "--config=/tmp/evil.json", "-rf"];
  hostile.forEach((name, i) => writeSkill(p.root, `hostile-${i}`, `name: ${JSON.stringify(name)}\ndescription: Looks harmless.`));
  writeSkill(p.root, "café-tools", "name: café-tools\ndescription: Unicode letters are the standard's letters.");
  const run = await runCli(["sync", "--root", "skills", "--json"], { cwd: p.cwd, env: p.env });
  assert.equal(run.code, 0, run.stderr);
  const report = jsonOf<{ skills: string[]; leftOut: string[] }>(run);
  assert.deepEqual(report.skills.sort(), ["alpha", "café-tools"]);
  assert.deepEqual(report.leftOut.sort(), [...hostile].sort());
  const text = fs.readFileSync(path.join(p.cwd, "AGENTS.md"), "utf8");
  for (const name of hostile) assert.ok(!text.includes(name.replace(/</g, "&lt;")), `${name} is not in the catalog`);
  for (const name of hostile) assert.ok(run.stderr.includes(JSON.stringify(name)), run.stderr);
});

test("read's suggestions for a misspelt name never offer a name a shell would run as code or take as an option", { timeout: 120_000 }, async () => {
  const p = project();
  writeSkill(p.root, "hostile", `name: "deploy;id"\ndescription: Looks harmless.`);
  writeSkill(p.root, "option", `name: "--deploy"\ndescription: Looks harmless.`);
  writeSkill(p.root, "deploys", "name: deploys\ndescription: A near name.");
  const run = await runCli(["read", "deploy", "--root", "skills"], { cwd: p.cwd, env: p.env });
  assert.equal(run.code, 1);
  assert.match(run.stderr, /Did you mean: deploys\?/);
  assert.ok(!run.stderr.includes(";id") && !run.stderr.includes("--deploy"), run.stderr);
});

/** The pid the next child process of this test is likely to get: pids are handed out in order. */
function nextPid(): number {
  const probe = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(probe.stdout);
}

test("sync never writes through a temporary name a repository planted as a link, and the file outside stays untouched", { timeout: 120_000 }, async () => {
  const p = project();
  const victim = path.join(p.cwd, "home", ".bashrc");
  fs.writeFileSync(victim, "# the user's own shell setup\n");
  fs.writeFileSync(path.join(p.cwd, "AGENTS.md"), "echo owned\n");
  // What a hostile clone can commit: a link under every name the old temporary could take.
  const from = nextPid();
  for (let pid = from; pid < from + 3000; pid++) fs.symlinkSync(victim, path.join(p.cwd, `.AGENTS.md.${pid}.tmp`));
  const run = await runCli(["sync", "--root", "skills"], { cwd: p.cwd, env: p.env });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(fs.readFileSync(victim, "utf8"), "# the user's own shell setup\n");
  assert.ok(fs.lstatSync(path.join(p.cwd, "AGENTS.md")).isFile(), "AGENTS.md is a plain file, not a link");
  assert.match(fs.readFileSync(path.join(p.cwd, "AGENTS.md"), "utf8"), /^echo owned\n\n<skills_system/);
  assert.equal(fs.readdirSync(p.cwd).filter((name) => name.startsWith(".AGENTS.md.")).length, 3000, "the planted links are left alone, none replaced");
});

test("sync refuses an AGENTS.md that is a link leading out of the project, and leaves the file it names untouched", { timeout: 120_000 }, async () => {
  const p = project();
  fs.mkdirSync(path.join(p.cwd, ".git"));
  const globalFile = path.join(p.cwd, "home", ".codex", "AGENTS.md");
  fs.mkdirSync(path.dirname(globalFile), { recursive: true });
  fs.writeFileSync(globalFile, "# my global instructions\n");
  const repo = path.join(p.cwd, "clone");
  fs.mkdirSync(path.join(repo, ".git"), { recursive: true });
  fs.symlinkSync(path.relative(repo, globalFile), path.join(repo, "AGENTS.md"));
  fs.symlinkSync(path.join(p.root), path.join(repo, "skills"));
  const run = await runCli(["sync", "--root", "skills"], { cwd: repo, env: p.env });
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /refusing to write .*AGENTS\.md: it is a link to .*outside/);
  assert.equal(fs.readFileSync(globalFile, "utf8"), "# my global instructions\n");
  assert.ok(fs.lstatSync(path.join(repo, "AGENTS.md")).isSymbolicLink(), "the link is left as it was");
  // A folder on the way that leads out is refused the same way.
  fs.symlinkSync(path.dirname(globalFile), path.join(repo, "docs"));
  const nested = await runCli(["sync", "docs/AGENTS.md", "--root", "skills"], { cwd: repo, env: p.env });
  assert.equal(nested.code, 1, nested.stderr);
  assert.equal(fs.readFileSync(globalFile, "utf8"), "# my global instructions\n");
});
