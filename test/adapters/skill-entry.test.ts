/**
 * Which skills the Skills Extension publishes, at its limits (src/adapters/skill-entry.ts): each
 * skill is loaded by the real registry from a real temp tree, then built into its entry.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { buildSkillEntry, DigestCache, SKILL_LIMITS, type EntryResult } from "../../src/adapters/skill-entry.js";
import { MAX_RESOURCE_ENTRIES } from "../../src/package/resources.js";
import { loadedSkills as loaded } from "../support/loaded-skills.js";
import { makeSkill } from "../support/skill-spec.js";
import { realTempDir } from "../support/tmp.js";

async function entryOf(root: string, name: string, digests = new DigestCache()): Promise<EntryResult> {
  const skill = (await loaded(root)).get(name);
  assert.ok(skill, `the registry loads ${name}`);
  return buildSkillEntry(skill, digests);
}

function published(result: EntryResult): Extract<EntryResult, { ok: true }>["served"] {
  assert.ok(result.ok, `published, but left out: ${result.ok ? "" : result.reason}`);
  return result.served;
}

function leftOut(result: EntryResult): string {
  assert.equal(result.ok, false, "left out, but published");
  return (result as { reason: string }).reason;
}

const sha256 = (bytes: Buffer): string => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

/** `count` small files under `references/` (spread over folders of 100, as a real package would). */
function manyFiles(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) files[`references/part-${Math.floor(i / 100)}/file-${String(i).padStart(4, "0")}.md`] = `${i}\n`;
  return files;
}

test("a skill whose package the resource listing holds whole (SKILL.md and 500 files) is published with every file; one file more and it is left out, saying why", { timeout: 60_000 }, async () => {
  // The extension's own cap is 512 files, but the listing stops at 500 files besides SKILL.md, so
  // that is the bound a package meets first: at it everything is published, past it nothing is.
  assert.ok(MAX_RESOURCE_ENTRIES + 1 <= SKILL_LIMITS.files, "no package the listing holds whole is over the extension's file cap");
  const root = realTempDir("skillport-entry-files");
  makeSkill(root, "at-bound", { files: manyFiles(MAX_RESOURCE_ENTRIES) });
  makeSkill(root, "past-bound", { files: manyFiles(MAX_RESOURCE_ENTRIES + 1) });
  const served = published(await entryOf(root, "at-bound"));
  assert.equal(served.entry.resources.length, MAX_RESOURCE_ENTRIES + 1);
  assert.ok(served.entry.resources.some((r) => r.uri === "skill://at-bound/SKILL.md"));
  assert.ok(served.entry.resources.some((r) => r.uri === "skill://at-bound/references/part-4/file-0499.md"));
  assert.match(leftOut(await entryOf(root, "past-bound")), /larger than the resource listing's bounds/);
});

test("a valid skill of exactly 16 MiB is published with the size and digest of every byte; one byte more and it is left out, saying by how much", { timeout: 60_000 }, async () => {
  const root = realTempDir("skillport-entry-bytes");
  const dir = makeSkill(root, "sixteen-mib");
  const manifestSize = fs.statSync(path.join(dir, "SKILL.md")).size;
  const blob = path.join(dir, "assets", "blob.bin");
  fs.mkdirSync(path.dirname(blob));
  // A sparse file: the limit is on the sizes the files report (stat), and reading zeros is cheap.
  fs.writeFileSync(blob, "");
  fs.truncateSync(blob, SKILL_LIMITS.bytes - manifestSize);

  const served = published(await entryOf(root, "sixteen-mib"));
  const total = served.entry.resources.reduce((sum, r) => sum + r.size, 0);
  assert.equal(total, SKILL_LIMITS.bytes, "exactly at the limit");
  const entry = served.entry.resources.find((r) => r.uri === "skill://sixteen-mib/assets/blob.bin")!;
  assert.equal(entry.size, SKILL_LIMITS.bytes - manifestSize);
  assert.equal(entry.digest, sha256(Buffer.alloc(SKILL_LIMITS.bytes - manifestSize)));

  fs.truncateSync(blob, SKILL_LIMITS.bytes - manifestSize + 1);
  assert.equal(leftOut(await entryOf(root, "sixteen-mib")), `its files add up to ${SKILL_LIMITS.bytes + 1} bytes, over ${SKILL_LIMITS.bytes}`);
});

test("a skill named with 64 characters is published; one named with 65, which the registry still loads, is left out by the name rule", { timeout: 60_000 }, async () => {
  const root = realTempDir("skillport-entry-name");
  const at = `n${"a".repeat(63)}`;
  const past = `n${"a".repeat(64)}`;
  makeSkill(root, at);
  makeSkill(root, past);
  assert.equal(published(await entryOf(root, at)).entry.frontmatter["name"], at);
  assert.equal(leftOut(await entryOf(root, past)), `frontmatter name ${JSON.stringify(past)} must be 1-64 lowercase letters, digits and single hyphens`);
});

test("a file rewritten in place (same size, same inode, a new mtime) is digested again, not served from the cache", { timeout: 60_000 }, async () => {
  const root = realTempDir("skillport-entry-digest");
  const dir = makeSkill(root, "rewritten", { files: { "references/notes.md": "first version\n" } });
  const file = path.join(dir, "references", "notes.md");
  const digests = new DigestCache();
  const digestOf = async (): Promise<string> =>
    published(await entryOf(root, "rewritten", digests)).entry.resources.find((r) => r.uri === "skill://rewritten/references/notes.md")!.digest;

  assert.equal(await digestOf(), sha256(Buffer.from("first version\n")));
  const before = fs.statSync(file);
  fs.writeFileSync(file, "other version\n");
  // A whole second later, so even a file system that stamps whole seconds shows a new mtime.
  fs.utimesSync(file, before.atime, new Date(before.mtimeMs + 1_000));
  const after = fs.statSync(file);
  assert.deepEqual([after.size, after.ino], [before.size, before.ino], "the same size and inode: only the mtime tells");
  assert.notEqual(after.mtimeMs, before.mtimeMs);
  assert.equal(await digestOf(), sha256(Buffer.from("other version\n")));
});
