// skill_manage's patch and delete through the library, for what the other manage tests leave
// open: the words a failed patch answers with, a patch's file_path held to the write rules, and
// a deleted skill's read forgotten, so a skill written again at that name must be read first.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import type { Session } from "../../src/session/session.js";
import { authoringSession } from "../support/authoring.js";

const T = { timeout: 60_000 };

function skillMd(name: string, body = "step one\nstep two\n"): string {
  return `---\nname: ${name}\ndescription: ${name} does a thing.\n---\n\n${body}`;
}

function setup(t: { after(fn: () => unknown): void }): Promise<{ authoring: string; session: Session }> {
  return authoringSession(t, "skillport-manage-patch");
}

test("a patch that matches nothing, or more than once without replace_all, says which and what to do, for SKILL.md and other files alike", T, async (t) => {
  const { session } = await setup(t);
  assert.equal((await session.manage({ action: "create", name: "notes", content: skillMd("notes") })).ok, true);
  assert.equal((await session.manage({ action: "write_file", name: "notes", file_path: "a.md", content: "x y x\n" })).ok, true);
  for (const filePath of [undefined, "a.md"]) {
    const target = filePath === undefined ? {} : { file_path: filePath };
    const none = await session.manage({ action: "patch", name: "notes", ...target, old_string: "absent", new_string: "z" });
    assert.deepEqual(none.error, {
      code: "patch_failed",
      matches: 0,
      message: "`old_string` does not occur in the file; read the file again and copy the exact text to replace.",
    });
    const twice = await session.manage({ action: "patch", name: "notes", ...target, old_string: filePath === undefined ? "step" : "x", new_string: "z" });
    assert.deepEqual(twice.error, {
      code: "patch_failed",
      matches: 2,
      message: "`old_string` occurs 2 times; give more surrounding text so it occurs once, or set `replace_all`.",
    });
  }
});

test("a patch's file_path is held to the write rules: `..`, a dot-entry and a nested SKILL.md are refused and nothing changes", T, async (t) => {
  const { authoring, session } = await setup(t);
  assert.equal((await session.manage({ action: "create", name: "notes", content: skillMd("notes") })).ok, true);
  fs.writeFileSync(path.join(authoring, "notes", ".env"), "SECRET=1\n");
  fs.writeFileSync(path.join(authoring, "outside.md"), "x\n");
  for (const [filePath, reason] of [["../outside.md", "illegal_path"], [".env", "unsupported_path"], ["sub/SKILL.md", "illegal_path"]] as const) {
    const answer = await session.manage({ action: "patch", name: "notes", file_path: filePath, old_string: "x", new_string: "y" });
    assert.deepEqual([answer.error?.code, answer.error?.reason], ["skill_write_error", reason], `${filePath}: ${JSON.stringify(answer)}`);
  }
  assert.equal(fs.readFileSync(path.join(authoring, "notes", ".env"), "utf8"), "SECRET=1\n");
  assert.equal(fs.readFileSync(path.join(authoring, "outside.md"), "utf8"), "x\n");
});

test("after delete the session no longer counts the skill's SKILL.md as read: the same text written back must be read before an edit", T, async (t) => {
  const { authoring, session } = await setup(t);
  const text = skillMd("notes");
  assert.equal((await session.manage({ action: "create", name: "notes", content: text })).ok, true);
  assert.deepEqual((await session.manage({ action: "delete", name: "notes" })).data, { name: "notes", status: "deleted" });
  // Someone else puts the very same bytes back.
  fs.mkdirSync(path.join(authoring, "notes"));
  fs.writeFileSync(path.join(authoring, "notes", "SKILL.md"), text);
  const edit = await session.manage({ action: "edit", name: "notes", content: skillMd("notes", "new\n") });
  assert.equal(edit.error?.code, "stale_skill", JSON.stringify(edit));
  assert.equal(fs.readFileSync(path.join(authoring, "notes", "SKILL.md"), "utf8"), text);
  const read = await session.call({ name: "notes", file_path: "SKILL.md" });
  assert.equal(read.ok, true);
  assert.equal((await session.manage({ action: "edit", name: "notes", content: skillMd("notes", "new\n") })).ok, true);
});
