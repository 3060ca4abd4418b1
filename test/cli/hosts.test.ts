/**
 * `add --agent ID` for every host of the table (SPEC §10.1), checked against the real `skills`
 * CLI: the same ids, and for each id, project and global, the skill lands where that CLI puts
 * it (the same links, with the same relative text), `remove` leaves no link behind, project-only
 * hosts refuse `--global`, `--copy` copies, and a host folder skillport did not make is never
 * replaced without `--force`.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { HOSTS, hostGlobalDir, isUniversalHost } from "../../src/install/hosts.js";
import { runCli, sandbox, type CliRun } from "./cli-process.js";
import { commitAll, fileUrl, GIT_ENV, initRepo, writeRepoSkill } from "../support/git-repo.js";
import { runSkillsCli, skillsCliMissing } from "../support/skills-cli.js";

const missing = skillsCliMissing();
const IDS = HOSTS.map((host) => host.id);

interface Box {
  cwd: string;
  home: string;
  url: string;
  port(...args: string[]): Promise<CliRun>;
  other(...args: string[]): Promise<CliRun>;
}

function box(repoUrl?: string): Box {
  const b = sandbox();
  const cwd = path.join(b.cwd, "project");
  fs.mkdirSync(path.join(cwd, ".git"), { recursive: true });
  let url = repoUrl;
  if (!url) {
    const repo = initRepo(path.join(b.cwd, "source"));
    writeRepoSkill(repo, "skills/one", "One.\n");
    commitAll(repo, "one skill");
    url = fileUrl(repo);
  }
  return {
    cwd,
    home: b.home,
    url,
    port: (...args) => runCli(args, { cwd, env: { ...b.env, ...GIT_ENV } }),
    other: (...args) => runSkillsCli(args, { cwd, home: b.home }),
  };
}

function ok(run: CliRun, what: string): CliRun {
  assert.equal(run.code, 0, `${what}: exit ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
  return run;
}

/** Every link under `dir`, as `path -> link text`, and every folder named `one` that is not a link. */
function tree(dir: string): { links: string[]; folders: string[] } {
  const links: string[] = [];
  const folders: string[] = [];
  const walk = (at: string): void => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isSymbolicLink()) links.push(`${path.relative(dir, full)} -> ${fs.readlinkSync(full)}`);
      else if (entry.isDirectory() && entry.name !== ".git") {
        if (entry.name === "one") folders.push(path.relative(dir, full));
        else walk(full);
      }
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return { links: links.sort(), folders: folders.sort() };
}

test("the host table has exactly the ids the skills CLI accepts", { skip: missing ?? false, timeout: 120_000 }, async () => {
  const b = box();
  const run = await b.other("add", b.url, "--skill", "one", "-a", "no-such-host", "-y");
  const line = /Valid agents: ([^\n]+)/.exec(run.stdout + run.stderr);
  assert.ok(line, `no list of valid agents in:\n${run.stdout}${run.stderr}`);
  assert.deepEqual([...IDS].sort(), line[1]!.trim().split(", ").sort());
});

test("--agent for every host id, project: the skill lands where the skills CLI puts it, and remove leaves no link", { skip: missing ?? false, timeout: 300_000 }, async () => {
  const theirs = box();
  ok(await theirs.other("add", theirs.url, "--skill", "one", ...IDS.flatMap((id) => ["-a", id]), "-y"), "skills add for every id");
  const ours = box(theirs.url);
  const added = ok(await ours.port("add", ours.url, "--skill", "one", ...IDS.flatMap((id) => ["--agent", id])), "skillport add for every id");
  assert.match(added.stdout, /for .*claude-code \(linked\)/);

  const want = tree(theirs.cwd);
  const got = tree(ours.cwd);
  // Eve: that CLI copies into agent/skills (rewriting SKILL.md's frontmatter for it); skillport links it like any host.
  assert.deepEqual(got.links.filter((l) => !l.startsWith("agent/")), want.links, "the same links, with the same relative text");
  assert.deepEqual(got.links.filter((l) => l.startsWith("agent/")), ["agent/skills/one -> ../../.agents/skills/one"]);
  assert.deepEqual(want.folders, [".agents/skills/one", "agent/skills/one"]);
  assert.deepEqual(got.folders, [".agents/skills/one"]);
  for (const host of HOSTS) {
    for (const root of [theirs.cwd, ours.cwd]) {
      assert.ok(fs.existsSync(path.join(root, ...host.project.split("/"), "one", "SKILL.md")), `${host.id}: ${host.project}/one in ${root === ours.cwd ? "skillport's" : "the skills CLI's"} install`);
    }
  }
  const lock = JSON.parse(fs.readFileSync(path.join(ours.cwd, "skills-lock.json"), "utf8")) as { skills: Record<string, { hosts: string[] }> };
  assert.deepEqual(lock.skills.one!.hosts, [...IDS].sort(), "the lockfile records every host");
  assert.equal(ok(await ours.port("verify"), "verify").stdout, "ok  one\n");

  ok(await ours.port("remove", "one"), "remove");
  assert.deepEqual(tree(ours.cwd), { links: [], folders: [] }, "no link and no copy is left");
});

test("--agent for every host id with a global folder, --global: the same links under HOME; project-only hosts refuse", { skip: missing ?? false, timeout: 300_000 }, async () => {
  const globalIds = HOSTS.filter((host) => host.global !== null).map((host) => host.id);
  const theirs = box();
  ok(await theirs.other("add", theirs.url, "--skill", "one", "-g", ...globalIds.flatMap((id) => ["-a", id]), "-y"), "skills add -g for every id");
  const ours = box(theirs.url);
  ok(await ours.port("add", ours.url, "--skill", "one", "--global", ...globalIds.flatMap((id) => ["--agent", id])), "skillport add --global for every id");
  assert.deepEqual(tree(ours.home).links, tree(theirs.home).links);
  assert.deepEqual(tree(ours.home).folders, [".agents/skills/one"]);
  for (const host of HOSTS.filter((h) => h.global !== null)) {
    const dir = hostGlobalDir(host, { home: ours.home, cwd: ours.cwd, env: { XDG_CONFIG_HOME: "" } });
    assert.ok(dir && fs.existsSync(path.join(dir, "one", "SKILL.md")), `${host.id}: ${dir}`);
    if (isUniversalHost(host)) assert.equal(dir, path.join(ours.home, ".agents/skills"));
  }

  for (const host of HOSTS.filter((h) => h.global === null)) {
    const refused = await ours.port("add", ours.url, "--skill", "one", "--global", "--agent", host.id);
    assert.equal(refused.code, 2, host.id);
    assert.match(refused.stderr, new RegExp(`^error: ${host.name} \\(${host.id}\\) reads skills only from a project's ${host.project.replace(/[.]/g, "\\.")}; it has no global folder, so --global cannot install for it$`, "m"));
  }
  ok(await ours.port("remove", "one", "--global"), "remove --global");
  assert.deepEqual(tree(ours.home), { links: [], folders: [] });
});

test("--copy copies into each host's folder, update keeps the copies current, remove takes them out", { timeout: 120_000 }, async () => {
  const b = box();
  const added = ok(await b.port("add", b.url, "--agent", "claude-code", "--agent", "windsurf", "--copy"), "add --copy");
  assert.match(added.stdout, /for claude-code \(copied\), windsurf \(copied\)/);
  for (const folder of [".claude/skills/one", ".windsurf/skills/one"]) assert.ok(fs.lstatSync(path.join(b.cwd, folder)).isDirectory(), folder);
  assert.deepEqual(tree(b.cwd).links, []);
  ok(await b.port("remove", "one"), "remove");
  assert.deepEqual(tree(b.cwd), { links: [], folders: [] });
});

test("a host folder holding a skill of that name skillport did not make is not replaced without --force", { timeout: 120_000 }, async () => {
  const b = box();
  const mine = path.join(b.cwd, ".claude/skills/one");
  fs.mkdirSync(mine, { recursive: true });
  fs.writeFileSync(path.join(mine, "SKILL.md"), "my own\n");
  const refused = await b.port("add", b.url, "--agent", "claude-code");
  assert.equal(refused.code, 1);
  assert.match(refused.stdout, /^refused {2}one\n {4}.*\.claude\/skills\/one already exists and is not a link skillport made \(claude-code\); use --force to replace it\n/);
  assert.equal(fs.readFileSync(path.join(mine, "SKILL.md"), "utf8"), "my own\n");
  assert.equal(fs.existsSync(path.join(b.cwd, ".agents/skills/one")), false, "nothing placed");
  ok(await b.port("add", b.url, "--agent", "claude-code", "--force"), "--force");
  assert.equal(fs.readlinkSync(mine), "../../.agents/skills/one");
});

test("--agent: unknown ids, --to with it, and '*' with no host found are usage errors; '*' links the hosts found", { timeout: 120_000 }, async () => {
  const b = box();
  const unknown = await b.port("add", b.url, "--agent", "nope");
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /--agent "nope" is not a host skillport knows \(skillport add --help lists them\)/);
  assert.equal((await b.port("add", b.url, "--agent", "claude-code", "--to", "claude")).code, 2);
  assert.equal((await b.port("add", b.url, "--copy")).code, 2);
  const none = await b.port("add", b.url, "--agent", "*");
  assert.equal(none.code, 2);
  assert.match(none.stderr, /found no host installed on this machine/);
  assert.equal(fs.existsSync(path.join(b.cwd, ".agents")), false);

  fs.mkdirSync(path.join(b.home, ".claude"));
  fs.mkdirSync(path.join(b.home, ".codeium", "windsurf"), { recursive: true });
  const all = ok(await b.port("add", b.url, "--agent", "*"), "--agent '*'");
  assert.match(all.stdout, /for claude-code \(linked\), windsurf \(linked\)\n/);
});

test("add --help lists every host id of the table with its folders", { timeout: 60_000 }, async () => {
  const b = box("file:///unused");
  const help = ok(await b.port("add", "--help"), "add --help").stdout;
  for (const host of HOSTS.filter((h) => !h.hidden)) assert.match(help, new RegExp(`^  ${host.id} +${host.project.replace(/[.]/g, "\\.")} `, "m"), host.id);
  assert.match(help, /^ {2}eve +agent\/skills +- \(project only\)$/m);
});

test("add --frozen after a fresh clone puts the skill and each recorded host's link back, lockfile unchanged; --json names the hosts", { timeout: 120_000 }, async () => {
  const b = box();
  const added = ok(await b.port("add", b.url, "--agent", "claude-code", "--agent", "goose", "--json"), "add --json");
  assert.deepEqual((JSON.parse(added.stdout) as { skills: Array<{ hosts: string[] }> }).skills[0]!.hosts, ["claude-code", "goose"]);
  const lockfile = path.join(b.cwd, "skills-lock.json");
  const before = fs.readFileSync(lockfile, "utf8");
  for (const folder of [".agents", ".claude", ".goose"]) fs.rmSync(path.join(b.cwd, folder), { recursive: true });
  ok(await b.port("add", "--frozen"), "add --frozen");
  assert.deepEqual(tree(b.cwd).links, [".claude/skills/one -> ../../.agents/skills/one", ".goose/skills/one -> ../../.agents/skills/one"]);
  assert.equal(fs.readFileSync(lockfile, "utf8"), before);
  assert.deepEqual(fs.readdirSync(path.join(b.cwd, ".claude/skills")), ["one"], "no temporary link is left");
});

test("a project host folder reached through a link leading out of the project gets nothing, even with --force", { timeout: 120_000 }, async () => {
  const b = box();
  const elsewhere = path.join(path.dirname(b.cwd), "elsewhere");
  fs.mkdirSync(elsewhere);
  fs.symlinkSync(elsewhere, path.join(b.cwd, ".claude"));
  for (const force of [[], ["--force"]]) {
    const run = await b.port("add", b.url, "--agent", "claude-code", ...force);
    assert.equal(run.code, 2, `${force.join(" ")}: ${run.stdout}${run.stderr}`);
    assert.match(run.stderr, /\.claude\/skills is reached through a link leading outside the project/);
    assert.deepEqual(fs.readdirSync(elsewhere), []);
    assert.equal(fs.existsSync(path.join(b.cwd, ".agents/skills/one")), false, "nothing placed before the refusal");
  }
});
