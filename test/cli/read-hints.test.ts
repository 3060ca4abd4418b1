/**
 * A read that names no file of the skill says which path would work: the listed file a mistyped
 * name is close to (case included), and for an absolute path inside the skill (activation lists
 * scripts that way, for running them) the relative path to read it by. Through the real CLI,
 * whose text is the `skill` tool's own.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { writeSkill } from "../support/tmp.js";
import { jsonOf, runCli, sandbox } from "./cli-process.js";

function tree(): { cwd: string; env: Record<string, string>; root: string; pdf: string } {
  const box = sandbox();
  const cwd = fs.realpathSync(box.cwd);
  const root = path.join(cwd, "skills");
  const pdf = writeSkill(root, "pdf", "name: pdf\ndescription: Fills PDF forms.", "# PDF\n\nSee forms.md; run scripts/fill.py.\n");
  fs.writeFileSync(path.join(pdf, "forms.md"), "# Forms\n");
  fs.writeFileSync(path.join(pdf, "reference.md"), "# Reference\n");
  fs.mkdirSync(path.join(pdf, "scripts"));
  fs.writeFileSync(path.join(pdf, "scripts", "fill.py"), "print('fill')\n", { mode: 0o755 });
  return { cwd, env: box.env, root, pdf };
}

test("read of a file name that differs from a listed file by case or a typo suggests that file, and a name close to none suggests nothing", { timeout: 60_000 }, async () => {
  const t = tree();
  const opts = { cwd: t.cwd, env: t.env };
  for (const [wanted, suggested] of [["FORMS.md", "forms.md"], ["form.md", "forms.md"], ["refrence.md", "reference.md"], ["scripts/fil.py", "scripts/fill.py"]] as const) {
    const run = await runCli(["read", "pdf", wanted, "--root", t.root], opts);
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stdout, "");
    assert.ok(run.stderr.includes(`no such file in this skill. Did you mean "${suggested}"`), `${wanted}: ${run.stderr}`);
  }
  const far = await runCli(["read", "pdf", "completely-unrelated.txt", "--root", t.root], opts);
  assert.equal(far.code, 1);
  assert.doesNotMatch(far.stderr, /Did you mean/);
  // The tool's envelope carries the same text, for a model.
  const json = await runCli(["read", "pdf", "FORMS.md", "--root", t.root, "--json"], opts);
  const envelope = jsonOf<{ error: { reason: string; message: string } }>(json);
  assert.equal(envelope.error.reason, "not_found");
  assert.match(envelope.error.message, /Did you mean "forms\.md"\?$/);
});

test("read given the absolute path activation lists for a script says the relative path to read it by", { timeout: 60_000 }, async () => {
  const t = tree();
  const opts = { cwd: t.cwd, env: t.env };
  const activation = await runCli(["read", "pdf", "--root", t.root], opts);
  const script = path.join(t.pdf, "scripts", "fill.py");
  assert.ok(activation.stdout.includes(script), activation.stdout);
  const run = await runCli(["read", "pdf", script, "--root", t.root], opts);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /it must be relative to the skill directory\. Read it as "scripts\/fill\.py"\./);
  const relative = await runCli(["read", "pdf", "scripts/fill.py", "--root", t.root], opts);
  assert.equal(relative.code, 0, relative.stderr);
  assert.equal(relative.stdout, "print('fill')\n");
  // An absolute path outside the skill gets the refusal alone.
  const outside = await runCli(["read", "pdf", path.join(t.cwd, "elsewhere.md"), "--root", t.root], opts);
  assert.equal(outside.code, 1);
  assert.doesNotMatch(outside.stderr, /Read it as/);
});
