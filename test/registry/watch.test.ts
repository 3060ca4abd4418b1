import assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";
import { watchSources } from "../../src/registry/watch.js";
import { tempDir, writeSkill } from "./skill-tree.js";

/** Resolves on the first call of the returned callback; fails the test if none comes within the guard. */
function firstCall(t: { after(fn: () => void): void }, guardMs = 15_000) {
  let resolve!: () => void;
  let calls = 0;
  const called = new Promise<void>((res, rej) => {
    resolve = res;
    const guard = setTimeout(() => rej(new Error("no change event arrived")), guardMs);
    t.after(() => clearTimeout(guard));
  });
  return {
    callback: () => {
      calls += 1;
      resolve();
    },
    called,
    calls: () => calls,
  };
}

test("a skill written under a watched source triggers the callback", async (t) => {
  const root = tempDir(t);
  const probe = firstCall(t);
  const watcher = watchSources([root], probe.callback, 20);
  t.after(() => watcher.close());
  writeSkill(path.join(root, "cat"), "fresh");
  await probe.called;
  assert.ok(probe.calls() >= 1);
  assert.deepEqual(watcher.diagnostics, []);
});

test("missing sources are not watched and cost nothing", async (t) => {
  const root = tempDir(t);
  const watcher = watchSources([path.join(root, "absent")], () => assert.fail("no events expected"), 20);
  assert.deepEqual(watcher.diagnostics, []);
  watcher.close();
});
