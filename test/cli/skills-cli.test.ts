/**
 * skillport beside the real `skills` CLI (SPEC §10.1), in both orders, on one project: each
 * tool installs, and the other adds, verifies, updates and removes; `skills-lock.json` is
 * compared field by field after each step, so nothing either tool installed is forgotten or
 * clobbered. Sources are `file://` repositories and local folders: no network.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { computedHashOf } from "../../src/install/computed-hash.js";
import { runCli, sandbox, type CliRun } from "./cli-process.js";
import { commitAll, fileUrl, GIT_ENV, initRepo, writeRepoSkill } from "../support/git-repo.js";
import { runSkillsCli, skillsCliMissing } from "../support/skills-cli.js";

const missing = skillsCliMissing();

interface Lock {
  version: number;
  skills: Record<string, Record<string, unknown>>;
}

interface Project {
  cwd: string;
  home: string;
  repo: string;
  url: string;
  lockfile: string;
  skills: string;
  port(...args: string[]): Promise<CliRun>;
  other(...args: string[]): Promise<CliRun>;
  lock(): Lock;
}

function project(): Project {
  const box = sandbox();
  const cwd = path.join(box.cwd, "project");
  fs.mkdirSync(path.join(cwd, ".git"), { recursive: true });
  const repo = initRepo(path.join(box.cwd, "source"));
  writeRepoSkill(repo, "skills/one", "One.\n", { "references/notes.md": "notes\n" });
  writeRepoSkill(repo, "skills/two", "Two.\n");
  commitAll(repo, "two skills");
  const lockfile = path.join(cwd, "skills-lock.json");
  return {
    cwd,
    home: box.home,
    repo,
    url: fileUrl(repo),
    lockfile,
    skills: path.join(cwd, ".agents", "skills"),
    port: (...args) => runCli(args, { cwd, env: { ...box.env, ...GIT_ENV } }),
    other: (...args) => runSkillsCli(args, { cwd, home: box.home }),
    lock: () => JSON.parse(fs.readFileSync(lockfile, "utf8")) as Lock,
  };
}

function ok(run: CliRun, what: string): CliRun {
  assert.equal(run.code, 0, `${what}: exit ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
  return run;
}

/** The fields the skills CLI writes, as it writes them for a `file://` git source. */
function cliFields(p: Project, name: string): Record<string, unknown> {
  return { source: p.url, sourceUrl: p.url, sourceType: "git", skillPath: `skills/${name}/SKILL.md`, computedHash: computedHashOf(path.join(p.repo, "skills", name)) };
}

/** Every link under `dir` (as `path -> target`), for checking none is left behind. */
function links(dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string): void => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isSymbolicLink()) found.push(`${path.relative(dir, full)} -> ${fs.readlinkSync(full)}`);
      else if (entry.isDirectory()) walk(full);
    }
  };
  walk(dir);
  return found.sort();
}

test("skillport first: the skills CLI keeps skillport's entries; skillport verifies, updates and removes what that CLI installed", { skip: missing ?? false, timeout: 300_000 }, async () => {
  const p = project();
  ok(await p.port("add", p.url, "--skill", "two", "--agent", "claude-code"), "skillport add two");
  const afterPort = p.lock();
  assert.equal(fs.readFileSync(p.lockfile, "utf8").endsWith("}\n"), true, "a final newline");
  const two = afterPort.skills.two!;
  assert.deepEqual(
    Object.fromEntries(Object.entries(two).filter(([key]) => ["source", "sourceUrl", "sourceType", "skillPath", "computedHash"].includes(key))),
    cliFields(p, "two"),
    "the shared fields are the skills CLI's, computedHash as it computes it",
  );
  assert.deepEqual([two.folder, two.hosts], [".agents/skills", ["claude-code"]]);
  assert.equal(fs.readlinkSync(path.join(p.cwd, ".claude/skills/two")), "../../.agents/skills/two");

  ok(await p.other("add", p.url, "--skill", "one", "-a", "claude-code", "-a", "codex", "-y"), "skills add one");
  const afterOther = p.lock();
  assert.deepEqual(Object.keys(afterOther.skills), ["one", "two"]);
  assert.deepEqual(afterOther.skills.two, two, "skillport's entry is kept, every key of it");
  assert.deepEqual(afterOther.skills.one, cliFields(p, "one"), "the skills CLI's entry, computedHash equal to skillport's computation");

  // skillport verifies the other tool's install by its computedHash, and names a change it cannot see per file.
  assert.equal(ok(await p.port("verify"), "verify").stdout, "ok  one\nok  two\n");
  fs.appendFileSync(path.join(p.skills, "one", "SKILL.md"), "edited\n");
  const edited = await p.port("verify");
  assert.equal(edited.code, 1);
  assert.match(edited.stdout, /^modified {2}one\n {4}its files were changed since it was installed \(they no longer match the computedHash/m);
  ok(await p.port("update", "one", "--force"), "update --force puts the source's back");
  assert.equal(ok(await p.port("verify"), "verify").stdout, "ok  one\nok  two\n");

  // The source moves on: skillport's update moves both, the other tool's entry keeping its shared fields.
  writeRepoSkill(p.repo, "skills/one", "One, second version.\n", { "references/notes.md": "notes\n" });
  const second = commitAll(p.repo, "one v2");
  const updated = ok(await p.port("update"), "update");
  assert.match(updated.stdout, /^updated +one /m);
  assert.match(updated.stdout, /^unchanged +two /m);
  const afterUpdate = p.lock();
  assert.deepEqual(Object.fromEntries(Object.entries(afterUpdate.skills.one!).filter(([key]) => key in cliFields(p, "one"))), cliFields(p, "one"));
  assert.equal(afterUpdate.skills.one!.commit, second, "skillport now records its own facts for it");
  assert.deepEqual({ ...afterUpdate.skills.two, commit: "" }, { ...two, commit: "" });

  // The skills CLI still reads the lockfile skillport wrote: it lists both and removes skillport's.
  const listed = ok(await p.other("list", "--json"), "skills list");
  assert.deepEqual((JSON.parse(listed.stdout) as Array<{ name: string }>).map((s) => s.name).sort(), ["one", "two"]);
  ok(await p.other("remove", "two", "-y"), "skills remove two");
  assert.deepEqual(Object.keys(p.lock().skills), ["one"]);
  assert.deepEqual(p.lock().skills.one, afterUpdate.skills.one, "skillport's facts for one survive the other tool's write");

  // skillport removes the skill the other tool installed, and the link that tool made for Claude Code.
  ok(await p.port("remove", "one"), "skillport remove one");
  assert.deepEqual(p.lock().skills, {});
  assert.deepEqual(links(p.cwd), [], "no link is left behind");
  assert.deepEqual(fs.readdirSync(p.skills), []);
});

test("the skills CLI first: skillport adds beside it, keeps its entries as they are, and the other tool removes skillport's", { skip: missing ?? false, timeout: 300_000 }, async () => {
  const p = project();
  ok(await p.other("add", p.url, "--skill", "one", "-a", "claude-code", "-a", "windsurf", "-y"), "skills add one");
  const first = fs.readFileSync(p.lockfile, "utf8");
  const one = p.lock().skills.one!;
  assert.deepEqual(one, cliFields(p, "one"));

  ok(await p.port("add", p.url, "--skill", "two", "--agent", "windsurf"), "skillport add two");
  const both = p.lock();
  assert.deepEqual(Object.keys(both.skills), ["one", "two"]);
  assert.deepEqual(both.skills.one, one, "the other tool's entry is kept as it was");
  assert.equal(JSON.stringify({ version: 1, skills: { one: both.skills.one } }, null, 2) + "\n", first, "byte for byte");
  assert.equal(ok(await p.port("verify"), "verify").stdout, "ok  one\nok  two\n");

  // An add of the same skill from the same source takes the entry over without a copy.
  const again = ok(await p.port("add", p.url, "--skill", "one"), "skillport add one again");
  assert.match(again.stdout, /^unchanged +one /m);
  const taken = p.lock().skills.one!;
  assert.deepEqual(Object.fromEntries(Object.entries(taken).filter(([key]) => key in one)), one, "its shared fields unchanged");
  assert.match(String(taken.digest), /^sha256:/);

  ok(await p.other("remove", "two", "-y"), "skills remove two");
  assert.deepEqual(Object.keys(p.lock().skills), ["one"]);
  ok(await p.port("remove", "one"), "skillport remove one");
  assert.deepEqual(links(p.cwd), []);
  assert.deepEqual(p.lock().skills, {});
});

test("skillport's earlier lockfile is migrated on its first write losing nothing, and the skills CLI then keeps every entry", { skip: missing ?? false, timeout: 300_000 }, async () => {
  const p = project();
  ok(await p.port("add", p.url, "--skill", "two"), "skillport add two");
  ok(await p.port("add", p.url, "--skill", "two", "--to", "claude"), "skillport add two --to claude");
  const current = p.lock();
  const entry = current.skills.two!;
  // The same two installs as the earlier skillport recorded them.
  const earlier = {
    lockfileVersion: 1,
    folders: Object.fromEntries(
      [".agents/skills", ".claude/skills"].map((folder) => [
        folder,
        { two: { source: p.url, sourceType: "git", url: p.url, ref: null, commit: entry.commit, path: "skills/two", digest: entry.digest } },
      ]),
    ),
  };
  fs.writeFileSync(p.lockfile, JSON.stringify(earlier, null, 2));
  assert.equal(ok(await p.port("verify"), "verify reads the earlier shape").stdout, "ok  two (.agents/skills)\nok  two (.claude/skills)\n");

  ok(await p.port("add", p.url, "--skill", "one"), "skillport add one: the first write");
  const migrated = p.lock();
  assert.equal(migrated.version, 1);
  assert.deepEqual(Object.keys(migrated.skills), ["one", "two"]);
  assert.equal(migrated.skills.two!.folder, ".agents/skills");
  assert.equal(migrated.skills.two!.computedHash, computedHashOf(path.join(p.skills, "two")), "computedHash taken from the installed folder");
  assert.deepEqual(Object.keys(migrated.skills.two!.otherFolders as object), [".claude/skills"]);
  assert.equal(ok(await p.port("verify"), "verify").stdout, "ok  one (.agents/skills)\nok  two (.agents/skills)\nok  two (.claude/skills)\n");

  ok(await p.other("add", p.url, "--skill", "one", "-a", "codex", "-y"), "skills add one over skillport's");
  const afterOther = p.lock();
  assert.deepEqual(afterOther.skills.two, migrated.skills.two, "every folder's entry survives the other tool's write");
  ok(await p.port("remove", "two"), "remove two from both folders");
  assert.deepEqual(Object.keys(p.lock().skills), ["one"]);
});

test("a lockfile of an unknown version or shape is refused and left as it was; entries of kinds skillport does not fetch are kept", { skip: missing ?? false, timeout: 300_000 }, async () => {
  const p = project();
  fs.writeFileSync(p.lockfile, JSON.stringify({ version: 2, skills: {} }));
  const newer = await p.port("add", p.url, "--skill", "one");
  assert.equal(newer.code, 2);
  assert.match(newer.stderr, /version 2 is not 1/);
  assert.equal(fs.readFileSync(p.lockfile, "utf8"), JSON.stringify({ version: 2, skills: {} }));

  const wellKnown = { source: "example.com", sourceUrl: "https://example.com", sourceType: "well-known", computedHash: "a".repeat(64), wellKnownDigest: "sha256:x" };
  fs.writeFileSync(p.lockfile, `${JSON.stringify({ version: 1, skills: { site: wellKnown } }, null, 2)}\n`);
  ok(await p.port("add", p.url, "--skill", "one"), "skillport add beside an entry it cannot fetch");
  assert.deepEqual(p.lock().skills.site, wellKnown);
  ok(await p.other("add", p.url, "--skill", "two", "-a", "codex", "-y"), "skills add");
  assert.deepEqual(Object.keys(p.lock().skills), ["one", "site", "two"]);
});

test("--global: the skills CLI's global lock names what it installed, and skillport never writes it", { skip: missing ?? false, timeout: 300_000 }, async () => {
  const p = project();
  const local = writeRepoSkill(path.join(p.cwd, "vendor"), "three");
  ok(await p.other("add", local, "-g", "-a", "claude-code", "-a", "codex", "-y"), "skills add -g from a local folder");
  const globalLock = path.join(p.home, ".local", "state", "skills", ".skill-lock.json");
  const before = fs.readFileSync(globalLock, "utf8");
  assert.equal((JSON.parse(before) as { version: number }).version, 3);

  const refused = await p.port("add", "./vendor", "--global");
  assert.equal(refused.code, 1);
  assert.match(refused.stdout, /three already exists and skills-lock\.json does not record it \(the skills CLI's global lock records it, from .*vendor.*\); use --force/);
  ok(await p.port("add", "./vendor", "--global", "--force", "--agent", "claude-code"), "skillport add --global --force");
  assert.equal(fs.readlinkSync(path.join(p.home, ".claude/skills/three")), "../../.agents/skills/three");
  ok(await p.port("remove", "three", "--global"), "skillport remove --global");
  assert.deepEqual(links(p.home), []);
  assert.equal(fs.readFileSync(globalLock, "utf8"), before, "the other tool's global lock is untouched");
});

test("a skill the skills CLI copied straight into one host's folder is found there: verified, updated and removed in place", { skip: missing ?? false, timeout: 300_000 }, async () => {
  const p = project();
  // One host alone: that CLI copies into its folder instead of .agents/skills and a link.
  ok(await p.other("add", p.url, "--skill", "one", "-a", "claude-code", "-y"), "skills add one -a claude-code");
  const copied = path.join(p.cwd, ".claude/skills/one");
  assert.ok(fs.lstatSync(copied).isDirectory());
  assert.equal(fs.existsSync(path.join(p.skills, "one")), false);
  assert.equal(ok(await p.port("verify"), "verify").stdout, "ok  one\n");
  fs.appendFileSync(path.join(copied, "SKILL.md"), "edited\n");
  assert.match((await p.port("verify")).stdout, /^modified {2}one\n/);
  ok(await p.port("update", "--force"), "update --force");
  assert.equal(ok(await p.port("verify"), "verify").stdout, "ok  one\n");
  ok(await p.port("remove", "one"), "remove");
  assert.equal(fs.existsSync(copied), false);
  assert.deepEqual(p.lock().skills, {});
});
