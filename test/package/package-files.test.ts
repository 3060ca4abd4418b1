/**
 * What an installer may copy out of a package (src/package/package-files.ts), each limit tested
 * exactly at it and one past it, and what makes a package refused whole.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { MAX_PACKAGE_BYTES, MAX_SKILL_FILE_BYTES } from "../../src/package/limits.js";
import { packageWriteProblem, readPackageFiles } from "../../src/package/package-files.js";
import { MAX_RESOURCE_DEPTH, MAX_RESOURCE_DIRECTORIES, MAX_RESOURCE_ENTRIES } from "../../src/package/resources.js";
import { tempDir, writeSkill } from "../support/tmp.js";

function skill(): string {
  return writeSkill(tempDir("skillport-pkgfiles-"), "demo", "name: demo\ndescription: A demo.");
}

function put(dir: string, rel: string, content: string | Buffer = "x"): void {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), content);
}

test("a package's files: SKILL.md and every regular file, dot-entries, node_modules and nested skills left out, links inside followed", () => {
  const dir = skill();
  put(dir, "scripts/run.sh", "#!/bin/sh\n");
  fs.chmodSync(path.join(dir, "scripts/run.sh"), 0o755);
  put(dir, "reference/guide.md");
  put(dir, ".env", "SECRET=1");
  put(dir, ".git/config");
  put(dir, "node_modules/x/index.js");
  writeSkill(dir, "inner", "name: inner\ndescription: Nested.");
  put(dir, "inner/notes.md");
  fs.symlinkSync("reference/guide.md", path.join(dir, "guide-link.md"));
  fs.symlinkSync("reference", path.join(dir, "ref-link"));
  const pkg = readPackageFiles(dir);
  assert.deepEqual(pkg.problems, []);
  assert.deepEqual(pkg.files.map((f) => f.path), ["SKILL.md", "guide-link.md", "ref-link/guide.md", "reference/guide.md", "scripts/run.sh"]);
  assert.deepEqual(pkg.folders, ["ref-link", "reference", "scripts"]);
  assert.equal(pkg.files.find((f) => f.path === "scripts/run.sh")!.executable, true);
  assert.equal(pkg.files.find((f) => f.path === "guide-link.md")!.source, fs.realpathSync(path.join(dir, "reference/guide.md")));
});

test("links out of the skill, links to nothing, link loops and special files refuse the package", () => {
  const dir = skill();
  const outside = path.join(path.dirname(dir), "outside.md");
  fs.writeFileSync(outside, "elsewhere");
  fs.symlinkSync(outside, path.join(dir, "out.md"));
  fs.symlinkSync("missing.md", path.join(dir, "dangling.md"));
  fs.mkdirSync(path.join(dir, "loop"));
  fs.symlinkSync("..", path.join(dir, "loop", "up"));
  execFileSync("mkfifo", [path.join(dir, "pipe")]);
  fs.writeFileSync(path.join(dir, "bad\nname.md"), "x");
  const problems = readPackageFiles(dir).problems;
  assert.deepEqual(problems.sort(), [
    '"bad\\nname.md": its name holds a backslash, a line break or a hidden character, so it could never be listed or read',
    "dangling.md: a link to nothing",
    "loop/up: a link back to a folder above it (a loop)",
    "out.md: a link leading outside the skill",
    "pipe: not a regular file (a FIFO, socket or device)",
  ]);
});

test(`files besides SKILL.md: ${MAX_RESOURCE_ENTRIES} are accepted, one more refuses the package`, () => {
  const dir = skill();
  for (let i = 0; i < MAX_RESOURCE_ENTRIES; i++) put(dir, `f/${i}.md`);
  assert.deepEqual(readPackageFiles(dir).problems, []);
  put(dir, "one-more.md");
  assert.deepEqual(readPackageFiles(dir).problems, [`the package has more than ${MAX_RESOURCE_ENTRIES} files besides SKILL.md`]);
});

test(`bytes: a package of exactly ${MAX_PACKAGE_BYTES} is accepted, one byte more is refused`, () => {
  const dir = skill();
  const manifest = fs.statSync(path.join(dir, "SKILL.md")).size;
  put(dir, "assets/big.bin", Buffer.alloc(MAX_PACKAGE_BYTES - manifest));
  assert.deepEqual(readPackageFiles(dir).problems, []);
  put(dir, "assets/one.bin", Buffer.alloc(1));
  assert.deepEqual(readPackageFiles(dir).problems, [`the package's files add up to more than ${MAX_PACKAGE_BYTES} bytes`]);
});

test(`SKILL.md of exactly ${MAX_SKILL_FILE_BYTES} bytes is accepted, one byte more is refused`, () => {
  const dir = skill();
  const head = fs.readFileSync(path.join(dir, "SKILL.md"));
  fs.writeFileSync(path.join(dir, "SKILL.md"), Buffer.concat([head, Buffer.alloc(MAX_SKILL_FILE_BYTES - head.length, 0x61)]));
  assert.deepEqual(readPackageFiles(dir).problems, []);
  fs.appendFileSync(path.join(dir, "SKILL.md"), "a");
  assert.deepEqual(readPackageFiles(dir).problems, [`SKILL.md is ${MAX_SKILL_FILE_BYTES + 1} bytes, over the ${MAX_SKILL_FILE_BYTES}-byte limit`]);
});

test(`depth: a file ${MAX_RESOURCE_DEPTH} folders below the skill is accepted, one folder deeper is refused`, () => {
  const dir = skill();
  put(dir, "1/2/3/4/5/file.md");
  assert.deepEqual(readPackageFiles(dir).problems, []);
  put(dir, "1/2/3/4/5/6/file.md");
  assert.deepEqual(readPackageFiles(dir).problems, [`1/2/3/4/5/6: deeper than ${MAX_RESOURCE_DEPTH} folders below the skill`]);
});

test(`folders: ${MAX_RESOURCE_DIRECTORIES} are accepted, one more refuses the package`, () => {
  const dir = skill();
  for (let i = 0; i < MAX_RESOURCE_DIRECTORIES; i++) fs.mkdirSync(path.join(dir, `d${i}`));
  assert.deepEqual(readPackageFiles(dir).problems, []);
  fs.mkdirSync(path.join(dir, "one-more"));
  assert.deepEqual(readPackageFiles(dir).problems, [`the package has more than ${MAX_RESOURCE_DIRECTORIES} folders`]);
});

test("a write may add the 500th folder; one that would add the 501st is refused, while writing into a folder already there passes", () => {
  const dir = skill();
  for (let i = 0; i < 499; i++) fs.mkdirSync(path.join(dir, `d${i}`));
  assert.equal(packageWriteProblem(dir, "new-folder/notes.md", 10), null);
  fs.mkdirSync(path.join(dir, "d499"));
  assert.equal(packageWriteProblem(dir, "another/notes.md", 10), "the package would hold more than 500 folders");
  assert.equal(packageWriteProblem(dir, "d0/notes.md", 10), null);
});

test("a file whose name is not UTF-8 refuses the package by saying so; one whose name holds U+FFFD itself is a file like any other", () => {
  const dir = skill();
  // 0xff never appears in UTF-8: a listing gives the name back with U+FFFD, which names nothing.
  fs.writeFileSync(Buffer.concat([Buffer.from(`${dir}/bad`), Buffer.from([0xff]), Buffer.from(".md")]), "x");
  fs.writeFileSync(path.join(dir, "real\uFFFD.md"), "x");
  assert.deepEqual(readPackageFiles(dir).problems, ['"bad\uFFFD.md": its name is not valid UTF-8, so it could never be listed or read']);
  fs.rmSync(Buffer.concat([Buffer.from(`${dir}/bad`), Buffer.from([0xff]), Buffer.from(".md")]));
  const read = readPackageFiles(dir);
  assert.deepEqual(read.problems, []);
  assert.ok(read.files.some((file) => file.path === "real\uFFFD.md"), JSON.stringify(read.files.map((f) => f.path)));
});
