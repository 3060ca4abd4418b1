import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { DEFAULT_MAX_READ_BYTES, isInside, normaliseSkillPath, readConfinedFile } from "../../src/package/confined-read.js";
import { tempDir } from "../support/tmp.js";

const root = fs.realpathSync(tempDir("skillport-confined-"));
const skill = path.join(root, "a");
const evil = path.join(root, "a-evil");
const outside = path.join(root, "outside");
fs.mkdirSync(path.join(skill, "references", "nested"), { recursive: true });
fs.mkdirSync(path.join(skill, "assets"), { recursive: true });
fs.mkdirSync(evil, { recursive: true });
fs.mkdirSync(outside, { recursive: true });
fs.writeFileSync(path.join(skill, "SKILL.md"), "---\nname: a\ndescription: d\n---\nbody\n");
fs.writeFileSync(path.join(skill, "references", "guide.md"), "# Guide\n");
fs.writeFileSync(path.join(skill, "references", "nested", "deep.md"), "deep\n");
fs.writeFileSync(path.join(skill, "references", "%2e%2e"), "literal name\n");
fs.writeFileSync(path.join(evil, "secret.md"), "evil secret\n");
fs.writeFileSync(path.join(outside, "secret.txt"), "outside secret\n");
fs.symlinkSync(path.join(outside, "secret.txt"), path.join(skill, "references", "escape.md"));
fs.symlinkSync(outside, path.join(skill, "references", "linked-dir"));
fs.symlinkSync(path.join(skill, "references", "guide.md"), path.join(skill, "assets", "inner-link.md"));
fs.symlinkSync("loop-b", path.join(skill, "references", "loop-a"));
fs.symlinkSync("loop-a", path.join(skill, "references", "loop-b"));
fs.writeFileSync(path.join(skill, "assets", "binary.bin"), Buffer.from([0x66, 0x6f, 0xff, 0xfe, 0x6f]));
const fifo = spawnSync("mkfifo", [path.join(skill, "references", "pipe")]);
assert.equal(fifo.status, 0, "mkfifo must succeed for the FIFO cases");

test("normalises backslashes and repeated slashes, keeps literal percent names", () => {
  assert.deepEqual(normaliseSkillPath("references\\nested\\deep.md"), {
    ok: true,
    path: "references/nested/deep.md",
    segments: ["references", "nested", "deep.md"],
  });
  assert.equal((normaliseSkillPath("references//guide.md") as { path: string }).path, "references/guide.md");
  assert.equal((normaliseSkillPath("references/%2e%2e") as { path: string }).path, "references/%2e%2e");
});

const illegal: Array<[string, string]> = [
  ["empty", ""],
  ["blank", "   "],
  ["dot", "."],
  ["only dot segments", "./."],
  ["parent", "../x"],
  ["parent inside", "references/../../x"],
  ["backslash parent", "references\\..\\..\\x"],
  ["absolute", "/etc/passwd"],
  ["unc", "//server/share"],
  ["drive", "C:\\x"],
  ["drive relative", "C:x"],
  ["nul", "references/a\u0000b"],
  ["only slashes", "///"],
];
for (const [label, input] of illegal) {
  test(`refuses ${label} path as illegal_path`, async () => {
    const result = await readConfinedFile(skill, input);
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.reason, "illegal_path");
  });
}

test("drops `.` and empty segments: `./references/./guide.md` is `references/guide.md`", async () => {
  assert.deepEqual(normaliseSkillPath("./references/.//guide.md"), { ok: true, path: "references/guide.md", segments: ["references", "guide.md"] });
  const result = await readConfinedFile(skill, ".\\references\\.\\guide.md");
  assert.equal(result.ok && result.path, "references/guide.md");
});

test("reads a file inside the skill, with a normalised relative path", async () => {
  const result = await readConfinedFile(skill, "references\\nested\\deep.md");
  assert.deepEqual(result, { ok: true, path: "references/nested/deep.md", content: "deep\n", size: 5, truncated: false });
});

test("a `%2e%2e` file name is literal, never decoded", async () => {
  const result = await readConfinedFile(skill, "references/%2e%2e");
  assert.equal(result.ok && result.content, "literal name\n");
});

test("a symlink that stays inside the skill is followed", async () => {
  const result = await readConfinedFile(skill, "assets/inner-link.md");
  assert.equal(result.ok && result.content, "# Guide\n");
  assert.equal(result.ok && result.path, "assets/inner-link.md");
});

const refused: Array<[string, string, string]> = [
  ["file symlink out of the skill", "references/escape.md", "illegal_path"],
  ["directory symlink out of the skill", "references/linked-dir/secret.txt", "illegal_path"],
  ["symlink loop", "references/loop-a", "illegal_path"],
  ["missing file", "references/nope.md", "not_found"],
  ["file used as a directory", "references/guide.md/x", "not_found"],
  ["directory", "references/nested", "not_a_file"],
  ["FIFO", "references/pipe", "not_a_file"],
  ["non-UTF-8 file", "assets/binary.bin", "not_utf8"],
];
for (const [label, input, reason] of refused) {
  test(`refuses a ${label} as ${reason}`, async () => {
    const result = await readConfinedFile(skill, input);
    assert.equal(result.ok, false, JSON.stringify(result));
    assert.equal(!result.ok && result.reason, reason);
    assert.ok(!result.ok && !result.message.includes(root), "messages carry no absolute path");
  });
}

test("containment is by whole path components: a sibling `a-evil` is outside `a`", async () => {
  const asSibling = path.join(root, "a-evil");
  // Reach the sibling through a link, the only way a relative path without `..` can name it.
  fs.symlinkSync(asSibling, path.join(skill, "assets", "sibling"));
  const result = await readConfinedFile(skill, "assets/sibling/secret.md");
  assert.equal(!result.ok && result.reason, "illegal_path");
  // The same file read from its own skill is fine.
  const own = await readConfinedFile(evil, "secret.md");
  assert.equal(own.ok && own.content, "evil secret\n");
});

test("a skill directory that is not its own real path is refused: a registered skill's is, so a link there was swapped in since", async () => {
  const alias = path.join(root, "alias");
  fs.symlinkSync(skill, alias);
  const result = await readConfinedFile(alias, "references/guide.md");
  assert.deepEqual([result.ok, !result.ok && result.reason], [false, "illegal_path"]);
  assert.match(!result.ok ? result.message : "", /no longer the one its skill was loaded from/);
  assert.equal((await readConfinedFile(skill, "references/guide.md")).ok, true, "the real folder itself is read");
});

test("a 1 MiB file is cut on a character boundary with a notice naming its size", async () => {
  // One ASCII byte then two-byte characters: the 256 KiB mark falls inside a character.
  const text = "x" + "é".repeat(512 * 1024);
  const size = Buffer.byteLength(text);
  assert.ok(size > 1024 * 1024);
  fs.writeFileSync(path.join(skill, "references", "big.md"), text);
  const result = await readConfinedFile(skill, "references/big.md");
  assert.ok(result.ok);
  assert.equal(result.truncated, true);
  assert.equal(result.size, size);
  const [shown, notice] = result.content.split("\n\n[File truncated");
  assert.equal(Buffer.byteLength(shown!), DEFAULT_MAX_READ_BYTES - 1, "the split character is left out whole");
  assert.ok(text.startsWith(shown!));
  assert.ok(notice!.includes(String(size)), notice);
});

test("a file of exactly the limit is returned whole", async () => {
  fs.writeFileSync(path.join(skill, "references", "exact.md"), "y".repeat(100));
  const result = await readConfinedFile(skill, "references/exact.md", { maxBytes: 100 });
  assert.ok(result.ok);
  assert.equal(result.truncated, false);
  assert.equal(result.content, "y".repeat(100));
});

test("a cut that lands on a four-byte character keeps whole characters only", async () => {
  fs.writeFileSync(path.join(skill, "references", "emoji.md"), "😀😀😀");
  for (let maxBytes = 1; maxBytes < 12; maxBytes++) {
    const result = await readConfinedFile(skill, "references/emoji.md", { maxBytes });
    assert.ok(result.ok, `maxBytes ${maxBytes}`);
    const shown = result.content.split("\n\n[File truncated")[0]!;
    assert.equal(shown, "😀".repeat(Math.floor(maxBytes / 4)));
  }
});

test("a path component longer than the file system allows is not_found", async () => {
  const result = await readConfinedFile(skill, `references/${"x".repeat(300)}.md`);
  assert.equal(result.ok, false);
  assert.equal(!result.ok && result.reason, "not_found");
});

test("a missing skill directory is not_found, never a throw", async () => {
  const result = await readConfinedFile(path.join(root, "gone"), "SKILL.md");
  assert.equal(!result.ok && result.reason, "not_found");
});

test("a nested skill's files, another source's root and links into either are not found through the enclosing skill; a SKILL.md in a resource folder is just a file", async () => {
  const outer = path.join(root, "outer");
  const write = (rel: string, content: string) => {
    fs.mkdirSync(path.dirname(path.join(outer, rel)), { recursive: true });
    fs.writeFileSync(path.join(outer, rel), content);
  };
  write("SKILL.md", "---\nname: outer\ndescription: d\n---\n");
  write("guide.md", "own guide\n");
  write("group/inner/SKILL.md", "---\nname: inner\ndescription: d\n---\ninner body\n");
  write("group/inner/notes.md", "inner notes\n");
  write("group/kept.md", "kept\n");
  // A lowercase marker, and a linked one (even dangling), make a skill as SKILL.md does.
  write("lower/skill.md", "---\nname: lower\ndescription: d\n---\n");
  write("lower/x.md", "lower x\n");
  fs.mkdirSync(path.join(outer, "linked-marker"));
  fs.symlinkSync("nowhere", path.join(outer, "linked-marker", "SKILL.md"));
  write("linked-marker/y.md", "linked y\n");
  write("references/example/SKILL.md", "an example, not a skill\n");
  write("references/example/x.md", "example x\n");
  // Another source's root: no marker needed, its files are that source's.
  write("private-root/roster.md", "roster\n");
  write("private-root/deep/file.md", "deep\n");
  fs.symlinkSync(path.join(outer, "group", "inner"), path.join(outer, "inner-link"));
  fs.symlinkSync(path.join(outer, "group", "inner", "notes.md"), path.join(outer, "notes-link.md"));
  fs.symlinkSync(path.join(outer, "private-root", "roster.md"), path.join(outer, "references", "roster-link.md"));
  const sourceRoots = [path.join(root, "unrelated"), path.join(outer, "private-root")];

  for (const filePath of [
    "group/inner/SKILL.md",
    "group/inner/notes.md",
    "group/inner",
    "lower/x.md",
    "linked-marker/y.md",
    "private-root/roster.md",
    "private-root/deep/file.md",
    "private-root",
    "inner-link/notes.md",
    "notes-link.md",
    "references/roster-link.md",
  ]) {
    const result = await readConfinedFile(outer, filePath, { sourceRoots });
    assert.equal(result.ok, false, `${filePath}: ${JSON.stringify(result)}`);
    assert.equal(!result.ok && result.reason, "not_found", filePath);
    assert.equal(!result.ok && result.message, `Cannot read ${JSON.stringify(filePath)}: no such file in this skill.`, filePath);
  }
  for (const [filePath, content] of [
    ["guide.md", "own guide\n"],
    ["group/kept.md", "kept\n"],
    ["references/example/SKILL.md", "an example, not a skill\n"],
    ["references/example/x.md", "example x\n"],
  ]) {
    const result = await readConfinedFile(outer, filePath!, { sourceRoots });
    assert.equal(result.ok && result.content, content, filePath);
  }
  // Without the roots, a folder with no marker is the skill's own.
  const unnamed = await readConfinedFile(outer, "private-root/roster.md");
  assert.equal(unnamed.ok && unnamed.content, "roster\n");
  // The nested skill reads its own files.
  const inner = await readConfinedFile(path.join(outer, "group", "inner"), "notes.md", { sourceRoots });
  assert.equal(inner.ok && inner.content, "inner notes\n");
});

test("containment is by whole components: a child whose name begins with two dots is inside, a parent or a sibling sharing a prefix is not", () => {
  const dir = path.join(path.sep, "s", "a");
  // Links leading into such a child are judged by this rule: installs, link roots and bundles call it too.
  assert.equal(isInside(dir, path.join(dir, "..notes")), true);
  assert.equal(isInside(dir, path.join(dir, "..", "b")), false);
  assert.equal(isInside(dir, path.join(path.sep, "s", "a-evil", "x")), false);
  assert.equal(isInside(dir, path.join(path.sep, "s")), false);
  assert.equal(isInside(dir, dir), false);
});
