/**
 * `validate` given a repository's root (SPEC §1: a folder that holds no SKILL.md but holds skills
 * stands for each of them): it finds the skills discovery finds, nested folders included, and
 * skips what discovery skips, so what `validate` passes is what `list --root` serves.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { tempDir, writeSkill } from "../support/tmp.js";
import { jsonOf, runCli } from "./cli-process.js";

test("validate REPO_ROOT checks every skill discovery finds below it, nested folders too, and leaves out .git, node_modules and dot-folders", { timeout: 60_000 }, async () => {
  const repo = fs.realpathSync(tempDir("skillport-validate-repo-"));
  // anthropics/skills' shape: a template at the top, the skills one folder down, a category below that.
  writeSkill(repo, "template", "name: template\ndescription: A template to start from.");
  writeSkill(path.join(repo, "skills"), "pdf", "name: pdf\ndescription: Reads PDFs.");
  writeSkill(path.join(repo, "skills"), "broken", "name: Broken\ndescription: Broken on purpose.");
  writeSkill(path.join(repo, "skills", "documents"), "docx", "name: docx\ndescription: Writes Word files.");
  for (const skipped of [".git", "node_modules", ".hidden"]) writeSkill(path.join(repo, skipped), "inside", "name: Inside\ndescription: Never checked.");
  fs.writeFileSync(path.join(repo, "README.md"), "# Skills\n");

  const run = await runCli(["validate", "--json", repo]);
  assert.equal(run.code, 1, run.stderr);
  const results = jsonOf<{ valid: boolean; results: Array<{ path: string; valid: boolean }> }>(run).results;
  assert.deepEqual(
    results.map((r) => [path.relative(repo, r.path), r.valid]),
    [["skills/broken", false], ["skills/documents/docx", true], ["skills/pdf", true], ["template", true]],
  );

  const listed = await runCli(["list", "--json", "--root", repo], { env: { HOME: path.join(repo, "no-home") } });
  const names = (JSON.parse(listed.stdout) as { skills: Array<{ name: string }> }).skills.map((s) => s.name).sort();
  // The lenient loader serves `Broken` too (SPEC §1); validate is where its problems show.
  assert.deepEqual(names, ["Broken", "docx", "pdf", "template"], "what list --root serves is what validate checked");

  // Text output names each as the reference would, from the folder as given.
  const text = await runCli(["validate", "skills"], { cwd: repo });
  assert.equal(text.code, 1);
  assert.equal(
    text.stdout,
    "Validation failed for skills/broken:\n  - Skill name 'Broken' must be lowercase\n  - Directory name 'broken' must match skill name 'Broken'\nValid skill: skills/documents/docx\nValid skill: skills/pdf\n",
  );
});
