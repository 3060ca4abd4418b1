import assert from "node:assert/strict";
import { test } from "node:test";
import { createSkillRuntime } from "../../src/runtime.js";
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

test("read NAME without a path prints the activation exactly as the skill tool renders it: the body with {baseDir} filled in, the skill directory and its files", async () => {
  const run = await runCli(["read", "alpha", "--root", tree.root], opts);
  assert.equal(run.code, 0, run.stderr);
  const runtime = await createSkillRuntime({ sources: [{ path: tree.root, origin: "global" }], env: {} });
  try {
    const session = runtime.session({ log: false });
    const { text } = await session.invoke({ name: "alpha" });
    session.close();
    assert.equal(run.stdout, `${text}\n`);
  } finally {
    await runtime.close();
  }
  assert.ok(run.stdout.includes(`Run ${tree.alphaDir}/scripts/run.sh.`), "the base directory is substituted");
  assert.ok(!run.stdout.includes("{baseDir}"));
  assert.ok(run.stdout.includes(`Skill directory: ${tree.alphaDir}\n`));
  assert.match(run.stdout, /<skill_resources>\n(?: {2}<file>.*<\/file>\n)*? {2}<file>references\/guide\.md<\/file>/);
});

test("read NAME --json prints the activation envelope; a skill hidden from the model or unusable here is refused as through the tool", async () => {
  const json = jsonOf<{ ok: boolean; data: { status: string; name: string } }>(await runCli(["read", "alpha", "--root", tree.root, "--json"], opts));
  assert.deepEqual([json.ok, json.data.status, json.data.name], [true, "loaded", "alpha"]);
  const hidden = await runCli(["read", "hidden", "--root", tree.root], opts);
  assert.equal(hidden.code, 1);
  assert.equal(hidden.stdout, "");
});

test("an unknown skill is explained to a person, pointing at `skillport list`, not at the tool's no-argument call", async () => {
  const run = await runCli(["read", "zzz-not-here", "--root", tree.root], opts);
  assert.equal(run.code, 1);
  assert.equal(run.stderr, "error: skill 'zzz-not-here' not found. Run `skillport list` to see the available names.\n");
  const close = await runCli(["read", "alpah", "--root", tree.root], opts);
  assert.match(close.stderr, /^error: skill 'alpah' not found\. Did you mean: alpha\?\n$/);
  // The envelope, for machines, is the tool's own.
  const json = jsonOf<{ error: { code: string } }>(await runCli(["read", "zzz-not-here", "--root", tree.root, "--json"], opts));
  assert.equal(json.error.code, "skill_not_found");
});
