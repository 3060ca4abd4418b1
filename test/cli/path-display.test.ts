/**
 * A path is shown through one escaping (line breaks, ESC, bidi overrides and every other hidden
 * character written out as `\u{…}`) wherever the CLI prints it: a directory named to add lines
 * or redraw the terminal cannot forge rows of `show`, `doctor` or `validate`.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { runCli, sandbox } from "./cli-process.js";

const box = sandbox();
const root = path.join(box.cwd, "skills");
const oddName = "odd\nerror   forged [forged]\u001b[2J\u202e";
const oddDir = path.join(root, oddName);
fs.mkdirSync(path.join(oddDir, "scripts"), { recursive: true });
fs.writeFileSync(path.join(oddDir, "SKILL.md"), "---\nname: odd\ndescription: An oddly placed skill.\n---\nBody\n");
fs.writeFileSync(path.join(oddDir, "scripts", "run.sh"), "");
const opts = { cwd: box.cwd, env: box.env };
const shown = "odd\\u{a}error   forged [forged]\\u{1b}[2J\\u{202e}";

function assertNothingRaw(out: string): void {
  assert.ok(!/[\u001b\u202e]/.test(out), "no ESC or bidi override reaches the terminal");
  assert.ok(!out.split("\n").some((line) => line.startsWith("error   forged")), `no forged row:\n${out}`);
}

test("show writes out a line break, ESC and bidi override in the directory, file and resource paths", async () => {
  const run = await runCli(["show", "odd", "--root", root], opts);
  assert.equal(run.code, 0, run.stderr);
  assertNothingRaw(run.stdout);
  assert.ok(run.stdout.includes(`directory: ${path.join(root, shown)}\n`), run.stdout);
  assert.ok(run.stdout.includes(`file: ${path.join(root, shown, "SKILL.md")}\n`), run.stdout);
  assert.ok(run.stdout.includes(`  ${path.join(root, shown, "scripts", "run.sh")}\n`), run.stdout);
});

test("doctor writes out a line break, ESC and bidi override in a diagnostic's path", async () => {
  const run = await runCli(["doctor", "--root", root], opts);
  assertNothingRaw(run.stdout);
  assert.match(run.stdout, /^warning skills\/odd\\u\{a\}error {3}forged \[forged\]\\u\{1b\}\[2J\\u\{202e\}\/SKILL\.md \[name_mismatch\]$/m);
});

test("validate writes out a line break, ESC and bidi override in the path it names", async () => {
  const run = await runCli(["validate", oddDir], opts);
  assert.equal(run.code, 1);
  assertNothingRaw(run.stdout);
  assert.ok(run.stdout.startsWith(`Validation failed for ${path.join(root, shown)}:\n`), run.stdout);
});
