/**
 * A skill whose `references/` holds thousands of directories (issue: 100,000 froze every session
 * for seconds while one activation listed them). The listing is bounded and walked off the event
 * loop, so another conversation's calls answer while it runs.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { createSkillRuntime } from "../../src/runtime.js";
import { MAX_RESOURCE_ENTRIES_READ } from "../../src/package/resources.js";
import type { Envelope, LoadedData } from "../../src/tool/envelope.js";
import { realTempDir } from "../support/tmp.js";
import { assertEnvelope, withinBound, writeSkillDir } from "./support.js";
import { countLoopTurns } from "../support/loop-turns.js";

test("activating a skill with thousands of directories in references/ is bounded, says it was cut, and other sessions answer meanwhile", async (t) => {
  const root = realTempDir("skillport-wide");
  const skills = path.join(root, "skills");
  const dir = writeSkillDir(skills, "wide");
  writeSkillDir(skills, "other");
  const references = path.join(dir, "references");
  fs.mkdirSync(references);
  // Past every bound: more entries than are read, more directories than are visited.
  for (let i = 0; i < MAX_RESOURCE_ENTRIES_READ + 10; i++) fs.mkdirSync(path.join(references, `d${String(i).padStart(5, "0")}`));
  fs.writeFileSync(path.join(dir, "guide.md"), "guide\n");

  const runtime = await createSkillRuntime({ sources: [{ path: skills, origin: "global" }], cwd: root, home: root, env: {} });
  t.after(() => runtime.close());
  const walker = runtime.session({ log: false });
  const bystander = runtime.session({ log: false });

  const loop = countLoopTurns();
  const order: string[] = [];
  const activation = walker.call({ name: "wide" }).then((envelope) => {
    order.push("activation");
    return envelope;
  });
  // Calls started after the activation, from another conversation: they need no walk of their own.
  const others: Array<Promise<Envelope>> = [];
  for (let i = 0; i < 6; i++) {
    const args = i % 2 === 0 ? { name: "other", file_path: "SKILL.md" } : {};
    others.push(
      bystander.call(args).then((envelope) => {
        order.push("other");
        return envelope;
      }),
    );
  }
  const [loaded] = await withinBound(Promise.all([activation, ...others]), "activation and the other calls");
  const turns = loop.stop();
  // A walk on the event loop would have held it for the whole listing: a handful of turns (the
  // body's read) instead of one or more per directory read.
  assert.ok(turns > 100, `the event loop turned ${turns} times during the activation`);
  assertEnvelope(loaded);
  const data = loaded!.data as LoadedData;
  assert.equal(data.status, "loaded");
  assert.deepEqual(data.resource_files!.files, ["guide.md"]);
  assert.match(data.resource_files!.guidance, /cut short/);
  for (const other of others) assert.equal((await other).ok, true);
  assert.equal(order.at(-1), "activation", `the other conversation's calls answered while the listing was walked: ${order.join(", ")}`);
});
