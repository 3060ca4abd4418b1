/**
 * The digests `skills/list` publishes follow the bytes `resources/read` serves, checked by the
 * official SDK 2.4.0 `SkillsClient` (which verifies every file it reads against the listed digest
 * and size) against a real `skillport mcp` over stdio. (Issue: a file rewritten in place with
 * its size and mtime put back, to the nanosecond, kept its old digest in the listing while its
 * new bytes were served.)
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { serverCommand } from "../support/mcp-server.js";
import { makeSkill } from "../support/skill-spec.js";
import { realTempDir } from "../support/tmp.js";

type Entry = { uri: string; resources: Array<{ uri: string; digest: string; size: number }> };
const GUIDE_URI = "skill://guide-skill/references/guide.md";

function sha256(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

async function serve(root: string): Promise<{ skills: SkillsClient; close(): Promise<void> }> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  const client = new Client({ name: "digest-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ ...serverCommand(["--root", root, "--no-log"]), env, stderr: "ignore" }));
  return { skills: new SkillsClient(client), close: () => client.close() };
}

/** The guide's entry as listed now, and its bytes as read and verified against that entry. */
async function listAndRead(skills: SkillsClient): Promise<{ digest: string; text: string }> {
  const { skills: entries } = await skills.list();
  const entry = (entries as Entry[]).find((candidate) => candidate.uri === "skill://guide-skill/SKILL.md");
  assert.ok(entry, "the skill is listed");
  const listed = entry.resources.find((resource) => resource.uri === GUIDE_URI);
  assert.ok(listed, "the guide is listed");
  // Throws SkillVerificationError when the bytes served do not match the listed digest.
  const file = await skills.read(entry as never, GUIDE_URI);
  assert.equal(file.verified, true);
  return { digest: listed.digest, text: new TextDecoder().decode(file.bytes) };
}

/** Sets the file's mtime to `mtimeNs` exactly (`touch -d @SECONDS.NANOSECONDS`; Node's utimes takes no nanoseconds). */
function setMtimeNs(file: string, mtimeNs: bigint): void {
  const seconds = mtimeNs / 1_000_000_000n;
  const nanos = String(mtimeNs % 1_000_000_000n).padStart(9, "0");
  execFileSync("touch", ["-m", "-d", `@${seconds}.${nanos}`, file]);
}

test("a file rewritten in place with its size and mtime put back to the nanosecond is listed with its new digest", { timeout: 60_000 }, async () => {
  const root = realTempDir("skillport-digest");
  const dir = makeSkill(root, "guide-skill", { files: { "references/guide.md": "first version\n" } });
  const guide = path.join(dir, "references", "guide.md");
  const server = await serve(root);
  try {
    const before = await listAndRead(server.skills);
    assert.deepEqual(before, { digest: sha256("first version\n"), text: "first version\n" });

    const original = fs.statSync(guide, { bigint: true });
    // Same length, same inode (written in place), then the mtime put back. Until the clock has
    // moved on, the ctime can read as before (coarse file timestamps), so the restore is repeated
    // until it does; each restore moves the ctime to now.
    fs.writeFileSync(guide, "other version\n");
    let now = fs.statSync(guide, { bigint: true });
    do {
      setMtimeNs(guide, original.mtimeNs);
      now = fs.statSync(guide, { bigint: true });
    } while (now.ctimeNs === original.ctimeNs);
    assert.equal(now.size, original.size);
    assert.equal(now.mtimeNs, original.mtimeNs);
    assert.equal(now.ino, original.ino);

    const after = await listAndRead(server.skills);
    assert.deepEqual(after, { digest: sha256("other version\n"), text: "other version\n" });
  } finally {
    await server.close();
  }
});

test("a file rewritten in place with the same size and a new mtime is listed with its new digest", { timeout: 60_000 }, async () => {
  const root = realTempDir("skillport-digest");
  const dir = makeSkill(root, "guide-skill", { files: { "references/guide.md": "first version\n" } });
  const guide = path.join(dir, "references", "guide.md");
  const server = await serve(root);
  try {
    assert.equal((await listAndRead(server.skills)).digest, sha256("first version\n"));
    const original = fs.statSync(guide, { bigint: true });
    fs.writeFileSync(guide, "other version\n");
    // A later mtime, whatever the clock's granularity: one second on.
    setMtimeNs(guide, original.mtimeNs + 1_000_000_000n);
    assert.equal(fs.statSync(guide, { bigint: true }).size, original.size);

    assert.deepEqual(await listAndRead(server.skills), { digest: sha256("other version\n"), text: "other version\n" });
  } finally {
    await server.close();
  }
});
