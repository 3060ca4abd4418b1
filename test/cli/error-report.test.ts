import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { debugRequested, reportFailure } from "../../src/cli/error-report.js";
import { CliError, EXIT_FAILURE_FOUND, EXIT_USAGE } from "../../src/cli/exit.js";
import type { CliOutput } from "../../src/cli/output.js";
import { ConfigError } from "../../src/config.js";
import { SkillBodyError } from "../../src/package/body.js";
import { SkillsRefPromptError } from "../../src/prompt/skills-ref.js";
import { tempDir, writeSkill } from "../support/tmp.js";
import { runCli, sandbox } from "./cli-process.js";

/** Collects what a report writes to stderr. */
function capture(): { out: CliOutput; stderr: () => string } {
  let stderr = "";
  const out: CliOutput = {
    data: () => assert.fail("an error report must not write to stdout"),
    log: (line) => void (stderr += `${line}\n`),
    status: (text) => void (stderr += text),
    interactive: false,
  };
  return { out, stderr: () => stderr };
}

test("expected failures print one `error:` line with their exit code, multi-line messages flattened", () => {
  const cases = [
    { error: new CliError("first\n  second", EXIT_USAGE), line: "error: first second", code: EXIT_USAGE },
    { error: new ConfigError("/x/c.json", "agents.a", "unknown key"), line: "error: Config error in /x/c.json: agents.a: unknown key", code: EXIT_USAGE },
    { error: new SkillBodyError("Cannot read /x/SKILL.md:\nENOENT", "io"), line: "error: Cannot read /x/SKILL.md: ENOENT", code: EXIT_FAILURE_FOUND },
  ];
  for (const { error, line, code } of cases) {
    const { out, stderr } = capture();
    assert.equal(reportFailure(error, out, false), code);
    assert.equal(stderr(), `${line}\n`);
  }
});

test("a skills-ref failure names the skill's SKILL.md, not just its directory", () => {
  const dir = writeSkill(tempDir(), "odd", "name: odd\ndescription: Odd.");
  const { out, stderr } = capture();
  assert.equal(reportFailure(new SkillsRefPromptError(dir, "Field 'name' must be a non-empty string"), out, false), EXIT_FAILURE_FOUND);
  assert.ok(stderr().startsWith(`error: ${path.join(dir, "SKILL.md")}: Field 'name' must be a non-empty string (`), stderr());
  assert.equal(stderr().split("\n").length, 2);
});

test("an unexpected error is one line calling it a bug, with the stack only when debugging is asked for", () => {
  const bug = new TypeError("cannot read properties of undefined");
  const plain = capture();
  assert.equal(reportFailure(bug, plain.out, false), EXIT_FAILURE_FOUND);
  assert.match(plain.stderr(), /^error: internal error: cannot read properties of undefined \(this is a bug in skillport; rerun with SKILLPORT_DEBUG=1 to see the stack trace\)\n$/);
  const debug = capture();
  reportFailure(bug, debug.out, true);
  assert.ok(debug.stderr().includes(bug.stack!), debug.stderr());
});

test("SKILLPORT_DEBUG counts as set unless empty or 0", () => {
  assert.equal(debugRequested({}), false);
  assert.equal(debugRequested({ SKILLPORT_DEBUG: "" }), false);
  assert.equal(debugRequested({ SKILLPORT_DEBUG: "0" }), false);
  assert.equal(debugRequested({ SKILLPORT_DEBUG: "1" }), true);
});

test("a config error from a command is one stderr line, exit 2", async () => {
  const box = sandbox();
  const config = path.join(box.cwd, "bad.json");
  fs.writeFileSync(config, "{ \"agents\": ]");
  const run = await runCli(["prompt", "--config", config, "--root", box.home], { cwd: box.cwd, env: box.env });
  assert.equal(run.code, 2);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, /^error: Config error in .*bad\.json: not valid JSON: .*\n$/);
});
