import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_FILE_PATH_ARGUMENT, MAX_NAME_ARGUMENT, parseSkillToolArguments } from "../../src/tool/arguments.js";

test("an oversized name is refused before any lookup, without echoing it", () => {
  const name = "x".repeat(1024 * 1024);
  const result = parseSkillToolArguments({ name });
  assert.ok("code" in result);
  assert.equal(result.code, "invalid_arguments");
  assert.ok(result.message.length < 200, "the message does not repeat the argument");
  assert.deepEqual(parseSkillToolArguments({ name: "a".repeat(MAX_NAME_ARGUMENT) }), { mode: "activate", name: "a".repeat(MAX_NAME_ARGUMENT) });
});

test("an oversized file_path is refused without echoing it", () => {
  const result = parseSkillToolArguments({ name: "a", file_path: `references/${"y".repeat(MAX_FILE_PATH_ARGUMENT)}` });
  assert.ok("code" in result);
  assert.equal(result.code, "invalid_arguments");
  assert.ok(result.message.length < 200);
});

test("a name of 256 characters and a file_path of 4,096 are taken; one character more is invalid_arguments", () => {
  const name = "a".repeat(MAX_NAME_ARGUMENT);
  const filePath = "r".repeat(MAX_FILE_PATH_ARGUMENT);
  assert.equal(MAX_NAME_ARGUMENT, 256);
  assert.equal(MAX_FILE_PATH_ARGUMENT, 4096);
  assert.deepEqual(parseSkillToolArguments({ name, file_path: filePath }), { mode: "read", name, filePath });
  const longName = parseSkillToolArguments({ name: `${name}a` });
  assert.ok("code" in longName && longName.code === "invalid_arguments");
  assert.match(longName.message, /`name` is 257 characters long/);
  const longPath = parseSkillToolArguments({ name, file_path: `${filePath}r` });
  assert.ok("code" in longPath && longPath.code === "invalid_arguments");
  assert.match(longPath.message, /`file_path` is 4097 characters long/);
});
