import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { DEFAULT_WALK_OPTIONS, discoverSource, statSkillFile, type WalkOptions } from "../../src/registry/discover.js";
import { TimeSlicer } from "../../src/registry/time-slice.js";
import { tempDir, writeSkill } from "./skill-tree.js";

const discover = (root: string, options: Partial<WalkOptions> = {}) =>
  discoverSource(root, new TimeSlicer(), statSkillFile, { ...DEFAULT_WALK_OPTIONS, ...options });
const dirsOf = (found: { dir: string }[], root: string) => found.map((f) => path.relative(root, f.dir));
const codes = (diagnostics: { code: string }[]) => diagnostics.map((d) => d.code);

test("nested categories are searched down to six levels below the source: a skill at six is found, one at seven is not", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "top");
  writeSkill(path.join(root, "cat"), "one-down");
  writeSkill(path.join(root, "cat", "sub"), "two-down");
  writeSkill(path.join(root, "c1", "c2", "c3", "c4", "c5"), "at-depth-six");
  writeSkill(path.join(root, "d1", "d2", "d3", "d4", "d5", "d6"), "at-depth-seven");
  const { found, diagnostics, failed } = await discover(root);
  assert.deepEqual(dirsOf(found, root).sort(), ["c1/c2/c3/c4/c5/at-depth-six", "cat/one-down", "cat/sub/two-down", "top"]);
  assert.equal(failed, false);
  assert.deepEqual(codes(diagnostics), ["depth_limit"], "the unsearched branch is reported");
  assert.equal(diagnostics[0]!.path, path.join(root, "d1", "d2", "d3", "d4", "d5", "d6"));
});

test("found skills come in sorted walk order with their SKILL.md stamp", async (t) => {
  const root = tempDir(t);
  for (const name of ["b-skill", "a-skill", "c-skill"]) writeSkill(root, name);
  const { found } = await discover(root);
  assert.deepEqual(dirsOf(found, root), ["a-skill", "b-skill", "c-skill"]);
  const stat = fs.statSync(path.join(root, "a-skill", "SKILL.md"));
  assert.deepEqual(found[0]!.stamp, { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino });
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

test("skills inside another skill's scripts/, references/ or assets/ are its files, not separate skills", async (t) => {
  const root = tempDir(t);
  const outer = writeSkill(root, "outer");
  for (const folder of ["scripts", "references", "assets"]) writeSkill(path.join(outer, folder), `in-${folder}`);
  const { found } = await discover(root);
  assert.deepEqual(dirsOf(found, root), ["outer"]);
});

test("a skill nested in another skill's other folders is found, after the outer one", async (t) => {
  const root = tempDir(t);
  const outer = writeSkill(root, "outer");
  writeSkill(path.join(outer, "examples"), "inner");
  writeSkill(path.join(outer, "examples", "inner", "more"), "innermost");
  writeSkill(path.join(outer, "scripts"), "not-a-skill");
  writeSkill(root, "sibling");
  const { found, diagnostics } = await discover(root);
  assert.deepEqual(dirsOf(found, root), ["outer", "outer/examples/inner", "outer/examples/inner/more/innermost", "sibling"]);
  assert.deepEqual(diagnostics, []);
});

test("a skill that is the source itself is searched below too", async (t) => {
  const root = tempDir(t);
  const solo = writeSkill(root, "solo");
  writeSkill(path.join(solo, "variants"), "solo-variant");
  const { found } = await discover(solo);
  assert.deepEqual(dirsOf(found, solo), ["", "variants/solo-variant"]);
});

test("deep folders inside a skill are its content: no depth warning below a skill", async (t) => {
  const root = tempDir(t);
  const outer = writeSkill(path.join(root, "a", "b"), "outer");
  fs.mkdirSync(path.join(outer, "examples", "x", "y", "z", "w"), { recursive: true });
  const { found, diagnostics } = await discover(root);
  assert.deepEqual(dirsOf(found, root), ["a/b/outer"]);
  assert.deepEqual(diagnostics, []);
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
  assert.deepEqual(await discover(path.join(root, "does-not-exist")), { found: [], diagnostics: [], privateRefusals: [], failed: false });
  assert.deepEqual(await discover(path.join(root, "no", "such", "nested")), { found: [], diagnostics: [], privateRefusals: [], failed: false });
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

test("a source's maxDirectories: exactly that many directories load whole; one more stops the walk with a diagnostic", async (t) => {
  const root = tempDir(t);
  const max = 20;
  for (let i = 0; i < max; i++) writeSkill(root, `s-${String(i).padStart(2, "0")}`);
  const atLimit = await discover(root, { maxDirectories: max });
  assert.equal(atLimit.found.length, max);
  assert.deepEqual(atLimit.diagnostics, []);

  writeSkill(root, `s-${max}`);
  const past = await discover(root, { maxDirectories: max });
  assert.equal(past.found.length, max);
  assert.equal(path.basename(past.found.at(-1)!.dir), `s-${max - 1}`);
  assert.deepEqual(codes(past.diagnostics), ["directory_limit"]);
  assert.match(past.diagnostics[0]!.message, /Stopped after 20 directories .*maxDirectories/);
});

test("without maxDirectories a source visits 50,000 directories whole; the 50,001st stops the walk", { timeout: 300_000 }, async (t) => {
  const root = tempDir(t);
  assert.equal(DEFAULT_WALK_OPTIONS.maxDirectories, 50_000);
  // Empty categories first, then one skill that sorts last: the 50,000th directory visited.
  for (let i = 0; i < 49_999; i++) fs.mkdirSync(path.join(root, `d-${String(i).padStart(5, "0")}`));
  writeSkill(root, "zz-last");
  const atLimit = await discover(root);
  assert.deepEqual(dirsOf(atLimit.found, root), ["zz-last"]);
  assert.deepEqual(atLimit.diagnostics, []);

  fs.mkdirSync(path.join(root, "d-49999"));
  const past = await discover(root);
  assert.deepEqual(past.found, []);
  assert.deepEqual(codes(past.diagnostics), ["directory_limit"]);
  assert.match(past.diagnostics[0]!.message, /Stopped after 50000 directories/);
});

test("category directories and a skill's own subfolders count toward maxDirectories; resource folders do not", async (t) => {
  const root = tempDir(t);
  for (let i = 0; i < 5; i++) fs.mkdirSync(path.join(root, `empty-${i}`));
  writeSkill(root, "zz-after-the-bound");
  const stopped = await discover(root, { maxDirectories: 5 });
  assert.deepEqual(stopped.found, []);
  assert.deepEqual(codes(stopped.diagnostics), ["directory_limit"]);

  const other = tempDir(t);
  const skill = writeSkill(other, "with-folders");
  for (const folder of ["scripts", "references", "assets"]) fs.mkdirSync(path.join(skill, folder));
  fs.mkdirSync(path.join(skill, "examples"));
  // The skill and its examples/: two directories; its three resource folders are never visited.
  assert.deepEqual(codes((await discover(other, { maxDirectories: 2 })).diagnostics), []);
  assert.deepEqual(codes((await discover(other, { maxDirectories: 1 })).diagnostics), ["directory_limit"]);
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

test("with external links off, a link into a sibling whose name only begins with the source's (src-evil beside src) is not followed", async (t) => {
  const base = tempDir(t);
  const source = path.join(base, "src");
  const own = writeSkill(source, "own");
  const stolen = writeSkill(path.join(base, "src-evil"), "stolen");
  fs.symlinkSync(stolen, path.join(source, "link-dir"));
  fs.symlinkSync(path.join(base, "src-evil"), path.join(source, "link-category"));
  fs.mkdirSync(path.join(source, "link-file"));
  fs.symlinkSync(path.join(stolen, "SKILL.md"), path.join(source, "link-file", "SKILL.md"));
  const { found, diagnostics } = await discover(source, { followExternalLinks: false });
  assert.deepEqual(found.map((f) => f.dir), [own]);
  assert.deepEqual(
    diagnostics.map((d) => [d.code, path.relative(source, d.path)]).sort(),
    [["symlink_external", "link-category"], ["symlink_external", "link-dir"], ["symlink_external", "link-file/SKILL.md"]],
  );
});

test("an agent's private folder does not claim a sibling whose name only begins with it (private-evil beside private)", async (t) => {
  const base = tempDir(t);
  const source = path.join(base, "shared");
  const sibling = writeSkill(path.join(base, "private-evil"), "public-one");
  const secret = writeSkill(path.join(base, "private"), "secret-one");
  fs.mkdirSync(source);
  fs.symlinkSync(sibling, path.join(source, "to-sibling"));
  fs.symlinkSync(secret, path.join(source, "to-private"));
  const privateRoots = [{ path: path.join(base, "private"), owners: ["a"] }];
  const { found, diagnostics, privateRefusals } = await discover(source, { privateRoots });
  assert.deepEqual(found.map((f) => f.dir), [sibling]);
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(privateRefusals.map((r) => [r.owner, path.relative(source, r.diagnostic.path)]), [["a", "to-private"]]);
});

test("a source root that is a symlink is resolved", async (t) => {
  const root = tempDir(t);
  const real = path.join(root, "real-root");
  writeSkill(real, "inside");
  fs.symlinkSync(real, path.join(root, "root-link"));
  const { found } = await discover(path.join(root, "root-link"));
  assert.deepEqual(found.map((f) => f.dir), [path.join(real, "inside")]);
});

test("a walk that yields often finds what a walk in one go finds, in the same order", async (t) => {
  const root = tempDir(t);
  const expected: string[] = [];
  for (let i = 0; i < 300; i++) {
    const name = `s-${String(i).padStart(3, "0")}`;
    const dir = writeSkill(path.join(root, `cat-${i % 3}`), name);
    expected.push(`cat-${i % 3}/${name}`);
    if (i % 7 === 0) {
      writeSkill(path.join(dir, "scripts"), "not-a-skill");
      writeSkill(path.join(dir, "examples"), "inner");
      expected.push(`cat-${i % 3}/${name}/examples/inner`);
    }
    if (i % 11 === 0) fs.mkdirSync(path.join(dir, ".hidden", "x"), { recursive: true });
  }
  // Slices of no length: the walk yields at every directory.
  const yielding = await discoverSource(root, new TimeSlicer(0, 0), statSkillFile, DEFAULT_WALK_OPTIONS);
  const inOneGo = await discover(root);
  assert.deepEqual(dirsOf(yielding.found, root).sort(), expected.sort());
  assert.deepEqual(dirsOf(yielding.found, root), dirsOf(inOneGo.found, root), "the same skills in the same walk order");
  assert.deepEqual(yielding.diagnostics, []);
  assert.equal(yielding.failed, false);
});
