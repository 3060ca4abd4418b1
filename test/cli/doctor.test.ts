import assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";
import { jsonOf, runCli } from "./cli-process.js";
import { cliTree } from "./skill-fixtures.js";

const tree = cliTree();
const opts = { cwd: tree.cwd, env: tree.env };

interface DoctorJson {
  skills: number;
  errors: number;
  warnings: number;
  diagnostics: Array<{ path: string; severity: string; code: string; message: string }>;
}

test("doctor reports a broken skill with its file and exits 1", async () => {
  const run = await runCli(["doctor", "--root", tree.root], opts);
  assert.equal(run.code, 1);
  const relative = path.relative(tree.cwd, tree.brokenFile);
  assert.match(run.stdout, new RegExp(`^error +${relative.replace(/[.]/g, "\\.")} \\[`, "m"));
  assert.match(run.stdout, /^4 skills loaded; [1-9]\d* errors?, [1-9]\d* warnings?$/m);
});

test("doctor --json lists every diagnostic: the broken skill, the shadowed copy, unmet requirements", async () => {
  const run = await runCli(["doctor", "--root", tree.root, "--root", tree.shadowRoot, "--json"], opts);
  assert.equal(run.code, 1);
  const report = jsonOf<DoctorJson>(run);
  assert.equal(report.skills, 4);
  assert.equal(report.errors, report.diagnostics.filter((d) => d.severity === "error").length);
  assert.equal(report.warnings, report.diagnostics.length - report.errors);
  const broken = report.diagnostics.filter((d) => d.path === tree.brokenFile);
  assert.ok(broken.some((d) => d.severity === "error"), JSON.stringify(report.diagnostics));
  const shadowed = report.diagnostics.find((d) => d.code === "shadowed");
  assert.ok(shadowed, "no shadowed diagnostic");
  assert.ok(shadowed.path.startsWith(tree.shadowRoot), shadowed.path);
  const unmet = report.diagnostics.find((d) => d.code === "requirements_unmet");
  assert.ok(unmet && /SKILLPORT_TEST_NEVER_SET/.test(unmet.message));
});

test("the YAML error names the line so the author knows where to look", async () => {
  const report = jsonOf<DoctorJson>(await runCli(["doctor", "--root", tree.root, "--json"], opts));
  const [yaml] = report.diagnostics.filter((d) => d.path === tree.brokenFile && d.severity === "error");
  assert.match(yaml!.message, /line \d+/);
});

test("a clean tree passes with exit 0", async () => {
  const run = await runCli(["doctor", "--root", tree.cleanRoot], opts);
  assert.equal(run.code, 0, run.stdout);
  assert.equal(run.stdout, "1 skill loaded; 0 errors, 0 warnings\n");
});
