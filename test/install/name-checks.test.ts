/**
 * Names an install must not take at face value: a fullwidth `ｄｅｐｌｏｙ` is `deploy` to the
 * registry (NFKC), a Cyrillic `е` makes a look-alike, and a project skill hides a global one.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { folderTarget, installSkills, installTarget } from "../../src/index.js";
import { tempDir } from "../support/tmp.js";

function localSkill(root: string, name: string): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: The ${name} skill.\n---\n\nDo it.\n`);
  return dir;
}

test("a skill whose name is another installed skill's once NFKC-normalized is refused, and the installed one is left alone", { timeout: 60_000 }, async () => {
  const base = tempDir("skillport-names-");
  const target = folderTarget(path.join(base, "project", "skills"), path.join(base, "project", "skills-lock.json"));
  const first = await installSkills(localSkill(path.join(base, "a"), "deploy"), { target });
  assert.deepEqual(first.skills.map((s) => s.status), ["installed"]);
  const impostor = await installSkills(localSkill(path.join(base, "b"), "ｄｅｐｌｏｙ"), { target });
  assert.deepEqual(impostor.skills.map((s) => s.status), ["refused"], JSON.stringify(impostor));
  assert.match(impostor.skills[0]!.messages.join("; "), /names the same skill as the installed "deploy" once normalized \(NFKC\)/);
  assert.deepEqual(fs.readdirSync(target.dir), ["deploy"]);
  // The other way round too.
  const other = folderTarget(path.join(base, "other", "skills"), path.join(base, "other", "skills-lock.json"));
  await installSkills(path.join(base, "b", "ｄｅｐｌｏｙ"), { target: other });
  const plain = await installSkills(path.join(base, "a", "deploy"), { target: other });
  assert.deepEqual(plain.skills.map((s) => s.status), ["refused"]);
});

test("add warns about a name mixing Latin and Cyrillic letters, and about a project skill that shadows a global one", { timeout: 60_000 }, async () => {
  const base = tempDir("skillport-names-");
  const home = path.join(base, "home");
  const cwd = path.join(base, "project");
  fs.mkdirSync(path.join(cwd, ".git"), { recursive: true });
  localSkill(path.join(home, ".claude", "skills"), "review");
  const target = installTarget({ cwd, home });
  const lookAlike = await installSkills(localSkill(path.join(base, "src"), "d\u0435ploy"), { target, cwd, home });
  assert.deepEqual(lookAlike.skills.map((s) => s.status), ["installed"]);
  assert.match(lookAlike.skills[0]!.messages.join("; "), /mixes Latin letters with Cyrillic or Greek ones.*d U\+0435 p l o y/);
  const shadowing = await installSkills(localSkill(path.join(base, "src"), "review"), { target, cwd, home });
  assert.deepEqual(shadowing.skills.map((s) => s.status), ["installed"]);
  assert.match(shadowing.skills[0]!.messages.join("; "), /shadows the global skill "review" in .*\.claude\/skills/);
  const plain = await installSkills(localSkill(path.join(base, "src"), "plain"), { target, cwd, home });
  assert.deepEqual(plain.skills[0]!.messages, [], "a plain new name says nothing");
  // Installed globally, a skill shadows nothing.
  const global = await installSkills(path.join(base, "src", "review"), { target: installTarget({ cwd, home, global: true }), cwd, home });
  assert.deepEqual(global.skills[0]!.messages, []);
});
