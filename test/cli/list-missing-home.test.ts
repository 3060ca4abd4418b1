/**
 * `list` run with a HOME that does not exist (a service account, a container) reads what it can
 * and creates nothing: no home folder holding only a parse cache is left behind. A home that
 * exists still gets its cache.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { writeSkill } from "../support/tmp.js";
import { runCli, sandbox } from "./cli-process.js";

test("list with a HOME that does not exist exits 0, lists the root's skills and creates no home folder; an existing HOME gets its cache", { timeout: 60_000 }, async () => {
  const box = sandbox();
  const root = path.join(box.cwd, "skills");
  writeSkill(root, "alpha", "name: alpha\ndescription: Alpha does one thing.");
  const missing = path.join(box.cwd, "no-such-home");
  for (const args of [["list"], ["list", "--root", root]]) {
    const run = await runCli(args, { cwd: box.cwd, env: { HOME: missing } });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(fs.existsSync(missing), false, `${args.join(" ")} created ${missing}`);
  }
  const listed = await runCli(["list", "--root", root], { cwd: box.cwd, env: { HOME: missing } });
  assert.match(listed.stdout, /alpha/);
  // The same run with the home present keeps its cache there, as before.
  const run = await runCli(["list", "--root", root], { cwd: box.cwd, env: { HOME: box.home } });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(fs.existsSync(path.join(box.home, ".cache", "skillport")), true);
});
