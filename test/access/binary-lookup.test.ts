import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { findBinary } from "../../src/access/binary-lookup.js";
import { tempDir } from "../registry/skill-tree.js";

function executable(dir: string, name: string, mode = 0o755): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  fs.writeFileSync(file, "#!/bin/sh\nexit 0\n", { mode });
  fs.chmodSync(file, mode);
  return file;
}

test("finds the first executable file along PATH", (t) => {
  const root = tempDir(t);
  const first = path.join(root, "first");
  const second = path.join(root, "second");
  fs.mkdirSync(first);
  const tool = executable(second, "tool");
  executable(path.join(root, "third"), "tool");
  const PATH = [first, second, path.join(root, "third")].join(path.delimiter);
  assert.equal(findBinary("tool", PATH), tool);
  assert.equal(findBinary("absent-tool", PATH), null);
});

test("non-executable files and directories do not count", (t) => {
  const root = tempDir(t);
  executable(root, "plain", 0o644);
  fs.mkdirSync(path.join(root, "a-dir"));
  // root bypasses permission bits for reading, but not the execute bit check of access(X_OK) on files without any x bit.
  assert.equal(findBinary("plain", root), null);
  assert.equal(findBinary("a-dir", root), null);
});

test("empty PATH entries are skipped rather than meaning the current directory", (t) => {
  const root = tempDir(t);
  executable(root, "here");
  const cwd = process.cwd();
  process.chdir(root);
  t.after(() => process.chdir(cwd));
  assert.equal(findBinary("here", ""), null);
  assert.equal(findBinary("here", `${path.delimiter}`), null);
  assert.equal(findBinary("here", undefined), null);
});

test("relative PATH entries are skipped too: the answer must not depend on the working directory", (t) => {
  const root = tempDir(t);
  executable(path.join(root, "bin"), "onlyhere");
  const cwd = process.cwd();
  process.chdir(root);
  t.after(() => process.chdir(cwd));
  assert.equal(findBinary("onlyhere", "bin"), null);
  assert.equal(findBinary("onlyhere", `.${path.sep}bin${path.delimiter}bin`), null);
  assert.equal(findBinary("onlyhere", path.join(root, "bin")), path.join(root, "bin", "onlyhere"));
});

test("a name with a slash is an absolute path to check, never a PATH search", (t) => {
  const root = tempDir(t);
  const tool = executable(path.join(root, "bin"), "tool");
  assert.equal(findBinary(tool, ""), tool);
  assert.equal(findBinary("bin/tool", root), null);
});
