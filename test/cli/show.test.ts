import assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";
import { jsonOf, runCli } from "./cli-process.js";
import { cliTree } from "./skill-fixtures.js";
import { tempDir, writeSkill } from "../support/tmp.js";

const tree = cliTree();
const opts = { cwd: tree.cwd, env: tree.env };

test("show prints the frontmatter fields, where the skill lives, and its resources", async () => {
  const run = await runCli(["show", "alpha", "--root", tree.root], opts);
  assert.equal(run.code, 0, run.stderr);
  const out = run.stdout;
  assert.match(out, /^name: alpha$/m);
  assert.match(out, /^description: Alpha does the first thing\.$/m);
  assert.match(out, /^license: MIT$/m);
  assert.match(out, /^allowed-tools: Bash, Read$/m);
  assert.match(out, /^metadata: \{"author":"someone"\}$/m);
  assert.ok(out.includes(`directory: ${tree.alphaDir}\n`));
  assert.match(out, /^availability: available$/m);
  assert.match(out, /^diagnostics: none$/m);
  assert.ok(out.includes(`  ${path.join(tree.alphaDir, "scripts", "run.sh")}\n`), out);
  assert.ok(out.includes("  references/guide.md\n"));
});

test("show --json has the fields, diagnostics and resource listing", async () => {
  const run = await runCli(["show", "alpha", "--root", tree.root, "--root", tree.shadowRoot, "--json"], opts);
  assert.equal(run.code, 0);
  const details = jsonOf<{
    name: string;
    dir: string;
    skillFile: string;
    modelInvocable: boolean;
    frontmatter: Record<string, unknown>;
    availability: { status: string };
    diagnostics: Array<{ code: string; severity: string }>;
    resources: { scripts: string[]; files: string[]; truncated: boolean };
  }>(run);
  assert.equal(details.name, "alpha");
  assert.equal(details.skillFile, path.join(tree.alphaDir, "SKILL.md"));
  assert.equal(details.modelInvocable, true);
  assert.deepEqual(details.frontmatter["allowed-tools"], ["Bash", "Read"]);
  assert.equal(details.availability.status, "available");
  assert.deepEqual(details.resources, {
    scripts: [path.join(tree.alphaDir, "scripts", "run.sh")],
    files: ["references/guide.md"],
    truncated: false,
  });
  // The copy in the second root lost the name collision; show says so about the winner.
  assert.ok(details.diagnostics.some((d) => d.code === "shadowed"), JSON.stringify(details.diagnostics));
});

test("show marks a model-hidden skill and an unavailable one", async () => {
  const hidden = await runCli(["show", "hidden", "--root", tree.root], opts);
  assert.equal(hidden.code, 0);
  assert.match(hidden.stdout, /^disable-model-invocation: true$/m);
  assert.match(hidden.stdout, /^model: hidden/m);
  const gated = await runCli(["show", "gated", "--root", tree.root], opts);
  assert.match(gated.stdout, /^requirements: env SKILLPORT_TEST_NEVER_SET$/m);
  assert.match(gated.stdout, /^availability: unavailable: missing .*SKILLPORT_TEST_NEVER_SET/m);
});

test("show of a misspelt name fails (exit 1) and suggests the close one", async () => {
  const run = await runCli(["show", "alpah", "--root", tree.root], opts);
  assert.equal(run.code, 1);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, /skill 'alpah' not found\. Did you mean: alpha\?/);
});

test("show of a skill that failed to load gives the reason with its file", async () => {
  const run = await runCli(["show", "broken", "--root", tree.root], opts);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /^error: skill 'broken' could not be loaded: [^\n]+\n$/);
  assert.ok(run.stderr.includes(tree.brokenFile), run.stderr);
});

test("show needs a name (usage error, exit 2)", async () => {
  const run = await runCli(["show", "--root", tree.root], opts);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /missing required argument 'name'/);
});

test("show writes a field's terminal controls as escapes, never to the terminal itself", async () => {
  const dir = tempDir("skillport-show-");
  writeSkill(dir, "ansi", 'name: ansi\ndescription: plain\nlicense: "MIT\\e[2J"\ncompatibility: "c\\e]0;TITLE\\a"');
  const run = await runCli(["show", "ansi", "--root", dir], opts);
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotMatch(run.stdout, /\u001b|\u0007/);
  assert.match(run.stdout, /^license: MIT\\u\{1b\}\[2J$/m);
  assert.match(run.stdout, /^compatibility: c\\u\{1b\}\]0;TITLE\\u\{7\}$/m);
});
