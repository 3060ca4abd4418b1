import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { loadSkillSync } from "../../src/package/load.js";
import { fromWire, frozenLoad, toPlacedWire, toWire, type LoadedSkill } from "../../src/registry/skill-wire.js";
import { tempDir, writeSkill } from "./skill-tree.js";
import { CORPUS } from "../support/tmp.js";

const corpusRoot = CORPUS;

/** What crossing a thread boundary does to a record: serialise, then rebuild on the other side. */
function acrossThreads(dir: string): { direct: LoadedSkill; crossed: LoadedSkill } {
  const result = loadSkillSync(dir);
  const skillFile = result.skill?.skillFile ?? path.join(dir, "SKILL.md");
  return { direct: { skill: result.skill, diagnostics: result.diagnostics }, crossed: fromWire(structuredClone(toWire(result)), dir, skillFile) };
}

function assertFrozenAllTheWay(value: unknown, where: string): void {
  if (typeof value !== "object" || value === null) return;
  assert.ok(Object.isFrozen(value), `${where} is frozen`);
  for (const [key, inner] of Object.entries(value)) assertFrozenAllTheWay(inner, `${where}.${key}`);
}

/**
 * Every part a registered record shares with the snapshot is frozen all the way down; the
 * package object around them is raw material the registry drops once it registers the record.
 */
function assertSharedPartsFrozen(loaded: LoadedSkill, where: string): void {
  assertFrozenAllTheWay(loaded.diagnostics, `${where}.diagnostics`);
  if (!loaded.skill) return;
  assertFrozenAllTheWay(loaded.skill.manifest, `${where}.skill.manifest`);
  assertFrozenAllTheWay(loaded.skill.stamp, `${where}.skill.stamp`);
  assertFrozenAllTheWay(loaded.skill.diagnostics, `${where}.skill.diagnostics`);
}

test("every corpus skill crosses the wire unchanged, with its manifest keys in the loader's order", () => {
  const names = fs.readdirSync(corpusRoot).filter((name) => fs.existsSync(path.join(corpusRoot, name, "SKILL.md")));
  assert.ok(names.length >= 12);
  for (const name of names) {
    const { direct, crossed } = acrossThreads(path.join(corpusRoot, name));
    assert.ok(direct.skill, name);
    assert.deepEqual(crossed, direct, name);
    assert.deepEqual(Object.keys(crossed.skill!.manifest), Object.keys(direct.skill!.manifest), name);
    assertSharedPartsFrozen(crossed, name);
  }
});

test("a load on the registry's own thread gives the same record as one crossing the wire, its shared parts frozen", () => {
  const names = fs.readdirSync(corpusRoot).filter((name) => fs.existsSync(path.join(corpusRoot, name, "SKILL.md")));
  for (const name of names) {
    const dir = path.join(corpusRoot, name);
    const { crossed } = acrossThreads(dir);
    const here = frozenLoad(loadSkillSync(dir));
    assert.deepEqual(here, crossed, name);
    assert.deepEqual(Object.keys(here.skill!.manifest), Object.keys(crossed.skill!.manifest), name);
    assertSharedPartsFrozen(here, name);
  }
});

/** Frontmatter lines that set each manifest field away from its default. */
const shapes: Record<string, string> = {
  "all-fields": [
    "license: MIT",
    "compatibility: Needs a shell",
    "metadata:",
    "  owner: team",
    "  nested:",
    "    tier: 2",
    "  requirements:",
    "    all:",
    "      - env: API_TOKEN",
    "      - binary: git",
    "    optional:",
    "      - skill: helper",
    "allowed-tools: Read Grep",
    "tools: [Read]",
    "disable-model-invocation: true",
    "x-custom: kept as written",
  ].join("\n"),
  "compatibility-only": "compatibility: Runs anywhere",
  "license-only": "license: Apache-2.0",
  "bad-requirements": "metadata:\n  requirements:\n    nonsense: true",
  "plain": "",
};

for (const [name, frontmatter] of Object.entries(shapes)) {
  test(`a skill with ${name} crosses the wire unchanged`, (t) => {
    const root = tempDir(t);
    const dir = writeSkill(root, name, { frontmatter });
    const { direct, crossed } = acrossThreads(dir);
    assert.ok(direct.skill, JSON.stringify(direct.diagnostics));
    const manifest = direct.skill.manifest;
    if (name === "all-fields") {
      // The fixture must really move every field off its default, or the test proves little.
      assert.ok(manifest.license && manifest.compatibility && manifest.allowedTools && manifest.tools && manifest.requirements);
      assert.equal(manifest.disableModelInvocation, true);
      assert.equal(manifest.extra["x-custom"], "kept as written");
      assert.equal(manifest.metadata.owner, "team");
    }
    if (name === "bad-requirements") assert.ok(manifest.requirementsError);
    assert.deepEqual(crossed, direct);
    assert.deepEqual(Object.keys(crossed.skill!.manifest), Object.keys(direct.skill!.manifest));
    assertSharedPartsFrozen(crossed, name);
  });
}

test("warnings, the lowercase file name and failures cross the wire too", (t) => {
  const root = tempDir(t);
  const lower = writeSkill(root, "lower", { lowercase: true });
  const misnamed = writeSkill(root, "misnamed", { frontmatter: "" });
  fs.writeFileSync(path.join(misnamed, "SKILL.md"), "---\nname: other-name\ndescription: Named differently.\n---\nBody\n");
  const broken = path.join(root, "broken");
  fs.mkdirSync(broken);
  fs.writeFileSync(path.join(broken, "SKILL.md"), "---\nname: broken\ndescription: [unclosed\n---\n");

  const lowerCrossed = acrossThreads(lower);
  assert.equal(path.basename(lowerCrossed.crossed.skill!.skillFile), "skill.md");
  assert.deepEqual(lowerCrossed.crossed, lowerCrossed.direct);
  assert.ok(lowerCrossed.crossed.diagnostics.some((d) => d.code === "skill_file_lowercase"));

  const misnamedCrossed = acrossThreads(misnamed);
  assert.ok(misnamedCrossed.direct.diagnostics.length > 0, "the fixture has a warning");
  assert.deepEqual(misnamedCrossed.crossed, misnamedCrossed.direct);
  assert.equal(misnamedCrossed.crossed.skill!.diagnostics, misnamedCrossed.crossed.diagnostics, "one list, as the loader gives it");

  const brokenCrossed = acrossThreads(broken);
  assert.equal(brokenCrossed.crossed.skill, null);
  assert.deepEqual(brokenCrossed.crossed, brokenCrossed.direct);
  assertSharedPartsFrozen(brokenCrossed.crossed, "broken");
});

test("a placed record carries the walk's paths and stamp and rebuilds the same skill", (t) => {
  const root = tempDir(t);
  const dir = writeSkill(root, "placed", { frontmatter: "license: MIT" });
  const result = loadSkillSync(dir);
  const place = { dir, skillFile: path.join(dir, "SKILL.md"), stamp: result.skill!.stamp };
  const wire = structuredClone(toPlacedWire(result, place));
  assert.equal(wire.dir, dir);
  assert.equal(wire.skillFile, place.skillFile);
  assert.deepEqual([wire.size, wire.mtimeMs, wire.ino], [place.stamp.size, place.stamp.mtimeMs, place.stamp.ino]);
  assert.deepEqual(fromWire(wire, wire.dir, wire.skillFile), { skill: result.skill, diagnostics: result.diagnostics });
});
