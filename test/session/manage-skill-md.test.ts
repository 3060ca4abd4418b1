// skill_manage's rules for SKILL.md itself through the library: `edit` and `patch` hold the text
// to what `create` does (UTF-8, at most 1 MiB), and a write lock whose writer died gives way.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { MAX_AUTHORED_FILE_BYTES } from "../../src/package/limits.js";
import type { Session } from "../../src/session/session.js";
import { authoringSession } from "../support/authoring.js";

const T = { timeout: 60_000 };

function skillMd(name: string, body = "# Steps\n\n1. Do it.\n"): string {
  return `---\nname: ${name}\ndescription: ${name} does a thing.\n---\n\n${body}`;
}

function setup(t: { after(fn: () => unknown): void }): Promise<{ authoring: string; session: Session }> {
  return authoringSession(t, "skillport-manage-md");
}

test("edit and patch refuse a SKILL.md holding a lone surrogate as not_utf8, and leave the file as it was", T, async (t) => {
  const { authoring, session } = await setup(t);
  assert.equal((await session.manage({ action: "create", name: "notes", content: skillMd("notes") })).ok, true);
  const file = path.join(authoring, "notes", "SKILL.md");
  const before = fs.readFileSync(file);
  const edited = await session.manage({ action: "edit", name: "notes", content: skillMd("notes", "bad \ud800 text\n") });
  assert.deepEqual([edited.error?.code, edited.error?.reason], ["skill_write_error", "not_utf8"], JSON.stringify(edited));
  assert.match(edited.error!.message, /^Cannot write "SKILL\.md": /, "the refusal names the file");
  const patched = await session.manage({ action: "patch", name: "notes", old_string: "Do it.", new_string: "Do \udfff it." });
  assert.deepEqual([patched.error?.code, patched.error?.reason], ["skill_write_error", "not_utf8"], JSON.stringify(patched));
  assert.deepEqual(fs.readFileSync(file), before);
  assert.equal(fs.readFileSync(file, "utf8").includes("\ufffd"), false);
});

test("edit and patch write a SKILL.md of exactly 1 MiB and refuse one byte more as too_large", T, async (t) => {
  const { authoring, session } = await setup(t);
  assert.equal((await session.manage({ action: "create", name: "notes", content: skillMd("notes") })).ok, true);
  const file = path.join(authoring, "notes", "SKILL.md");
  const head = skillMd("notes", "");
  const atLimit = head + "b".repeat(MAX_AUTHORED_FILE_BYTES - Buffer.byteLength(head) - 1) + "\n";
  assert.equal(Buffer.byteLength(atLimit), MAX_AUTHORED_FILE_BYTES);

  const editAtLimit = await session.manage({ action: "edit", name: "notes", content: atLimit });
  assert.equal(editAtLimit.ok, true, JSON.stringify(editAtLimit.error));
  assert.equal(fs.statSync(file).size, MAX_AUTHORED_FILE_BYTES);
  const editOver = await session.manage({ action: "edit", name: "notes", content: atLimit + "b" });
  assert.deepEqual([editOver.error?.code, editOver.error?.reason], ["skill_write_error", "too_large"], JSON.stringify(editOver.error));
  assert.equal(fs.readFileSync(file, "utf8"), atLimit);

  // The file is at the limit: a patch that keeps its size is written, one that adds a byte is not.
  const patchSame = await session.manage({ action: "patch", name: "notes", old_string: "bbbb\n", new_string: "cccc\n" });
  assert.equal(patchSame.ok, true, JSON.stringify(patchSame.error));
  const patchOver = await session.manage({ action: "patch", name: "notes", old_string: "cccc\n", new_string: "ccccc\n" });
  assert.deepEqual([patchOver.error?.code, patchOver.error?.reason], ["skill_write_error", "too_large"], JSON.stringify(patchOver.error));
  assert.equal(fs.statSync(file).size, MAX_AUTHORED_FILE_BYTES);
  assert.equal(fs.readFileSync(file, "utf8").endsWith("cccc\n"), true);
});

test("a write lock left by a writer that died is broken, and the next write goes through", T, async (t) => {
  const { authoring, session } = await setup(t);
  assert.equal((await session.manage({ action: "create", name: "notes", content: skillMd("notes") })).ok, true);
  // A pid that was a process a moment ago and is none now, on this host, with a fresh time:
  // abandoned only because its writer is gone, not by age.
  const dead = spawnSync(process.execPath, ["-e", "0"]).pid!;
  const lock = path.join(authoring, ".notes.skillport-lock");
  fs.writeFileSync(lock, `${dead} ${os.hostname()} ${Date.now()}\n`);
  const written = await session.manage({ action: "write_file", name: "notes", file_path: "notes.md", content: "after the dead writer\n" });
  assert.equal(written.ok, true, JSON.stringify(written.error));
  assert.equal(fs.readFileSync(path.join(authoring, "notes", "notes.md"), "utf8"), "after the dead writer\n");
  assert.equal(fs.existsSync(lock), false, "the lock is released after the write");

  // A lock naming this live process is not broken: the skill answers as held.
  fs.writeFileSync(lock, `${process.pid} ${os.hostname()} ${Date.now()}\n`);
  const held = await session.manage({ action: "write_file", name: "notes", file_path: "other.md", content: "x\n" });
  assert.equal(held.ok, false);
  assert.equal(fs.existsSync(path.join(authoring, "notes", "other.md")), false);
  assert.equal(fs.readFileSync(lock, "utf8").startsWith(`${process.pid} `), true);
});
