import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { jsonOf, runCli } from "./cli-process.js";
import { cliTree } from "./skill-fixtures.js";
import { tempDir, writeSkill } from "../support/tmp.js";

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

test("acting as one agent, doctor and show say nothing of another agent's private skills", async () => {
  const dir = tempDir("skillport-scoped-");
  writeSkill(path.join(dir, "a"), "payroll-export", "name: payroll-export\ndescription: [unclosed");
  writeSkill(path.join(dir, "g"), "shared", "name: shared\ndescription: Shared by everyone.");
  const config = path.join(dir, "skillport.config.json");
  fs.writeFileSync(
    config,
    JSON.stringify({ sources: [{ path: "./a", origin: "agent", agentId: "A" }, { path: "./g", origin: "global" }], agents: { A: {}, B: {} } }),
  );
  const scoped = { cwd: dir, env: tree.env };

  const asB = await runCli(["doctor", "--config", config, "--agent", "B", "--json"], scoped);
  assert.equal(asB.code, 0, asB.stdout);
  assert.deepEqual(jsonOf<DoctorJson>(asB).diagnostics, []);
  const asA = await runCli(["doctor", "--config", config, "--agent", "A", "--json"], scoped);
  assert.equal(asA.code, 1, "the owner sees its own broken skill");
  assert.ok(jsonOf<DoctorJson>(asA).diagnostics.some((d) => d.path.includes(path.join("a", "payroll-export"))));

  const hidden = await runCli(["show", "payroll-export", "--config", config, "--agent", "B"], scoped);
  const missing = await runCli(["show", "no-such-skill", "--config", config, "--agent", "B"], scoped);
  assert.equal(hidden.code, missing.code);
  assert.equal(hidden.stderr.replace("payroll-export", "X"), missing.stderr.replace("no-such-skill", "X"), "a hidden skill reads as a missing one");
  assert.doesNotMatch(hidden.stdout + hidden.stderr, /payroll-export\/SKILL\.md|Invalid YAML|unclosed/i);
});

test("doctor warns about a policy naming a skill that exists nowhere", async () => {
  const dir = tempDir("skillport-policy-names-");
  writeSkill(path.join(dir, "g"), "debugging", "name: debugging\ndescription: Finds bugs.");
  const config = path.join(dir, "skillport.config.json");
  fs.writeFileSync(config, JSON.stringify({ sources: ["./g"], agents: { a: { allowedSkills: ["debuging"] } } }));
  const run = await runCli(["doctor", "--config", config, "--json"], { cwd: dir, env: tree.env });
  assert.equal(run.code, 0, "a warning, not a failure");
  const warnings = jsonOf<DoctorJson>(run).diagnostics.filter((d) => d.code === "unknown_skill_name");
  assert.deepEqual(warnings.map((d) => [d.path, d.severity]), [["agents.a.allowedSkills", "warning"]]);
  assert.match(warnings[0]!.message, /names "debuging", but no loaded skill has that name/);
  const text = await runCli(["doctor", "--config", config, "--agent", "a"], { cwd: dir, env: tree.env });
  assert.match(text.stdout, /warning agents\.a\.allowedSkills \[unknown_skill_name\]/);
});

test("doctor reports that the reference validator refuses a frontmatter, worked out when doctor reads the diagnostics", { timeout: 60_000 }, async () => {
  const root = tempDir();
  writeSkill(root, "tagged", "name: tagged\ndescription: Has tags.\ntags: [a, b]");
  const run = await runCli(["doctor", "--root", root, "--json"], opts);
  assert.equal(run.code, 0, run.stderr);
  const report = jsonOf<DoctorJson>(run);
  assert.deepEqual(
    report.diagnostics.map((d) => [d.code, path.basename(path.dirname(d.path))]),
    [["yaml_reference_refused", "tagged"]],
  );
  assert.match(report.diagnostics[0]!.message, /\(SKILL\.md line 4, column 8\)$/);
  assert.equal(report.warnings, 1);
});
