import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { loadSkillSync } from "../../src/package/load.js";
import { DEFAULT_WALK_OPTIONS, discoverSource, type FoundSkill, type WalkOptions } from "../../src/registry/discover.js";
import { MAX_WORKERS } from "../../src/registry/parse-pool.js";
import { TimeSlicer } from "../../src/registry/time-slice.js";
import type { LoadedSkill } from "../../src/registry/skill-wire.js";
import { walkHere, walkInWorker as walkThere, type WalkInput } from "../../src/registry/source-walk.js";
import { tempDir, writeSkill } from "./skill-tree.js";

/**
 * A source with every kind of thing a walk meets: categories, links, loops, bad files, the depth
 * bound, skills nested in skills, links out of the source, another agent's private folder.
 */
function awkwardTree(t: TestContext): { root: string; elsewhere: string; privateRoot: string } {
  const root = tempDir(t);
  const plain = writeSkill(root, "plain");
  writeSkill(path.join(plain, "examples"), "nested-in-plain");
  writeSkill(path.join(plain, "references"), "not-a-skill");
  writeSkill(path.join(root, "cat"), "in-category");
  writeSkill(path.join(root, "cat", "sub"), "deeper");
  writeSkill(path.join(root, "d1", "d2", "d3", "d4", "d5", "d6"), "too-deep");
  writeSkill(root, "lower", { lowercase: true });
  writeSkill(path.join(root, ".hidden"), "skipped");
  const broken = path.join(root, "broken");
  fs.mkdirSync(broken);
  fs.writeFileSync(path.join(broken, "SKILL.md"), "---\nname: broken\ndescription: [unclosed\n---\n");
  const elsewhere = tempDir(t);
  const linked = writeSkill(elsewhere, "linked");
  fs.symlinkSync(linked, path.join(root, "linked"));
  fs.symlinkSync(path.join(root, "plain"), path.join(root, "alias-of-plain"));
  fs.symlinkSync(root, path.join(root, "cat", "back-to-root"));
  fs.symlinkSync(path.join(root, "nowhere"), path.join(root, "dangling"));
  const fileSkill = path.join(root, "file-link");
  fs.mkdirSync(fileSkill);
  fs.writeFileSync(path.join(elsewhere, "stored.md"), "---\nname: file-link\ndescription: Kept elsewhere.\n---\nBody\n");
  fs.symlinkSync(path.join(elsewhere, "stored.md"), path.join(fileSkill, "SKILL.md"));
  const privateRoot = tempDir(t);
  const secret = writeSkill(privateRoot, "secret");
  fs.symlinkSync(secret, path.join(root, "secret-dir-link"));
  fs.mkdirSync(path.join(root, "secret-file-link"));
  fs.symlinkSync(path.join(secret, "SKILL.md"), path.join(root, "secret-file-link", "SKILL.md"));
  return { root, elsewhere, privateRoot };
}

/** The walk options every shape of the awkward tree is tried with: links followed anywhere, or kept inside and out of the private folder. */
function optionSets(tree: { privateRoot: string }): Array<[string, WalkOptions]> {
  const privateRoots = [{ path: tree.privateRoot, owners: ["a"] }];
  return [
    ["links followed anywhere", DEFAULT_WALK_OPTIONS],
    ["links kept inside the source and out of an agent's folder", { maxDirectories: 1000, followExternalLinks: false, privateRoots }],
  ];
}

const noStamps = () => undefined;
/** Every test here runs a walk in a worker; a single-core machine starts none. */
const needsWorkers = { skip: MAX_WORKERS === 0 ? "a single core runs no worker threads" : false };

type Where = "worker" | "main thread";

/** The walk, in a worker or on this thread in time slices, with the files it read collected in order. */
async function walkVia(
  where: Where,
  source: string,
  previous: FoundSkill[],
  stampOf: (found: FoundSkill) => FoundSkill["stamp"] | undefined,
  options: WalkOptions = DEFAULT_WALK_OPTIONS,
) {
  const loads: Array<{ found: FoundSkill; loaded: LoadedSkill }> = [];
  const input: WalkInput = { source, options, previous, stampOf, onLoad: (found, loaded) => loads.push({ found, loaded }) };
  let walk;
  if (where === "worker") {
    let picked = false;
    // A slice of zero files the worker's records across many turns too.
    walk = await walkThere(() => (picked ? null : ((picked = true), input)), new TimeSlicer(0)).result;
    assert.ok(walk, "the worker took the walk");
  } else {
    // A slice of zero yields after every entry, so the walk is exercised across many turns.
    walk = await walkHere(input, new TimeSlicer(0));
  }
  assert.equal(walk.reads, loads.length);
  return { ...walk, loads };
}

const walkInWorker = (
  source: string,
  previous: FoundSkill[],
  stampOf: (found: FoundSkill) => FoundSkill["stamp"] | undefined,
  options: WalkOptions = DEFAULT_WALK_OPTIONS,
) => walkVia("worker", source, previous, stampOf, options);

test("a walk on the main thread and one in a worker give the same discovery and loads, whatever the link rules", needsWorkers, async (t) => {
  const tree = awkwardTree(t);
  for (const [label, options] of optionSets(tree)) {
    const here = await walkVia("main thread", tree.root, [], noStamps, options);
    const there = await walkVia("worker", tree.root, [], noStamps, options);
    assert.deepEqual(here.discovery, there.discovery, label);
    assert.deepEqual(here.loads, there.loads, label);
  }
});

test("a worker walk withdrawn before a worker takes it never picks a source; the walks running finish", needsWorkers, async (t) => {
  const root = tempDir(t);
  for (let i = 0; i < 50; i++) writeSkill(root, `busy-${i}`);
  const once = (input: WalkInput) => {
    let picked = false;
    return () => (picked ? null : ((picked = true), input));
  };
  const input: WalkInput = { source: root, options: DEFAULT_WALK_OPTIONS, previous: [], stampOf: noStamps, onLoad: () => {} };
  // Every worker gets a walk first, so the next one has to wait in the pool.
  const busy = Array.from({ length: MAX_WORKERS }, () => walkThere(once(input), new TimeSlicer()));
  let asked = false;
  const late = walkThere(() => {
    asked = true;
    return input;
  }, new TimeSlicer());
  late.withdraw();
  assert.equal(await late.result, null);
  assert.equal(asked, false, "a withdrawn walk never chose a source");
  for (const run of busy) assert.equal((await run.result)?.discovery.found.length, 50);
  const nothingLeft = walkThere(() => null, new TimeSlicer());
  assert.equal(await nothingLeft.result, null);
});

test("a walk in a worker finds what the main thread's walk finds, and loads each skill as the loader does", needsWorkers, async (t) => {
  const tree = awkwardTree(t);
  for (const [label, options] of optionSets(tree)) {
    const here = await discoverSource(tree.root, new TimeSlicer(), undefined, options);
    const there = await walkInWorker(tree.root, [], noStamps, options);
    assert.deepEqual(there.discovery, here, label);
    assert.ok(here.found.length >= 6 && here.diagnostics.length >= 3, "the fixture exercises the walk");

    assert.deepEqual(
      there.loads.map((load) => load.found),
      here.found,
      "every directory found was read",
    );
    for (const { found, loaded } of there.loads) {
      const direct = loadSkillSync(found.dir);
      assert.deepEqual(loaded, { skill: direct.skill, diagnostics: direct.diagnostics }, found.dir);
    }
    assert.equal(there.loads.find((load) => load.found.dir.endsWith("broken"))!.loaded.skill, null);
    const names = here.found.map((f) => path.relative(tree.root, f.dir));
    assert.ok(names.includes("plain/examples/nested-in-plain") && !names.some((n) => n.includes("not-a-skill")), label);
  }
  const [[, followAll], [, restricted]] = optionSets(tree);
  const open = await discoverSource(tree.root, new TimeSlicer(), undefined, followAll);
  const closed = await discoverSource(tree.root, new TimeSlicer(), undefined, restricted);
  assert.equal(open.found.length - closed.found.length, 4, "the two links out and the two into the private folder are not followed");
  assert.deepEqual(closed.diagnostics.filter((d) => d.code === "symlink_external").map((d) => path.relative(tree.root, d.path)), ["file-link/SKILL.md", "linked"]);
  assert.deepEqual(closed.privateRefusals.map((r) => [r.owner, path.relative(tree.root, r.diagnostic.path)]), [
    ["a", "secret-dir-link"],
    ["a", "secret-file-link/SKILL.md"],
  ]);
});

test("known directories with unchanged stamps come back as the same records, unread; changed ones are read", needsWorkers, async (t) => {
  const root = tempDir(t);
  for (const name of ["keep-a", "keep-b", "edited"]) writeSkill(root, name);
  const first = await walkInWorker(root, [], noStamps);
  const stamps = new Map(first.loads.map((load) => [load.found.skillFile, load.found.stamp]));
  const stampOf = (found: FoundSkill) => stamps.get(found.skillFile);

  const again = await walkInWorker(root, first.discovery.found, stampOf);
  assert.deepEqual(again.loads, []);
  assert.equal(again.discovery.found.length, 3);
  again.discovery.found.forEach((found, i) => assert.equal(found, first.discovery.found[i], "the very same object"));

  writeSkill(root, "edited", { description: "Edited, and longer than before." });
  writeSkill(root, "added");
  fs.rmSync(path.join(root, "keep-b"), { recursive: true });
  const later = await walkInWorker(root, first.discovery.found, stampOf);
  assert.deepEqual(
    later.discovery.found.map((found) => path.basename(found.dir)),
    ["added", "edited", "keep-a"],
  );
  assert.deepEqual(
    later.loads.map((load) => [path.basename(load.found.dir), load.loaded.skill?.description]),
    [
      ["added", "Does added things."],
      ["edited", "Edited, and longer than before."],
    ],
  );
  const firstKeepA = first.discovery.found.find((found) => found.dir.endsWith("keep-a"));
  assert.equal(later.discovery.found[2], firstKeepA, "the unchanged one is still the same object");
});

test("a registry holding no copy of a known file reads it again", needsWorkers, async (t) => {
  const root = tempDir(t);
  writeSkill(root, "only");
  const first = await walkInWorker(root, [], noStamps);
  const again = await walkInWorker(root, first.discovery.found, noStamps);
  assert.equal(again.loads.length, 1);
});

test("on Linux a parse worker runs at a lower priority than the thread that started it", { skip: process.platform !== "linux" || MAX_WORKERS === 0 ? "per-thread nice values are a Linux feature" : false }, async (t) => {
  const root = tempDir(t);
  writeSkill(root, "any");
  // Any worker now alive (this one, or one an earlier test left idle) has set its nice value.
  assert.ok(await walkThere(((picked) => () => (picked ? null : ((picked = true), { source: root, options: DEFAULT_WALK_OPTIONS, previous: [], stampOf: noStamps, onLoad: () => {} })))(false), new TimeSlicer()).result);
  const niceOf = (task: string) => Number(fs.readFileSync(`/proc/self/task/${task}/stat`, "utf8").split(") ")[1]!.split(" ")[16]);
  const own = niceOf(String(process.pid));
  const tasks = fs.readdirSync("/proc/self/task");
  const lowered = tasks.filter((task) => niceOf(task) > own);
  assert.ok(lowered.length >= 1, `nice values: ${tasks.map(niceOf).join(", ")}`);
});
