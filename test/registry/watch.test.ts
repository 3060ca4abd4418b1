import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { createRegistry, type SkillRegistry, type SourceChanges } from "../../src/registry/registry.js";
import type { SkillSource } from "../../src/registry/types.js";
import { watchSources, type SourceWatcher } from "../../src/registry/watch.js";
import { eventually } from "../support/eventually.js";
import { tempDir, writeSkill } from "./skill-tree.js";

/** A real registry over `sources`, watched, with every burst of changes the watcher reported. */
async function watched(t: TestContext, sources: SkillSource[]): Promise<{ registry: SkillRegistry; watcher: SourceWatcher; bursts: SourceChanges[] }> {
  const registry = createRegistry(sources, { env: () => ({}) });
  await registry.refresh();
  const bursts: SourceChanges[] = [];
  const watcher = watchSources(
    sources.map((s) => s.path),
    {
      skillDirectories: (index) => registry.skillDirectories(index),
      refresh: (changes) => {
        bursts.push(changes); if (process.env.DBG) console.error("burst", changes);
        return registry.refreshAfterChange(changes);
      },
    },
    20,
  );
  t.after(async () => {
    watcher.close();
    await registry.close();
  });
  await watcher.ready;
  return { registry, watcher, bursts };
}

const names = (registry: SkillRegistry) => registry.snapshot().skills.map((s) => s.name);

test("one watch per directory: the root, each category and each skill directory, never a file or a resource folder", async (t) => {
  const root = tempDir(t);
  for (const name of ["one", "two"]) {
    const dir = writeSkill(path.join(root, "cat"), name);
    fs.mkdirSync(path.join(dir, "scripts"));
    fs.writeFileSync(path.join(dir, "scripts", "run.sh"), "echo\n");
    fs.mkdirSync(path.join(dir, "references"));
    fs.writeFileSync(path.join(dir, "references", "guide.md"), "# Guide\n");
  }
  writeSkill(root, "three");
  fs.mkdirSync(path.join(root, "empty-category"));
  const { watcher } = await watched(t, [{ path: root, origin: "global" }]);
  assert.deepEqual(
    watcher.watchedDirectories().map((dir) => path.relative(root, dir)).sort(),
    ["", "cat", "cat/one", "cat/two", "empty-category", "three"],
  );
  assert.deepEqual(watcher.diagnostics, []);
});

test("categories are watched down to six levels below the root, where discovery stops; the seventh level is not", async (t) => {
  const root = tempDir(t);
  const levels = ["l1", "l2", "l3", "l4", "l5", "l6", "l7"];
  fs.mkdirSync(path.join(root, ...levels), { recursive: true });
  const { watcher } = await watched(t, [{ path: root, origin: "global" }]);
  assert.deepEqual(
    watcher.watchedDirectories().map((dir) => path.relative(root, dir)).sort(),
    ["", ...levels.slice(0, 6).map((_, i) => levels.slice(0, i + 1).join("/"))],
  );
});

test("an edit of one SKILL.md reports just that skill's directory, and the refresh re-reads just that file", async (t) => {
  const root = tempDir(t);
  for (let i = 0; i < 20; i++) writeSkill(root, `skill-${i}`);
  const { registry, bursts } = await watched(t, [{ path: root, origin: "global" }]);
  const before = registry.snapshot();
  const reads = registry.stats().reads;
  writeSkill(root, "skill-7", { description: "Edited while watched." });
  await eventually(() => registry.snapshot().skills.some((s) => s.description === "Edited while watched."), "the edit");
  assert.deepEqual([...bursts.at(-1)!], [[0, [path.join(root, "skill-7")]]]);
  assert.equal(registry.stats().reads, reads + 1, "one SKILL.md read again");
  const after = registry.snapshot();
  assert.equal(after.skills.length, 20);
  for (let i = 0; i < after.skills.length; i++) {
    if (after.skills[i]!.name !== "skill-7") assert.equal(after.skills[i], before.skills[i], "unchanged skills keep their very records");
  }
});

test("a skill in a category made after the start is found, and its directories are watched from then on", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "existing");
  const { registry, watcher } = await watched(t, [{ path: root, origin: "global" }]);
  fs.mkdirSync(path.join(root, "later"));
  await eventually(() => watcher.watchedDirectories().includes(path.join(root, "later")), "the new category to be watched");
  writeSkill(path.join(root, "later"), "arrived");
  await eventually(() => names(registry).includes("arrived"), "the skill in the new category");
  writeSkill(path.join(root, "later"), "arrived", { description: "Edited afterwards." });
  await eventually(() => registry.snapshot().skills.some((s) => s.description === "Edited afterwards."), "an edit inside it");
});

test("removing a skill directory drops the skill and its watch; a removed winner lets the shadowed skill serve", async (t) => {
  const parent = tempDir(t);
  const first = path.join(parent, "first");
  const second = path.join(parent, "second");
  writeSkill(first, "deploy", { description: "First source wins." });
  writeSkill(second, "deploy", { description: "Second source loses." });
  writeSkill(second, "other");
  const { registry, watcher } = await watched(t, [
    { path: first, origin: "global" },
    { path: second, origin: "global" },
  ]);
  assert.equal(registry.snapshot().skills.find((s) => s.name === "deploy")?.description, "First source wins.");
  assert.deepEqual(registry.snapshot().diagnostics.map((d) => d.code), ["shadowed"]);
  fs.rmSync(path.join(first, "deploy"), { recursive: true });
  await eventually(() => registry.snapshot().skills.find((s) => s.name === "deploy")?.description === "Second source loses.", "the loser to serve");
  assert.deepEqual(registry.snapshot().diagnostics, [], "no one is shadowed any more");
  await eventually(() => !watcher.watchedDirectories().includes(path.join(first, "deploy")), "the removed directory's watch to go");
});

test("a source that does not exist yet is watched once it is created", async (t) => {
  const parent = tempDir(t);
  const later = path.join(parent, "home", ".agents", "skills");
  const { registry, watcher } = await watched(t, [{ path: later, origin: "global" }]);
  assert.deepEqual(watcher.watchedDirectories(), []);
  writeSkill(later, "fresh");
  await eventually(() => names(registry).includes("fresh"), "the created source's skill");
  await eventually(() => watcher.watchedDirectories().includes(path.join(later, "fresh")), "its skill directory to be watched");
  writeSkill(later, "second");
  await eventually(() => names(registry).includes("second"), "a skill added to it afterwards");
});

test("a file written into a category is no change: no refresh runs for it", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "existing");
  const { bursts } = await watched(t, [{ path: root, origin: "global" }]);
  fs.writeFileSync(path.join(root, "README.md"), "notes\n");
  // A skill edit afterwards shows the watcher is alive and the README burst came to nothing.
  writeSkill(root, "existing", { description: "Touched." });
  await eventually(() => bursts.length > 0, "a burst");
  assert.ok(bursts.every((burst) => [...burst.values()].every((dirs) => dirs !== null && !dirs.some((d) => d.endsWith("README.md")))));
});

test("a directory in two sources' trees is watched once, and a change there is reported for both", async (t) => {
  const root = tempDir(t);
  writeSkill(path.join(root, "cat"), "shared");
  writeSkill(root, "own");
  const inner = path.join(root, "cat");
  const { registry, watcher, bursts } = await watched(t, [
    { path: root, origin: "global" },
    { path: inner, origin: "project" },
  ]);
  const watchedDirs = watcher.watchedDirectories();
  assert.equal(new Set(watchedDirs).size, watchedDirs.length, "no directory watched twice");
  assert.deepEqual(watchedDirs.map((dir) => path.relative(root, dir)).sort(), ["", "cat", "cat/shared", "own"]);
  writeSkill(inner, "shared", { description: "Edited once, seen by both." });
  await eventually(() => registry.snapshot().skills.filter((s) => s.name === "shared").every((s) => s.description === "Edited once, seen by both."), "both sources' copies to refresh");
  const reported = new Set(bursts.flatMap((burst) => [...burst.keys()]));
  assert.deepEqual([...reported].sort(), [0, 1]);
});

test("a skill reached through a link inside another skill, from outside the source, is watched too", async (t) => {
  const parent = tempDir(t);
  const root = path.join(parent, "skills");
  const outside = writeSkill(path.join(parent, "elsewhere"), "linked");
  const host = writeSkill(root, "host");
  fs.symlinkSync(outside, path.join(host, "nested"));
  const { registry, watcher } = await watched(t, [{ path: root, origin: "global" }]);
  assert.deepEqual(names(registry).sort(), ["host", "linked"]);
  assert.ok(watcher.watchedDirectories().includes(outside), "the link's real directory is watched");
  writeSkill(path.join(parent, "elsewhere"), "linked", { description: "Edited where the link leads." });
  await eventually(() => registry.snapshot().skills.find((s) => s.name === "linked")?.description === "Edited where the link leads.", "the linked skill to refresh");
});
