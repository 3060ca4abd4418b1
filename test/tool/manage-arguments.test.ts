import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_FILE_PATH_ARGUMENT, MAX_NAME_ARGUMENT } from "../../src/tool/arguments.js";
import { parseSkillManageArguments } from "../../src/tool/manage-arguments.js";

test("skill_manage takes a name of 256 characters and a file_path of 4,096; one character more is invalid_arguments", () => {
  const name = "a".repeat(MAX_NAME_ARGUMENT);
  const filePath = "r".repeat(MAX_FILE_PATH_ARGUMENT);
  assert.deepEqual(parseSkillManageArguments({ action: "remove_file", name, file_path: filePath }), { action: "remove_file", name, filePath });
  const longName = parseSkillManageArguments({ action: "delete", name: `${name}a` });
  assert.ok("code" in longName && longName.code === "invalid_arguments");
  assert.match(longName.message, /`name` is 257 characters long/);
  const longPath = parseSkillManageArguments({ action: "remove_file", name, file_path: `${filePath}r` });
  assert.ok("code" in longPath && longPath.code === "invalid_arguments");
  assert.match(longPath.message, /`file_path` is 4097 characters long/);
});
