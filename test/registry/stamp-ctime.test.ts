/**
 * A SKILL.md rewritten to the same size with its mtime put back (`touch -d`, `utimes`) is still
 * a changed file: its ctime moved, which nobody can set back. A rescan (asked for, or the
 * watcher's) reads it again, so the record's frontmatter and the body served are one version.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { createSkillRuntime } from "../../src/runtime.js";
import { eventually } from "../support/eventually.js";
import { realTempDir } from "../support/tmp.js";

/** A whole second, so `utimes` puts back exactly the mtime the load saw. */
const MTIME_S = 1_700_000_000;
const OLD = "---\nname: deploy\ndescription: Deploys to staging.\n---\n\nRun the staging steps.\n";
const NEW = "---\nname: deploy\ndescription: Deploys to prod now\n---\n\nRun the danger steps!!\n";

function skillFile(): string {
  assert.equal(OLD.length, NEW.length);
  const root = realTempDir("stamp-ctime");
  fs.mkdirSync(path.join(root, "deploy"));
  const file = path.join(root, "deploy", "SKILL.md");
  fs.writeFileSync(file, OLD);
  fs.utimesSync(file, MTIME_S, MTIME_S);
  return file;
}

/** Rewrites in place (same inode, same size), after the clock has moved past the file's ctime, and puts the mtime back. */
async function rewriteKeepingMtime(file: string): Promise<void> {
  const before = fs.statSync(file, { bigint: true });
  const probe = `${file}.clock`;
  for (let tries = 0; ; tries++) {
    fs.writeFileSync(probe, "");
    const now = fs.statSync(probe, { bigint: true }).ctimeNs;
    fs.rmSync(probe);
    if (now > before.ctimeNs) break;
    assert.ok(tries < 1000, "the clock never moved past the file's ctime");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  fs.writeFileSync(file, NEW);
  fs.utimesSync(file, MTIME_S, MTIME_S);
  const after = fs.statSync(file, { bigint: true });
  assert.equal(after.size, before.size);
  assert.equal(after.mtimeNs, before.mtimeNs);
  assert.equal(after.ino, before.ino);
  assert.notEqual(after.ctimeNs, before.ctimeNs);
}

test("a rescan reads a same-size rewrite whose mtime was put back: the new frontmatter with the new body", async () => {
  const file = skillFile();
  const runtime = await createSkillRuntime({ sources: [{ path: path.dirname(path.dirname(file)), origin: "global" }], env: {} });
  try {
    assert.equal(runtime.snapshot().skills[0]!.description, "Deploys to staging.");
    await rewriteKeepingMtime(file);
    await runtime.refresh();
    assert.equal(runtime.snapshot().skills[0]!.description, "Deploys to prod now");
    const session = runtime.session({ log: false });
    const loaded = await session.call({ name: "deploy" });
    assert.match(JSON.stringify(loaded), /Run the danger steps!!/);
  } finally {
    await runtime.close();
  }
});

test("the watcher's rescan sees the same rewrite", { timeout: 60_000 }, async () => {
  const file = skillFile();
  const runtime = await createSkillRuntime({ sources: [{ path: path.dirname(path.dirname(file)), origin: "global" }], env: {}, watch: true });
  try {
    assert.equal(runtime.snapshot().skills[0]!.description, "Deploys to staging.");
    await rewriteKeepingMtime(file);
    await eventually(() => runtime.snapshot().skills[0]?.description === "Deploys to prod now", "the watcher's rescan to read the rewrite");
  } finally {
    await runtime.close();
  }
});
