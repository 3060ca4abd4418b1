import assert from "node:assert/strict";
import { test } from "node:test";
import { jsonOf, runCli } from "./cli-process.js";
import { cliTree } from "./skill-fixtures.js";

const tree = cliTree();
const opts = { cwd: tree.cwd, env: tree.env };

test("read prints the file exactly, nothing added", async () => {
  const run = await runCli(["read", "alpha", "references/guide.md", "--root", tree.root], opts);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "# Guide\n\nRead me.\n");
});

test("read SKILL.md returns the whole file, frontmatter included", async () => {
  const run = await runCli(["read", "beta", "SKILL.md", "--root", tree.root], opts);
  assert.equal(run.code, 0);
  assert.match(run.stdout, /^---\nname: beta\n/);
});

test("read --json prints the tool's envelope", async () => {
  const run = await runCli(["read", "alpha", "references/guide.md", "--root", tree.root, "--json"], opts);
  assert.equal(run.code, 0);
  assert.deepEqual(jsonOf(run), {
    ok: true,
    error: null,
    data: { name: "alpha", status: "file_loaded", file_path: "references/guide.md", content: "# Guide\n\nRead me.\n" },
  });
});

test("a path outside the skill is refused with the tool's reason (exit 1)", async () => {
  const run = await runCli(["read", "alpha", "../beta/SKILL.md", "--root", tree.root], opts);
  assert.equal(run.code, 1);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, /^error: /);
  const json = await runCli(["read", "alpha", "../beta/SKILL.md", "--root", tree.root, "--json"], opts);
  assert.equal(json.code, 1);
  const envelope = jsonOf<{ ok: boolean; error: { code: string; reason: string } }>(json);
  assert.equal(envelope.ok, false);
  assert.equal(envelope.error.code, "skill_read_error");
  assert.equal(envelope.error.reason, "illegal_path");
});

test("a missing file and a missing skill fail with exit 1", async () => {
  const file = await runCli(["read", "alpha", "references/nope.md", "--root", tree.root], opts);
  assert.equal(file.code, 1);
  const skill = await runCli(["read", "zeta", "SKILL.md", "--root", tree.root], opts);
  assert.equal(skill.code, 1);
  assert.match(skill.stderr, /zeta/);
});
