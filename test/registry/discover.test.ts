import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { discoverSource, MAX_DIRECTORIES_PER_SOURCE } from "../../src/registry/discover.js";
import { TimeSlicer } from "../../src/registry/time-slice.js";
import { tempDir, writeSkill } from "./skill-tree.js";

const discover = (root: string) => discoverSource(root, new TimeSlicer());
const dirsOf = (found: { dir: string }[], root: string) => found.map((f) => path.relative(root, f.dir));
const codes = (diagnostics: { code: string }[]) => diagnostics.map((d) => d.code);

test("nested categories are searched down to four levels below the source", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "top");
  writeSkill(path.join(root, "cat"), "one-down");
  writeSkill(path.join(root, "cat", "sub"), "two-down");
  writeSkill(path.join(root, "c1", "c2", "c3"), "at-depth-four");
  writeSkill(path.join(root, "d1", "d2", "d3", "d4"), "at-depth-five");
  const { found, diagnostics, failed } = await discover(root);
  assert.deepEqual(dirsOf(found, root).sort(), ["c1/c2/c3/at-depth-four", "cat/one-down", "cat/sub/two-down", "top"]);
  assert.equal(failed, false);
  const limit = diagnostics.find((d) => d.code === "depth_limit");
  assert.ok(limit, "the unsearched branch is reported");
  assert.equal(limit.path, path.join(root, "d1", "d2", "d3", "d4"));
});

test("found skills come in sorted walk order with their SKILL.md stamp", async (t) => {
  const root = tempDir(t);
  for (const name of ["b-skill", "a-skill", "c-skill"]) writeSkill(root, name);
  const { found } = await discover(root);
  assert.deepEqual(dirsOf(found, root), ["a-skill", "b-skill", "c-skill"]);
  const stat = fs.statSync(path.join(root, "a-skill", "SKILL.md"));
  assert.deepEqual(found[0]!.stamp, { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino });
  assert.equal(found[0]!.skillFile, path.join(root, "a-skill", "SKILL.md"));
});

test(".git, node_modules and dot-directories are skipped", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "kept");
  writeSkill(path.join(root, ".git"), "in-git");
  writeSkill(path.join(root, "node_modules"), "in-modules");
  writeSkill(path.join(root, ".hidden"), "in-hidden");
  writeSkill(path.join(root, "cat", "node_modules"), "nested-modules");
  const { found } = await discover(root);
  assert.deepEqual(dirsOf(found, root), ["kept"]);
});

test("a skill directory is a leaf: skills inside its resources are not separate skills", async (t) => {
  const root = tempDir(t);
  const outer = writeSkill(root, "outer");
  writeSkill(path.join(outer, "references"), "inner");
  const { found } = await discover(root);
  assert.deepEqual(dirsOf(found, root), ["outer"]);
});

test("a source that is itself a skill directory yields that one skill", async (t) => {
  const root = tempDir(t);
  const skill = writeSkill(root, "solo");
  const { found, diagnostics } = await discover(skill);
  assert.deepEqual(found.map((f) => f.dir), [skill]);
  assert.deepEqual(diagnostics, []);
});

test("a missing source contributes nothing and reports nothing; a file as source is reported", async (t) => {
  const root = tempDir(t);
  assert.deepEqual(await discover(path.join(root, "does-not-exist")), { found: [], diagnostics: [], failed: false });
  assert.deepEqual(await discover(path.join(root, "no", "such", "nested")), { found: [], diagnostics: [], failed: false });
  const file = path.join(root, "plain.txt");
  fs.writeFileSync(file, "x");
  const result = await discover(file);
  assert.deepEqual(result.found, []);
  assert.deepEqual(codes(result.diagnostics), ["source_not_directory"]);
});

test("a lowercase skill.md marks a skill too", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "lower", { lowercase: true });
  const { found } = await discover(root);
  assert.equal(found.length, 1);
  assert.equal(path.basename(found[0]!.skillFile), "skill.md");
});

test(`the walk stops after ${MAX_DIRECTORIES_PER_SOURCE} directories with a diagnostic`, async (t) => {
  const root = tempDir(t);
  const total = MAX_DIRECTORIES_PER_SOURCE + 3;
  for (let i = 0; i < total; i++) writeSkill(root, `s-${String(i).padStart(4, "0")}`);
  const { found, diagnostics } = await discover(root);
  assert.equal(found.length, MAX_DIRECTORIES_PER_SOURCE);
  assert.equal(path.basename(found.at(-1)!.dir), `s-${String(MAX_DIRECTORIES_PER_SOURCE - 1).padStart(4, "0")}`);
  assert.deepEqual(codes(diagnostics), ["directory_limit"]);
});

test("category directories count toward the directory bound", async (t) => {
  const root = tempDir(t);
  for (let i = 0; i < MAX_DIRECTORIES_PER_SOURCE; i++) fs.mkdirSync(path.join(root, `empty-${String(i).padStart(4, "0")}`));
  writeSkill(root, "zz-after-the-bound");
  const { found, diagnostics } = await discover(root);
  assert.deepEqual(found, []);
  assert.deepEqual(codes(diagnostics), ["directory_limit"]);
});

test("symlinked skill directories and SKILL.md files are followed, to their real paths", async (t) => {
  const root = tempDir(t);
  const elsewhere = tempDir(t);
  const real = writeSkill(elsewhere, "linked-dir");
  fs.symlinkSync(real, path.join(root, "linked-dir"));
  const fileSkill = path.join(root, "linked-file");
  fs.mkdirSync(fileSkill);
  const target = path.join(elsewhere, "stored.md");
  fs.writeFileSync(target, "---\nname: linked-file\ndescription: Kept elsewhere.\n---\nBody\n");
  fs.symlinkSync(target, path.join(fileSkill, "SKILL.md"));
  const { found, diagnostics } = await discover(root);
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(found.map((f) => f.dir), [real, fileSkill]);
  assert.equal(found[1]!.stamp.size, fs.statSync(target).size, "the stamp is the target's");
});

test("one real directory reached twice loads once", async (t) => {
  const root = tempDir(t);
  const real = writeSkill(root, "original");
  fs.symlinkSync(real, path.join(root, "alias-a"));
  fs.symlinkSync(real, path.join(root, "alias-b"));
  const { found, diagnostics } = await discover(root);
  assert.deepEqual(found.map((f) => f.dir), [real]);
  assert.deepEqual(diagnostics, []);
});

test("a directory walked plainly before any link is still known when a later link reaches it", async (t) => {
  // The walk lists plain directories without a set until it meets its first link; this is the
  // order where that list alone must catch the repeat: the real directories first, links after.
  const root = tempDir(t);
  const first = writeSkill(root, "a-original");
  const nested = writeSkill(path.join(root, "b-category"), "nested-skill");
  fs.symlinkSync(first, path.join(root, "c-alias"));
  fs.symlinkSync(nested, path.join(root, "d-alias"));
  const later = writeSkill(root, "e-after-links");
  fs.symlinkSync(later, path.join(root, "f-alias"));
  const { found, diagnostics } = await discover(root);
  assert.deepEqual(found.map((f) => f.dir), [first, nested, later]);
  assert.deepEqual(diagnostics, []);
});

test("a symlink back to an ancestor ends that branch with a loop diagnostic", async (t) => {
  const root = tempDir(t);
  writeSkill(path.join(root, "cat"), "real-skill");
  fs.symlinkSync(root, path.join(root, "cat", "back-to-root"));
  fs.symlinkSync(path.join(root, "cat"), path.join(root, "cat", "self"));
  const { found, diagnostics } = await discover(root);
  assert.deepEqual(dirsOf(found, root), ["cat/real-skill"]);
  assert.deepEqual(codes(diagnostics).sort(), ["symlink_loop", "symlink_loop"]);
  assert.ok(diagnostics.some((d) => d.path === path.join(root, "cat", "back-to-root")));
});

test("self-referencing and broken symlinks are reported, not followed", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "fine");
  fs.symlinkSync(path.join(root, "ping"), path.join(root, "pong"));
  fs.symlinkSync(path.join(root, "pong"), path.join(root, "ping"));
  fs.symlinkSync(path.join(root, "nowhere"), path.join(root, "dangling"));
  const { found, diagnostics } = await discover(root);
  assert.deepEqual(dirsOf(found, root), ["fine"]);
  assert.deepEqual(codes(diagnostics).sort(), ["symlink_broken", "symlink_loop", "symlink_loop"]);
});

test("a source root that is a symlink is resolved", async (t) => {
  const root = tempDir(t);
  const real = path.join(root, "real-root");
  writeSkill(real, "inside");
  fs.symlinkSync(real, path.join(root, "root-link"));
  const { found } = await discover(path.join(root, "root-link"));
  assert.deepEqual(found.map((f) => f.dir), [path.join(real, "inside")]);
});
