import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
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
  assert.ok(text.includes(`run \`skillport read <skill-name> --root ${p.root}\` in your shell`), text);
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
