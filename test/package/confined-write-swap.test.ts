/**
 * The write path's answer to a folder swapped for a link between its check and its use, decided
 * by the test instead of by a race: the test swaps the folder the moment the writer has looked at
 * it (right after its `lstat` returns), the tightest window a local attacker could hit. The folder
 * is then opened with `O_NOFOLLOW`, which refuses the link, so nothing lands where it leads.
 * (The swap-race test in test/reliability shows the same under a real race, by chance.)
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { writeSkillFile } from "../../src/package/confined-write.js";
import { realTempDir, writeSkill } from "../support/tmp.js";

test("a folder on the way swapped for a link out of the skill right after the writer's lstat: the write is refused and nothing is written outside", { skip: process.platform !== "linux" ? "the descriptor walk is Linux's" : false }, () => {
  const root = realTempDir("skillport-write-swap");
  const skill = writeSkill(root, "racy", "name: racy\ndescription: A skill whose folder is swapped while it is written.");
  const docs = path.join(skill, "docs");
  fs.mkdirSync(docs);
  const outside = path.join(root, "outside");
  fs.mkdirSync(outside);

  const original = fs.lstatSync;
  // Node's fs module object is writable at run time; its types mark the functions read-only.
  const patchable = fs as { lstatSync: typeof fs.lstatSync };
  let swapped = false;
  // Node's own lstat, with the attacker's move right after the writer looks at `docs`.
  patchable.lstatSync = ((target: fs.PathLike, options?: fs.StatSyncOptions) => {
    const stat = original(target, options as never);
    if (!swapped && String(target).endsWith(`${path.sep}docs`)) {
      swapped = true;
      fs.renameSync(docs, path.join(skill, "docs.away"));
      fs.symlinkSync(outside, docs);
    }
    return stat;
  }) as typeof fs.lstatSync;
  let outcome: ReturnType<typeof writeSkillFile>;
  try {
    outcome = writeSkillFile(skill, "docs/x.md", "inside only\n");
  } finally {
    patchable.lstatSync = original;
  }
  assert.equal(swapped, true, "the writer looked at docs, and the swap happened then");
  assert.equal(outcome.ok, false, "the write through the link was refused");
  assert.equal(outcome.ok === false && outcome.reason, "illegal_path");
  assert.deepEqual(fs.readdirSync(outside), [], "nothing was written where the link leads");
  assert.deepEqual(fs.readdirSync(path.join(skill, "docs.away")), []);
});
