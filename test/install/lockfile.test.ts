/**
 * `skills-lock.json` read and written in the `skills` CLI's shape (SPEC §10.1): its text, other
 * tools' entries kept, a name in two folders, the earlier shape read.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseSkillsLock, skillsLockText, type LockedSkill } from "../../src/install/lockfile.js";

const hash = "a".repeat(64);
const ours: LockedSkill = { source: "file:///x", sourceType: "git", url: "file:///x", ref: null, commit: "b".repeat(40), path: "skills/one", digest: `sha256:${"c".repeat(64)}`, computedHash: hash };

test("the text is the skills CLI's: version 1, names sorted, two-space JSON, a final newline", () => {
  const lock = parseSkillsLock(JSON.stringify({ version: 1, skills: {} }), { lockDir: "/p" });
  lock.set(".agents/skills", new Map([["zeta", ours], ["alpha", { ...ours, sourceType: "local", url: "/p/vendor", commit: null, ref: null }]]));
  const text = skillsLockText(lock);
  assert.ok(text.endsWith("}\n"));
  const value = JSON.parse(text) as { version: number; skills: Record<string, Record<string, unknown>> };
  assert.equal(text, `${JSON.stringify(value, null, 2)}\n`);
  assert.deepEqual(Object.keys(value), ["version", "skills"]);
  assert.deepEqual(Object.keys(value.skills), ["alpha", "zeta"]);
  assert.equal(value.skills.alpha!.source, "./vendor", "a local source relative to the lockfile's folder");
  assert.equal(value.skills.zeta!.sourceUrl, "file:///x");
  assert.equal(skillsLockText(parseSkillsLock(text, { lockDir: "/p" })), text, "read back and written again, the same text");
});

test("entries another tool wrote, and keys skillport does not know, are written back as they were", () => {
  const theirs = { source: "owner/repo", ref: "main", sourceType: "github", skillPath: "skills/x/SKILL.md", computedHash: hash, pluginName: "p" };
  const site = { source: "example.com", sourceType: "well-known", computedHash: hash, wellKnownDigest: "sha256:x" };
  const mine = { source: "file:///x", sourceUrl: "file:///x", sourceType: "git", skillPath: "skills/one/SKILL.md", computedHash: hash, commit: "b".repeat(40), digest: ours.digest, folder: ".agents/skills", auditAccepted: ["rule"], auditRulesVersion: "2026-12-04.1", futureKey: ["x"], futureVersion: 3 };
  const text = `${JSON.stringify({ version: 1, skills: { one: mine, site, x: theirs } }, null, 2)}\n`;
  const lock = parseSkillsLock(text, { lockDir: "/p" });
  assert.equal(lock.get(".agents/skills")!.get("x")!.url, "https://github.com/owner/repo.git");
  assert.equal(lock.get(".agents/skills")!.get("x")!.digest, null, "another tool's: checked by computedHash");
  assert.deepEqual([...lock.kept.keys()], ["site"]);
  assert.equal(skillsLockText(lock), text);
});

test("the same name in two folders: the canonical folder's entry on top, the other under otherFolders, both read back", () => {
  const lock = parseSkillsLock(JSON.stringify({ version: 1, skills: {} }), { lockDir: "/p" });
  lock.set(".claude/skills", new Map([["one", { ...ours, commit: "d".repeat(40) }]]));
  lock.set(".agents/skills", new Map([["one", ours]]));
  const value = JSON.parse(skillsLockText(lock)) as { skills: { one: { folder: string; commit: string; otherFolders: Record<string, { commit: string }> } } };
  assert.equal(value.skills.one.folder, ".agents/skills");
  assert.equal(value.skills.one.otherFolders[".claude/skills"]!.commit, "d".repeat(40));
  const again = parseSkillsLock(JSON.stringify(value), { lockDir: "/p" });
  assert.equal(again.get(".claude/skills")!.get("one")!.commit, "d".repeat(40));
  assert.equal(again.get(".agents/skills")!.get("one")!.commit, "b".repeat(40));
});

test("the earlier shape is read, local urls made relative and computedHash taken from the install; a newer version is refused", () => {
  const earlier = {
    lockfileVersion: 1,
    folders: { ".agents/skills": { gamma: { source: "./v", sourceType: "local", url: "/p/v", ref: null, commit: null, path: "gamma", digest: ours.digest } } },
  };
  const lock = parseSkillsLock(JSON.stringify(earlier), { lockDir: "/p", hashOf: (folder, name) => (folder === ".agents/skills" && name === "gamma" ? hash : null) });
  const gamma = lock.get(".agents/skills")!.get("gamma")!;
  assert.deepEqual([gamma.source, gamma.url, gamma.computedHash], ["./v", "/p/v", hash]);
  assert.throws(() => parseSkillsLock(JSON.stringify({ version: 2, skills: {} })), /version 2 is not 1/);
  assert.throws(() => parseSkillsLock(JSON.stringify({ version: 1, skills: { one: { source: "file:///x", sourceUrl: "file:///x", sourceType: "git", commit: ours.commit, digest: "nope" } } })), /digest must be/);
});
