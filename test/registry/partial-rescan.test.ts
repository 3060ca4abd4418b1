/**
 * A refresh told which directories changed walks only those, yet builds the same complete
 * snapshot a whole rescan would: checked against a fresh registry's full scan after each change.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { MAX_SKILL_DEPTH } from "../../src/registry/discover.js";
import { createRegistry } from "../../src/registry/registry.js";
import type { RegistrySnapshot, SkillSource } from "../../src/registry/types.js";
import { tempDir, writeSkill } from "./skill-tree.js";

/** What a snapshot says, without the record identities a fresh registry cannot share. */
function meaning(snapshot: RegistrySnapshot) {
  return {
    skills: snapshot.skills.map((s) => [s.name, s.description, s.dir, s.origin, s.sourceIndex]),
    diagnostics: snapshot.diagnostics.map((d) => [d.code, d.path, d.severity]).sort(),
  };
}

async function fullScan(sources: SkillSource[]): Promise<RegistrySnapshot> {
  const fresh = createRegistry(sources, { env: () => ({}) });
  await fresh.refresh();
  const snapshot = fresh.snapshot();
  await fresh.close();
  return snapshot;
}

test("a partial rescan equals a whole one through edits, additions, removals, collisions and broken files", async (t) => {
  const parent = tempDir(t);
  const a = path.join(parent, "a");
  const b = path.join(parent, "b");
  const sources: SkillSource[] = [
    { path: a, origin: "project" },
    { path: b, origin: "global" },
  ];
  writeSkill(a, "alpha");
  writeSkill(path.join(a, "cat"), "beta");
  writeSkill(b, "gamma");
  writeSkill(b, "alpha", { description: "The global alpha, shadowed by the project's." });
  const registry = createRegistry(sources, { env: () => ({}) });
  // A twin that sees the same history through whole rescans (a file that stops loading keeps its
  // last good version in both, which a registry made afresh would not have).
  const twin = createRegistry(sources, { env: () => ({}) });
  t.after(() => Promise.all([registry.close(), twin.close()]));
  await registry.refresh();
  await twin.refresh();
  const assertSameAsTwin = async (what: string) => {
    await twin.refresh();
    assert.deepEqual(meaning(registry.snapshot()), meaning(twin.snapshot()), what);
  };
  await assertSameAsTwin("start");

  const steps: Array<[string, () => void, Map<number, string[] | null>]> = [
    ["edit", () => writeSkill(a, "alpha", { description: "Edited." }), new Map([[0, [path.join(a, "alpha")]]])],
    ["new skill in a new category", () => writeSkill(path.join(a, "cat2", "deeper"), "delta"), new Map([[0, [path.join(a, "cat2")]]])],
    ["rename to a colliding name", () => fs.writeFileSync(path.join(b, "gamma", "SKILL.md"), "---\nname: beta\ndescription: Now named beta.\n---\n"), new Map([[1, [path.join(b, "gamma")]]])],
    ["rename back", () => writeSkill(b, "gamma"), new Map([[1, [path.join(b, "gamma")]]])],
    ["break a file (its last good version serves)", () => fs.writeFileSync(path.join(a, "cat", "beta", "SKILL.md"), "---\nname: beta\ndescription: [unclosed\n---\n"), new Map([[0, [path.join(a, "cat", "beta")]]])],
    ["a file that never loaded", () => fs.writeFileSync(path.join(a, "cat2", "deeper", "broken.md"), "x"), new Map([[0, [path.join(a, "cat2", "deeper")]]])],
    ["remove the winner", () => fs.rmSync(path.join(a, "alpha"), { recursive: true }), new Map([[0, [path.join(a, "alpha")]]])],
    ["a removed category", () => fs.rmSync(path.join(a, "cat2"), { recursive: true }), new Map([[0, [path.join(a, "cat2")]]])],
  ];
  for (const [what, change, changes] of steps) {
    change();
    const outcome = await registry.refreshAfterChange(changes);
    assert.ok(outcome.ok, what);
    await assertSameAsTwin(what);
  }
  assert.equal(registry.snapshot().skills.find((s) => s.name === "alpha")?.origin, "global", "the shadowed alpha serves once the winner is gone");
  assert.ok(!registry.snapshot().diagnostics.some((d) => d.code === "shadowed"));
});

test("an edit in sources of every origin, configured out of precedence order, ranks as a whole rescan does; the snapshot before stays as it was", async (t) => {
  const parent = tempDir(t);
  const origins: SkillSource[] = [
    { path: path.join(parent, "bundled"), origin: "bundled" },
    { path: path.join(parent, "global"), origin: "global" },
    { path: path.join(parent, "agent"), origin: "agent", agentId: "a1" },
    { path: path.join(parent, "project"), origin: "project", projectId: "p1" },
    { path: path.join(parent, "global2"), origin: "global" },
  ];
  for (const [index, source] of origins.entries()) for (const name of ["one", "two", "three"]) writeSkill(source.path, `${name}-${index}`);
  const registry = createRegistry(origins, { env: () => ({}) });
  const twin = createRegistry(origins, { env: () => ({}) });
  t.after(() => Promise.all([registry.close(), twin.close()]));
  await registry.refresh();
  for (const [index, source] of origins.entries()) {
    for (const name of ["one", "three"]) {
      const before = registry.snapshot();
      const shown = before.skills.map((s) => [s.name, s.description]);
      writeSkill(source.path, `${name}-${index}`, { description: `Edited in ${index}.` });
      const outcome = await registry.refreshAfterChange(new Map([[index, [path.join(source.path, `${name}-${index}`)]]]));
      assert.ok(outcome.ok && outcome.changed, `${name}-${index}`);
      await twin.refresh();
      assert.deepEqual(meaning(registry.snapshot()), meaning(twin.snapshot()), `${name}-${index}`);
      assert.deepEqual(
        before.skills.map((s) => [s.name, s.description]),
        shown,
        "a snapshot already handed out never changes",
      );
      assert.ok(Object.isFrozen(registry.snapshot().skills));
    }
  }
});

test("a partial rescan walks nothing outside the changed directories", async (t) => {
  const root = tempDir(t);
  for (let i = 0; i < 5; i++) writeSkill(root, `s${i}`);
  const registry = createRegistry([{ path: root, origin: "global" }], { env: () => ({}) });
  t.after(() => registry.close());
  await registry.refresh();
  // Changed on disk, but not named: a partial rescan must not see it; a whole one does.
  writeSkill(root, "s1", { description: "Changed but not reported." });
  writeSkill(root, "s3", { description: "Changed and reported." });
  const reads = registry.stats().reads;
  await registry.refreshAfterChange(new Map([[0, [path.join(root, "s3")]]]));
  assert.equal(registry.stats().reads, reads + 1);
  const described = (name: string) => registry.snapshot().skills.find((s) => s.name === name)?.description;
  assert.equal(described("s3"), "Changed and reported.");
  assert.equal(described("s1"), "Does s1 things.");
  await registry.refresh();
  assert.equal(described("s1"), "Changed but not reported.");
});

test("a partial rescan keeps the depth limit of the source, not of the changed directory", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "top");
  const registry = createRegistry([{ path: root, origin: "global" }], { env: () => ({}) });
  t.after(() => registry.close());
  await registry.refresh();
  // MAX_SKILL_DEPTH levels below the root, and one more.
  const deepest = path.join(root, ...Array.from({ length: MAX_SKILL_DEPTH - 1 }, (_, i) => `l${i + 1}`));
  writeSkill(deepest, "at-limit");
  writeSkill(path.join(deepest, "one-more"), "too-deep");
  await registry.refreshAfterChange(new Map([[0, [path.join(root, "l1")]]]));
  const partialNames = registry.snapshot().skills.map((s) => s.name).sort();
  assert.deepEqual(partialNames, (await fullScan([{ path: root, origin: "global" }])).skills.map((s) => s.name).sort());
  assert.ok(partialNames.includes("at-limit"));
  assert.ok(!partialNames.includes("too-deep"));
});

test("a change naming the source root, or a source never walked, walks that source whole", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "one");
  const registry = createRegistry([{ path: root, origin: "global" }], { env: () => ({}) });
  t.after(() => registry.close());
  await registry.refresh();
  writeSkill(root, "two");
  writeSkill(root, "one", { description: "Edited." });
  await registry.refreshAfterChange(new Map([[0, [root]]]));
  assert.deepEqual(registry.snapshot().skills.map((s) => [s.name, s.description]), [["one", "Edited."], ["two", "Does two things."]]);
});

test("changes reported while a scan runs are merged into one follow-up scan", async (t) => {
  const root = tempDir(t);
  for (let i = 0; i < 3; i++) writeSkill(root, `s${i}`);
  const registry = createRegistry([{ path: root, origin: "global" }], { env: () => ({}) });
  t.after(() => registry.close());
  await registry.refresh();
  const scans = registry.stats().scans;
  writeSkill(root, "s0", { description: "First." });
  const running = registry.refresh();
  writeSkill(root, "s1", { description: "Second." });
  writeSkill(root, "s2", { description: "Third." });
  const one = registry.refreshAfterChange(new Map([[0, [path.join(root, "s1")]]]));
  const two = registry.refreshAfterChange(new Map([[0, [path.join(root, "s2")]]]));
  await Promise.all([running, one, two]);
  assert.equal(one, two, "one follow-up for both");
  assert.equal(registry.stats().scans, scans + 2);
  assert.deepEqual(registry.snapshot().skills.map((s) => s.description), ["First.", "Second.", "Third."]);
});

test("a file re-read through one source is not served from another source's last place for it", async (t) => {
  const root = tempDir(t);
  const inner = path.join(root, "cat");
  writeSkill(inner, "shared");
  writeSkill(inner, "other");
  // The inner source lies inside the outer one: both reach cat/shared, through one cache entry.
  const sources: SkillSource[] = [
    { path: root, origin: "global" },
    { path: inner, origin: "project" },
  ];
  const registry = createRegistry(sources, { env: () => ({}) });
  t.after(() => registry.close());
  await registry.refresh();
  writeSkill(inner, "shared", { description: "Edited." });
  // Only the outer source is told: it reads the file again, and the inner one is taken as it was.
  await registry.refreshAfterChange(new Map([[0, [path.join(inner, "shared")]]]));
  // Now the inner source is walked in part elsewhere: its copy of shared, kept in place, must be the file as read now.
  writeSkill(inner, "other", { description: "Other edited." });
  await registry.refreshAfterChange(new Map([[1, [path.join(inner, "other")]]]));
  const copies = registry.snapshot().skills.filter((s) => s.name === "shared");
  assert.deepEqual(
    copies.map((s) => [s.origin, s.description]).sort(),
    [
      ["global", "Edited."],
      ["project", "Edited."],
    ],
  );
});
