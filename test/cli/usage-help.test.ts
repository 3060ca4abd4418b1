/**
 * A usage error ends by naming the help to read: `skillport <command> --help` for the command
 * that was mistyped (a bare "add --help" read as the `add` command), `skillport --help` above.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runCli } from "./cli-process.js";

test("a usage error ends with the full help command of the command given, at every level", { timeout: 120_000 }, async () => {
  const cases: Array<[string[], string]> = [
    [["frobnicate"], "skillport --help"],
    [["list", "--bogus"], "skillport list --help"],
    [["read"], "skillport read --help"],
    [["add", "--bogus"], "skillport add --help"],
    [["mcp", "--http", "99999"], "skillport mcp --help"],
    [["store", "init", "--bogus"], "skillport store init --help"],
  ];
  const runs = await Promise.all(cases.map(([args]) => runCli(args)));
  for (const [index, [args, help]] of cases.entries()) {
    const run = runs[index]!;
    assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
    assert.equal(run.stdout, "");
    assert.ok(run.stderr.endsWith(`\n(run ${help} for usage)\n`), `${args.join(" ")}: ${run.stderr}`);
    assert.doesNotMatch(run.stderr, /\(add --help/);
  }
});
