import assert from "node:assert/strict";
import { test } from "node:test";
import { runCli } from "./cli-process.js";

const COMMANDS = ["list", "show", "read", "validate", "prompt", "doctor", "stats", "bundle", "mcp", "store"];

test("--help lists every command on stdout and exits 0", async () => {
  const run = await runCli(["--help"]);
  assert.equal(run.code, 0);
  for (const command of COMMANDS) assert.match(run.stdout, new RegExp(`^  ${command}\\b`, "m"));
});

test("each reading command documents --root, --config, --agent, --project and --json", async () => {
  const commands = ["list", "show", "read", "prompt", "doctor"];
  const runs = await Promise.all(commands.map((command) => runCli([command, "--help"])));
  for (const [index, command] of commands.entries()) {
    const run = runs[index]!;
    assert.equal(run.code, 0);
    for (const option of ["--root <dir>", "--config <file>", "--agent <id>", "--project <id>", "--json"]) {
      assert.ok(run.stdout.includes(option), `${command} --help lacks ${option}`);
    }
  }
});

test("mcp --help documents its transport and log options", async () => {
  const run = await runCli(["mcp", "--help"]);
  assert.equal(run.code, 0);
  for (const option of ["--http <port>", "--host <host>", "--idle-timeout <seconds>", "--watch", "--log-dir <dir>", "--no-log", "--budget <chars>", "--root <dir>"]) {
    assert.ok(run.stdout.includes(option), `mcp --help lacks ${option}`);
  }
});

test("usage errors exit 2 with the reason on stderr and nothing on stdout", async () => {
  const cases = [["frobnicate"], ["list", "--bogus"], [], ["mcp", "--http", "99999"], ["mcp", "--host", "0.0.0.0"], ["mcp", "--http", "0", "--idle-timeout", "-5"], ["mcp", "--http", "0", "--idle-timeout", "soon"], ["mcp", "--idle-timeout", "60"], ["read"]];
  const runs = await Promise.all(cases.map((args) => runCli(args)));
  for (const [index, args] of cases.entries()) {
    const run = runs[index]!;
    assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
    assert.equal(run.stdout, "", args.join(" "));
    assert.notEqual(run.stderr, "", args.join(" "));
  }
});

test("--version prints the package version", async () => {
  const run = await runCli(["--version"]);
  assert.equal(run.code, 0);
  assert.match(run.stdout, /^\d+\.\d+\.\d+\n$/);
});
