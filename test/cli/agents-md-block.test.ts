/**
 * `skillport sync` in a file that talks about its own block: the closing tag or end marker named
 * in the text before the block is prose, not the block's end, so the prose stays as written once
 * and only the block between its own opening and closing is replaced.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { writeSkill } from "../support/tmp.js";
import { runCli, sandbox } from "./cli-process.js";

const T = { timeout: 120_000 };

function project(): { cwd: string; env: Record<string, string> } {
  const box = sandbox();
  const cwd = fs.realpathSync(box.cwd);
  writeSkill(path.join(cwd, "skills"), "alpha", "name: alpha\ndescription: Alpha does the first thing.");
  return { cwd, env: box.env };
}

async function sync(p: { cwd: string; env: Record<string, string> }): Promise<string> {
  const run = await runCli(["sync", "--root", "skills"], { cwd: p.cwd, env: p.env });
  assert.equal(run.code, 0, run.stderr);
  return fs.readFileSync(path.join(p.cwd, "AGENTS.md"), "utf8");
}

test("an AGENTS.md that names </skills_system> before its block keeps that text once, and only the block is replaced", T, async () => {
  const p = project();
  const intro = "# Agents\n\nThe skills list ends at `</skills_system>`; do not edit above it.\n\n";
  const outro = "\n\n## Style\n\nTabs.\n";
  fs.writeFileSync(path.join(p.cwd, "AGENTS.md"), `${intro}<skills_system priority="1">\nstale list\n</skills_system>${outro}`);
  const first = await sync(p);
  assert.ok(first.startsWith(`${intro}<skills_system priority="1">\n\n## Available Skills`), first);
  assert.ok(first.endsWith(`</skills_system>${outro}`), first);
  assert.equal(first.split("do not edit above it").length, 2, `the intro once:\n${first}`);
  assert.equal(first.split("<skills_system").length, 2, `one block:\n${first}`);
  assert.equal(first.includes("stale list"), false, first);
  assert.equal(await sync(p), first, "a second run changes nothing");
});

test("an AGENTS.md that names the table's end marker before its own table keeps that text once, and only the table is replaced", T, async () => {
  const p = project();
  const intro = "# Agents\n\nskillport writes up to <!-- SKILLS_TABLE_END --> below.\n\n";
  const outro = "\n\nMore notes.\n";
  fs.writeFileSync(path.join(p.cwd, "AGENTS.md"), `${intro}<!-- SKILLS_TABLE_START -->\nstale table\n<!-- SKILLS_TABLE_END -->${outro}`);
  const first = await sync(p);
  assert.ok(first.startsWith(`${intro}<!-- SKILLS_TABLE_START -->\n<usage>`), first);
  assert.ok(first.endsWith(`</available_skills>\n<!-- SKILLS_TABLE_END -->${outro}`), first);
  assert.equal(first.split("skillport writes up to").length, 2, `the intro once:\n${first}`);
  assert.equal(first.includes("stale table"), false, first);
  assert.equal(await sync(p), first, "a second run changes nothing");
});
