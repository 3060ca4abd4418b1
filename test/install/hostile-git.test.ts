/**
 * A git source written by an attacker: what it names in `.gitattributes` never runs a program
 * the user configured, its size never reaches the disk past the package limits, and git never
 * runs for ever. Real repositories over `file://`, the real git binary.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { folderTarget, installSkills, listSourceSkills } from "../../src/index.js";
import { withFetchedCommit } from "../../src/install/git-fetch.js";
import { InstallError } from "../../src/install/install-error.js";
import { MAX_PACKAGE_BYTES } from "../../src/package/limits.js";
import { commitAll, fileUrl, git, GIT_ENV, initRepo, writeRepoSkill } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";

/** The caller's environment without the test's own "no global config" settings: git would read `home`'s. */
function userEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: "0", HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), ...extra };
  delete env.GIT_CONFIG_GLOBAL;
  delete env.GIT_CONFIG_NOSYSTEM;
  return env;
}

test("a repository's .gitattributes never runs a filter the user configured, and files arrive as committed (no ident, no eol conversion)", { timeout: 60_000 }, async () => {
  const base = tempDir("skillport-hostile-");
  const marker = path.join(base, "filter-ran");
  const lfsMarker = path.join(base, "lfs-ran");
  const systemMarker = path.join(base, "system-filter-ran");
  const home = path.join(base, "home");
  fs.mkdirSync(home);
  // What the user has configured for their own repositories: any filter can be named by a stranger's.
  fs.writeFileSync(
    path.join(home, ".gitconfig"),
    `[filter "marker"]\n\tsmudge = sh -c 'touch ${marker}; cat'\n\trequired = true\n[filter "lfs"]\n\tsmudge = sh -c 'touch ${lfsMarker}; cat'\n\tprocess = sh -c 'touch ${lfsMarker}; exit 1'\n\trequired = true\n`,
  );
  const systemConfig = path.join(base, "system.gitconfig");
  fs.writeFileSync(systemConfig, `[filter "sys"]\n\tsmudge = sh -c 'touch ${systemMarker}; cat'\n`);

  const repo = initRepo(path.join(base, "repo"));
  writeRepoSkill(repo, "one", "Do it.\n", { "notes.txt": "plain $Id$ text\nsecond line\n", "data.bin": "binary-ish\n", "conf.sys": "sys\n" });
  fs.writeFileSync(path.join(repo, ".gitattributes"), "*.txt filter=marker ident eol=crlf\n*.bin filter=lfs diff=lfs merge=lfs\n*.sys filter=sys\n");
  fs.writeFileSync(path.join(repo, ".lfsconfig"), "[lfs]\n\turl = http://127.0.0.1:9/lfs\n");
  commitAll(repo, "a skill with attributes");

  const target = folderTarget(path.join(base, "project", "skills"), path.join(base, "project", "skills-lock.json"));
  const report = await installSkills(fileUrl(repo), { target, env: userEnv(home, { GIT_CONFIG_SYSTEM: systemConfig }) });
  assert.deepEqual(report.skills.map((s) => [s.name, s.status]), [["one", "installed"]], JSON.stringify(report));
  assert.equal(fs.existsSync(marker), false, "the user's filter never ran");
  assert.equal(fs.existsSync(lfsMarker), false, "the LFS filter never ran");
  assert.equal(fs.existsSync(systemMarker), false, "the system config's filter never ran");
  assert.equal(fs.readFileSync(path.join(target.dir, "one", "notes.txt"), "utf8"), "plain $Id$ text\nsecond line\n");
  assert.equal(fs.readFileSync(path.join(target.dir, "one", "data.bin"), "utf8"), "binary-ish\n");
});

/** A repository with a skill `tiny` and a skill `big` whose one file is `bigBytes` of zeros (a few KiB compressed). */
function repoWithBigSkill(base: string, bigBytes: number): { repo: string; bigOid: string } {
  const repo = initRepo(path.join(base, "repo"));
  writeRepoSkill(repo, "skills/tiny");
  const big = writeRepoSkill(repo, "skills/big");
  const fd = fs.openSync(path.join(big, "huge.bin"), "w");
  const chunk = Buffer.alloc(1024 * 1024);
  for (let left = bigBytes; left > 0; left -= chunk.length) fs.writeSync(fd, chunk, 0, Math.min(left, chunk.length));
  fs.closeSync(fd);
  commitAll(repo, "a tiny skill and a big one");
  return { repo, bigOid: git(repo, "rev-parse", "HEAD:skills/big/huge.bin") };
}

test("--skill tiny fetches and writes only tiny: the big skill's blob never leaves the source", { timeout: 120_000 }, async () => {
  const base = tempDir("skillport-hostile-");
  const { repo, bigOid } = repoWithBigSkill(base, 64 * 1024 * 1024);
  const env = { ...process.env, ...GIT_ENV };
  await withFetchedCommit(fileUrl(repo), null, { env, select: { inside: "", names: ["tiny"] } }, async ({ dir }) => {
    assert.ok(fs.existsSync(path.join(dir, "skills", "tiny", "SKILL.md")));
    assert.equal(fs.existsSync(path.join(dir, "skills", "big", "huge.bin")), false, "nothing of the big skill is written");
    const gitDir = path.join(path.dirname(dir), "git");
    assert.ok(fs.existsSync(gitDir), "the fetch keeps its objects beside the files");
    const stored = git(repo, "--git-dir", gitDir, "cat-file", "--batch-check", "--batch-all-objects");
    assert.ok(!stored.includes(bigOid), "the big blob was never fetched");
  });
  const target = folderTarget(path.join(base, "project", "skills"), path.join(base, "project", "skills-lock.json"));
  const report = await installSkills(fileUrl(repo), { target, env, skills: ["tiny"] });
  assert.deepEqual(report.skills.map((s) => [s.name, s.status]), [["tiny", "installed"]]);
});

test("a skill's files are written for real exactly up to the package limit, and one byte past it only as a sparse placeholder the package rule refuses", { timeout: 120_000 }, async () => {
  const base = tempDir("skillport-hostile-");
  const repo = initRepo(path.join(base, "repo"));
  const skillFile = (name: string): number => Buffer.byteLength(fs.readFileSync(path.join(writeRepoSkill(repo, `skills/${name}`), "SKILL.md")));
  // "at-limit" and "past-one" have SKILL.md files of the same length.
  const skillBytes = skillFile("at-limit");
  assert.equal(skillFile("past-one"), skillBytes);
  const zeros = (name: string, size: number): void => {
    const fd = fs.openSync(path.join(repo, "skills", name, "data.bin"), "w");
    fs.ftruncateSync(fd, size);
    fs.closeSync(fd);
  };
  zeros("at-limit", MAX_PACKAGE_BYTES - skillBytes);
  zeros("past-one", MAX_PACKAGE_BYTES - skillBytes + 1);
  commitAll(repo, "two skills at the edge");
  const env = { ...process.env, ...GIT_ENV };
  await withFetchedCommit(fileUrl(repo), null, { env }, async ({ dir }) => {
    const at = fs.statSync(path.join(dir, "skills", "at-limit", "data.bin"));
    const past = fs.statSync(path.join(dir, "skills", "past-one", "data.bin"));
    assert.equal(at.size, MAX_PACKAGE_BYTES - skillBytes);
    assert.equal(past.size, MAX_PACKAGE_BYTES - skillBytes + 1, "the placeholder has the file's true size");
    assert.ok(at.blocks * 512 >= at.size - 4096, "at the limit the bytes are written");
    assert.ok(past.blocks * 512 < 1024 * 1024, "past it nothing is written");
  });
  const listing = await listSourceSkills(fileUrl(repo), { env });
  const byName = new Map(listing.skills.map((s) => [s.name, s]));
  assert.equal(byName.get("at-limit")!.installable, true, byName.get("at-limit")!.problems.join("; "));
  assert.equal(byName.get("past-one")!.installable, false);
  assert.match(byName.get("past-one")!.problems.join("; "), new RegExp(`more than ${MAX_PACKAGE_BYTES} bytes`));
});

test("git that does not finish in time is killed with everything it started, and the fetch fails saying so", { timeout: 60_000 }, async () => {
  // An ssh that never answers: the transport git starts for an ssh:// source.
  const env = { ...process.env, ...GIT_ENV, GIT_SSH_COMMAND: "sleep 30; true", SKILLPORT_GIT_TIMEOUT: "1" };
  await assert.rejects(
    withFetchedCommit("ssh://git.example.invalid/skills.git", null, { env }, async () => "fetched"),
    (error: unknown) => error instanceof InstallError && /did not finish within 1 s/.test(error.message) && /SKILLPORT_GIT_TIMEOUT/.test(error.message),
  );
});
