/**
 * The package digest: computed from the per-file digests the Skills Extension publishes, so a
 * client holding an extension entry gets the same digest the lockfile records; and the same
 * value `sha256sum` gives over the files.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { buildSkillEntry, DigestCache } from "../../src/adapters/skill-entry.js";
import { digestOfPackage, fileDigest, packageDigest } from "../../src/package/package-digest.js";
import { createSkillRuntime } from "../../src/runtime.js";
import { tempDir, writeSkill } from "../support/tmp.js";

function demo(): { root: string; dir: string } {
  const root = tempDir("skillport-digest-");
  const dir = writeSkill(root, "demo", "name: demo\ndescription: A demo.");
  fs.mkdirSync(path.join(dir, "scripts"));
  fs.writeFileSync(path.join(dir, "scripts", "run.py"), "print('hi')\n");
  fs.writeFileSync(path.join(dir, "Zeta.md"), "upper case sorts first\n");
  fs.writeFileSync(path.join(dir, "ä.md"), "non-ASCII sorts by UTF-8 bytes\n");
  return { root, dir };
}

test("the package digest of a skill equals the one computed from its Skills Extension entry's file digests", { timeout: 30_000 }, async (t) => {
  const { root, dir } = demo();
  const runtime = await createSkillRuntime({ sources: [{ path: root, origin: "global" }] });
  t.after(() => runtime.close());
  const skill = runtime.snapshot().skills.find((s) => s.name === "demo")!;
  const built = await buildSkillEntry(skill, new DigestCache());
  assert.ok(built.ok);
  const fromEntry = packageDigest(built.served.entry.resources.map((r) => ({ path: built.served.files.get(r.uri)!.path, digest: r.digest })));
  assert.equal(digestOfPackage(dir).digest, fromEntry);
});

test("the package digest is sha256sum's output over the files, sorted by their UTF-8 bytes", () => {
  const { dir } = demo();
  const listed = execFileSync("sh", ["-c", "find . -type f | sed 's|^\\./||' | LC_ALL=C sort | xargs sha256sum | sha256sum"], { cwd: dir, encoding: "utf8" });
  assert.equal(digestOfPackage(dir).digest, `sha256:${listed.split(" ")[0]}`);
});

test("any change of bytes, name or file set changes the digest; order of the input does not", () => {
  const a = { path: "SKILL.md", digest: fileDigest(Buffer.from("one")) };
  const b = { path: "x.md", digest: fileDigest(Buffer.from("two")) };
  assert.equal(packageDigest([a, b]), packageDigest([b, a]));
  assert.notEqual(packageDigest([a, b]), packageDigest([a, { ...b, path: "y.md" }]));
  assert.notEqual(packageDigest([a, b]), packageDigest([a, { ...b, digest: fileDigest(Buffer.from("two!")) }]));
  assert.notEqual(packageDigest([a, b]), packageDigest([a]));
});
