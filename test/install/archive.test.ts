/**
 * Unpacking a site's archive (SPEC §10.1): only regular files and folders, never `..`, an
 * absolute path, a link or a special file; files and bytes bounded while unpacking, so a bomb
 * stops at the bound with no more than the bound written.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { ArchiveRefused, PACKAGE_ARCHIVE_LIMITS, unpackArchive, type ArchiveKind } from "../../src/install/archive.js";
import { MAX_PACKAGE_BYTES, MAX_PACKAGE_FILES } from "../../src/package/limits.js";
import { tarGz, tarGzBomb, zip, type TarMember, type ZipMember } from "../support/archives.js";
import { tempDir } from "../support/tmp.js";

const SKILL = "---\nname: demo\ndescription: A demo.\n---\nBody\n";

function fresh(): string {
  const dir = path.join(tempDir("skillport-unpack-"), "out");
  fs.mkdirSync(dir);
  return dir;
}

/** Every file under `dir`, relative, with its size. */
function written(dir: string): Record<string, number> {
  const result: Record<string, number> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) result[path.relative(dir, path.join(entry.parentPath, entry.name))] = fs.statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return result;
}

async function refusal(bytes: Buffer, kind: ArchiveKind, limits = PACKAGE_ARCHIVE_LIMITS): Promise<{ message: string; dir: string; error: ArchiveRefused }> {
  const dir = fresh();
  const error = await unpackArchive(bytes, kind, dir, limits).then(
    () => assert.fail("the archive was unpacked"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ArchiveRefused, String(error));
  return { message: error.message, dir, error };
}

test("a .tar.gz and a .zip unpack to their files, the archive's root being the skill's folder, executables kept executable", async () => {
  const tarDir = fresh();
  await unpackArchive(tarGz([{ path: "SKILL.md", body: SKILL }, { path: "scripts/", type: "Directory" }, { path: "./scripts/run.sh", body: "echo\n", mode: 0o755 }]), "tar.gz", tarDir);
  assert.deepEqual(written(tarDir), { "SKILL.md": SKILL.length, "scripts/run.sh": 5 });
  assert.equal(fs.statSync(path.join(tarDir, "scripts/run.sh")).mode & 0o777, 0o755);
  assert.equal(fs.statSync(path.join(tarDir, "SKILL.md")).mode & 0o777, 0o644);

  const zipDir = fresh();
  await unpackArchive(zip([{ path: "SKILL.md", body: SKILL, deflate: true }, { path: "refs/", mode: 0o040755 }, { path: "refs/a.md", body: "A" }, { path: "run.sh", body: "x", mode: 0o100755 }]), "zip", zipDir);
  assert.deepEqual(written(zipDir), { "SKILL.md": SKILL.length, "refs/a.md": 1, "run.sh": 1 });
  assert.equal(fs.statSync(path.join(zipDir, "run.sh")).mode & 0o777, 0o755);
});

test("an entry naming .. or an absolute path is refused, and nothing is written outside the folder", async () => {
  for (const bad of ["../escape.md", "a/../../escape.md", "/etc/escape.md", "C:/escape.md", "a\\..\\escape.md"]) {
    const tarCase = await refusal(tarGz([{ path: "SKILL.md", body: SKILL }, { path: bad, body: "x" }]), "tar.gz");
    assert.match(tarCase.message, /leads outside the archive|absolute path|backslash/, bad);
    assert.equal(fs.existsSync(path.join(path.dirname(tarCase.dir), "escape.md")), false);
  }
  // yauzl itself refuses such names (strictFileNames); the refusal is ours either way.
  for (const bad of ["../escape.md", "/abs.md"]) {
    const zipCase = await refusal(zip([{ path: "SKILL.md", body: SKILL }, { path: bad, body: "x" }]), "zip");
    assert.match(zipCase.message, /leads outside|absolute|not a readable \.zip.*(relative|absolute|invalid)/i, bad);
    assert.equal(fs.existsSync(path.join(path.dirname(zipCase.dir), "escape.md")), false);
  }
});

test("links and special files are refused: tar symbolic and hard links, devices, FIFOs; zip symbolic links", async () => {
  const cases: Array<[TarMember, RegExp]> = [
    [{ path: "link.md", type: "SymbolicLink", linkpath: "/etc/passwd" }, /symbolic link/],
    [{ path: "hard.md", type: "Link", linkpath: "SKILL.md" }, /hard link/],
    [{ path: "dev", type: "CharacterDevice" }, /device/],
    [{ path: "fifo", type: "FIFO" }, /FIFO/],
  ];
  for (const [member, reason] of cases) {
    const { message, dir } = await refusal(tarGz([{ path: "SKILL.md", body: SKILL }, member]), "tar.gz");
    assert.match(message, reason);
    assert.deepEqual(Object.keys(written(dir)), ["SKILL.md"]);
    assert.equal(fs.lstatSync(path.join(dir, member.path), { throwIfNoEntry: false }), undefined);
  }
  const link: ZipMember = { path: "link.md", body: "/etc/passwd", mode: 0o120777 };
  const { message, dir } = await refusal(zip([{ path: "SKILL.md", body: SKILL }, link]), "zip");
  assert.match(message, /symbolic link/);
  assert.equal(fs.lstatSync(path.join(dir, "link.md"), { throwIfNoEntry: false }), undefined);
});

test("an archive bomb stops at the byte bound while unpacking: no more than the bound is written and the rest is never inflated", async () => {
  // 256 MiB of zeros in a few hundred kilobytes.
  const bomb = tarGzBomb(256 * 1024 * 1024);
  assert.ok(bomb.length < 2 * 1024 * 1024);
  const { message, dir, error } = await refusal(bomb, "tar.gz");
  assert.match(message, new RegExp(`more than ${MAX_PACKAGE_BYTES} bytes`));
  const sizes = written(dir);
  const total = Object.values(sizes).reduce((a, b) => a + b, 0);
  assert.ok(total <= MAX_PACKAGE_BYTES, `wrote ${total} bytes`);
  // Unpacking stopped early: most of the archive's bytes were never fed to the inflater.
  assert.ok(error.inputUsed < bomb.length / 2, `read ${error.inputUsed} of ${bomb.length}`);

  // A zip entry that says what it inflates to is refused before a byte of it is written.
  const zipBomb = zip([{ path: "SKILL.md", body: SKILL }, { path: "zeros.bin", body: Buffer.alloc(MAX_PACKAGE_BYTES), deflate: true }]);
  const zipCase = await refusal(zipBomb, "zip");
  assert.match(zipCase.message, /more than/);
  assert.deepEqual(Object.keys(written(zipCase.dir)), ["SKILL.md"]);
});

test("the byte bound holds exactly at the limit and refuses one byte past it, for both formats", async () => {
  const limits = { maxFiles: 10, maxBytes: 1000 };
  const at = 1000 - SKILL.length;
  for (const kind of ["tar.gz", "zip"] as const) {
    const make = (n: number): Buffer => (kind === "tar.gz" ? tarGz([{ path: "SKILL.md", body: SKILL }, { path: "pad.bin", body: Buffer.alloc(n) }]) : zip([{ path: "SKILL.md", body: SKILL }, { path: "pad.bin", body: Buffer.alloc(n), deflate: true }]));
    const dir = fresh();
    assert.deepEqual(await unpackArchive(make(at), kind, dir, limits), { files: 2, bytes: 1000 });
    assert.match((await refusal(make(at + 1), kind, limits)).message, /more than 1000 bytes/);
  }
  // A zip entry whose header understates its size is still stopped by the count as it inflates.
  const lying = zip([{ path: "SKILL.md", body: SKILL }, { path: "pad.bin", body: Buffer.alloc(5000), deflate: true, declaredSize: 10 }]);
  const { message, dir } = await refusal(lying, "zip", limits);
  assert.match(message, /more than 1000 bytes|too many bytes in the stream/);
  assert.ok((written(dir)["pad.bin"] ?? 0) <= 1000);
});

test("the file bound holds exactly at the package limit and refuses one file past it", async () => {
  const members = (n: number): TarMember[] => [{ path: "SKILL.md", body: SKILL }, ...Array.from({ length: n - 1 }, (_, i) => ({ path: `f/${i}.md`, body: "x" }))];
  const dir = fresh();
  assert.equal((await unpackArchive(tarGz(members(MAX_PACKAGE_FILES)), "tar.gz", dir)).files, MAX_PACKAGE_FILES);
  const { message, dir: over } = await refusal(tarGz(members(MAX_PACKAGE_FILES + 1)), "tar.gz");
  assert.match(message, new RegExp(`more than ${MAX_PACKAGE_FILES} files`));
  assert.equal(Object.keys(written(over)).length, MAX_PACKAGE_FILES);
});

test("an archive without SKILL.md at its root, one with a file twice, and bytes that are no archive are refused", async () => {
  assert.match((await refusal(tarGz([{ path: "demo/SKILL.md", body: SKILL }]), "tar.gz")).message, /no SKILL\.md at its root/);
  assert.match((await refusal(tarGz([{ path: "SKILL.md", body: SKILL }, { path: "./SKILL.md", body: SKILL }]), "tar.gz")).message, /appears twice/);
  assert.match((await refusal(Buffer.from([0x1f, 0x8b, 1, 2, 3, 4, 5, 6, 7, 8, 9]), "tar.gz")).message, /not a readable|TAR|zlib|header/i);
  assert.match((await refusal(Buffer.from("PK not really"), "zip")).message, /not a readable \.zip/);
});
