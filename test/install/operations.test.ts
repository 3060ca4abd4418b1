/**
 * The install operations as a library host calls them (`import { installSkills, … } from
 * "skillport"`): into a folder of the host's own choosing, with real git repositories.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { folderTarget, installSkills, InstallError, listSourceSkills, readSkillsLock, removeSkills, updateSkills, verifySkills } from "../../src/index.js";
import { commitAll, fileUrl, GIT_ENV, initRepo, writeRepoSkill } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";
import { withFetchedCommit } from "../../src/install/git-fetch.js";

const env = { ...process.env, ...GIT_ENV };

/** Runs `work` with os.tmpdir() pointed at a private folder, and returns what is left in it. */
async function leftInTmp(work: () => Promise<unknown>): Promise<string[]> {
  const tmp = tempDir("skillport-tmpdir-");
  const before = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  try {
    await work().catch(() => undefined);
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  }
  return fs.readdirSync(tmp);
}

test("a host installs, updates, verifies and removes skills in its own folder", { timeout: 60_000 }, async () => {
  const base = tempDir("skillport-host-");
  const repo = initRepo(path.join(base, "repo"));
  writeRepoSkill(repo, "one");
  writeRepoSkill(repo, "two");
  const first = commitAll(repo, "two skills");
  const target = folderTarget(path.join(base, "host", "skills"), path.join(base, "host", "skills.lock.json"));
  assert.equal(target.folder, "skills");

  const progress: string[] = [];
  const installed = await installSkills(fileUrl(repo), { target, env, onProgress: (line) => progress.push(line) });
  assert.deepEqual(installed.skills.map((s) => [s.name, s.status, s.commit]), [["one", "installed", first], ["two", "installed", first]]);
  assert.equal(progress.length, 2);
  assert.deepEqual([...readSkillsLock(target.lockfile).get("skills")!.keys()], ["one", "two"]);

  writeRepoSkill(repo, "two", "Changed.\n");
  const second = commitAll(repo, "two changes");
  const updated = await updateSkills({ target, env });
  assert.deepEqual(updated.skills.map((s) => [s.name, s.status, s.commit]), [["one", "unchanged", second], ["two", "updated", second]]);

  fs.writeFileSync(path.join(target.dir, "one", "extra.md"), "added by hand");
  assert.deepEqual((await verifySkills({ target })).skills.map((s) => [s.name, s.status]), [["one", "modified"], ["two", "ok"]]);
  const removed = await removeSkills(["two"], { target });
  assert.deepEqual(removed.skills.map((s) => [s.name, s.status]), [["two", "removed"]]);
  assert.deepEqual(fs.readdirSync(target.dir), ["one"]);
});

test("the temporary fetch folder is removed whether the fetch succeeds or fails", { timeout: 60_000 }, async () => {
  const base = tempDir("skillport-host-");
  const repo = initRepo(path.join(base, "repo"));
  writeRepoSkill(repo, "one");
  commitAll(repo, "one skill");
  assert.deepEqual(await leftInTmp(() => listSourceSkills(fileUrl(repo), { env })), []);
  const missing = fileUrl(path.join(base, "no-such-repo"));
  await assert.rejects(listSourceSkills(missing, { env }), (error: unknown) => error instanceof InstallError && error.kind === "failed" && /cannot fetch/.test(error.message));
  assert.deepEqual(await leftInTmp(() => listSourceSkills(missing, { env })), []);
  assert.deepEqual(await leftInTmp(() => listSourceSkills(`${fileUrl(repo)}#no-such-branch`, { env })), []);
});

test("git is run directly with GIT_TERMINAL_PROMPT=0, a shallow partial fetch of one commit, and -- before the URL and ref", { timeout: 60_000 }, async () => {
  const base = tempDir("skillport-host-");
  const repo = initRepo(path.join(base, "repo"));
  writeRepoSkill(repo, "one");
  commitAll(repo, "one skill");
  // A `git` first on PATH that records how it was called, then runs the real one.
  const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  const bin = path.join(base, "bin");
  const log = path.join(base, "calls.log");
  fs.mkdirSync(bin);
  fs.writeFileSync(
    path.join(bin, "git"),
    `#!/bin/sh\nprintf 'prompt=%s' "$GIT_TERMINAL_PROMPT" >> ${JSON.stringify(log)}\nfor a in "$@"; do printf ' [%s]' "$a" >> ${JSON.stringify(log)}; done\necho >> ${JSON.stringify(log)}\nexec ${JSON.stringify(realGit)} "$@"\n`,
    { mode: 0o755 },
  );
  const url = `${fileUrl(repo)}#main`;
  await listSourceSkills(url, { env: { ...env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` } });
  const calls = fs.readFileSync(log, "utf8").trim().split("\n");
  assert.ok(calls.every((call) => call.startsWith("prompt=0 ")), calls.join("\n"));
  const remote = calls.find((call) => call.includes("[remote]"))!;
  assert.match(remote, /\[add\] \[--\] \[origin\] \[file:\/\/[^\]]+\]$/);
  const fetch = calls.find((call) => call.includes("[fetch]"))!;
  assert.match(fetch, /\[--depth=1\] \[--filter=blob:none\] \[--no-tags\] \[--no-recurse-submodules\] \[--\] \[origin\] \[main\]$/);
});

test("git is allowed only the https, ssh and file transports, whatever the user's git configuration allows", { timeout: 60_000 }, async () => {
  const base = tempDir("skillport-host-");
  const mark = path.join(base, "ran");
  const allowAll = { ...env, GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "protocol.allow", GIT_CONFIG_VALUE_0: "always" };
  await assert.rejects(
    withFetchedCommit(`ext::sh -c touch% ${mark}`, null, { env: allowAll }, async () => "fetched"),
    (error: unknown) => error instanceof InstallError && /not allowed/.test(error.message),
  );
  assert.equal(fs.existsSync(mark), false);
});
