/**
 * Where `add` and `remove` may act, through the real CLI: a name that climbs out of the skills
 * folder, a GitHub folder URL whose path climbs out of the repository, and a committed `.agents`
 * link that leads nowhere are each refused before anything is fetched, written or deleted.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { runCli, sandbox } from "./cli-process.js";
import { commitAll, fileUrl, GIT_ENV, initRepo, writeRepoSkill } from "../support/git-repo.js";

const T = { timeout: 90_000 };

/** A project (its own repository root) with a HOME, and a source repository with one skill. */
function project(): { cwd: string; env: Record<string, string>; url: string; skills: string } {
  const box = sandbox();
  const cwd = path.join(box.cwd, "project");
  fs.mkdirSync(path.join(cwd, ".git"), { recursive: true });
  const repo = initRepo(path.join(box.cwd, "source"));
  writeRepoSkill(repo, "skills/alpha", "Alpha.\n");
  commitAll(repo, "one skill");
  return { cwd, env: { ...box.env, ...GIT_ENV }, url: fileUrl(repo), skills: path.join(cwd, ".agents", "skills") };
}

function entries(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
}

test("remove --force refuses a name that climbs to a folder that exists outside the skills folder, and leaves it whole", T, async () => {
  const p = project();
  assert.equal((await runCli(["add", p.url], { cwd: p.cwd, env: p.env })).code, 0);
  // Folders that exist at each height a climbing name could reach: beside the skills, in the project, above it.
  const victims = {
    "../victim": path.join(p.cwd, ".agents", "victim"),
    "../../victim": path.join(p.cwd, "victim"),
    "../../../victim": path.join(path.dirname(p.cwd), "victim"),
    "alpha/../../victim": path.join(p.cwd, ".agents", "victim"),
  };
  for (const dir of new Set(Object.values(victims))) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "keep.txt"), "mine\n");
  }
  for (const [name, dir] of Object.entries(victims)) {
    const run = await runCli(["remove", name, "--force"], { cwd: p.cwd, env: p.env });
    assert.equal(run.code, 1, `${name}: ${run.stdout}${run.stderr}`);
    assert.match(run.stdout + run.stderr, /is not installed in \.agents\/skills/, name);
    assert.deepEqual(entries(dir), ["keep.txt"], `${name} left ${dir} whole`);
  }
  assert.deepEqual(entries(p.skills), ["alpha"], "the installed skill is untouched too");
});

test("a GitHub folder URL whose path holds .. or an empty segment, encoded or not, is a usage error before git runs", T, async () => {
  const p = project();
  // A `git` first on PATH that only leaves a mark: any fetch at all would show.
  const bin = path.join(path.dirname(p.cwd), "bin");
  const mark = path.join(path.dirname(p.cwd), "git-ran");
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, "git"), `#!/bin/sh\necho "$@" >> '${mark}'\nexit 1\n`, { mode: 0o755 });
  const env = { ...p.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` };
  for (const source of [
    "https://github.com/owner/repo/tree/main/skills%2F..%2F..%2Fetc",
    "https://github.com/owner/repo/tree/main/a//b",
    "https://github.com/owner/repo/tree/main/a%2F%2Fb",
    "https://github.com/owner/repo/tree/main/a%2F.%2Fb",
  ]) {
    const run = await runCli(["add", source], { cwd: p.cwd, env });
    assert.equal(run.code, 2, `${source}: ${run.stdout}${run.stderr}`);
    assert.match(run.stderr, /may not hold empty, \. or \.\. segments/, source);
    assert.equal(fs.existsSync(mark), false, `${source}: git ran (${fs.existsSync(mark) ? fs.readFileSync(mark, "utf8") : ""})`);
  }
  assert.equal(fs.existsSync(path.join(p.cwd, ".agents")), false);
});

test("a committed .agents link that leads nowhere is the usage error that names the folder, not a failed mkdir", T, async () => {
  const p = project();
  const nowhere = path.join(path.dirname(p.cwd), "nowhere");
  fs.symlinkSync("../nowhere", path.join(p.cwd, ".agents"));
  for (const args of [["add", p.url], ["remove", "alpha", "--force"]]) {
    const run = await runCli(args, { cwd: p.cwd, env: p.env });
    assert.equal(run.code, 2, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
    assert.match(run.stderr, /\.agents\/skills is reached through a link leading outside the project \(or to nothing\); nothing was installed or removed there/);
    assert.doesNotMatch(run.stderr, /ENOENT|mkdir/);
  }
  assert.equal(fs.existsSync(nowhere), false, "nothing was made where the link points");
  assert.equal(fs.existsSync(path.join(p.cwd, "skills-lock.json")), false);
});
