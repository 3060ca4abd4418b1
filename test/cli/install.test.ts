/**
 * `add`, `update`, `remove`, `verify` against real git repositories (file:// URLs, no network),
 * run as the real CLI in child processes.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { digestOfPackage } from "../../src/package/package-digest.js";
import { jsonOf, runCli, sandbox, spawnCli, type CliRun } from "./cli-process.js";
import { commitAll, fileUrl, git, GIT_ENV, initRepo, writeRepoSkill } from "../support/git-repo.js";
import { eventually } from "../support/eventually.js";

interface Project {
  cwd: string;
  home: string;
  env: Record<string, string>;
  /** The source repository. */
  repo: string;
  url: string;
  skills: string;
  lockfile: string;
  run(...args: string[]): Promise<CliRun>;
}

/** A project folder (its own repository root), a HOME, and a source repository with two skills. */
function project(): Project {
  const box = sandbox();
  const cwd = path.join(box.cwd, "project");
  fs.mkdirSync(path.join(cwd, ".git"), { recursive: true });
  const repo = initRepo(path.join(box.cwd, "source"));
  writeRepoSkill(repo, "skills/alpha", "Alpha, first version.\n");
  writeRepoSkill(repo, "skills/beta", "Beta.\n", { "scripts/run.sh": "#!/bin/sh\necho beta\n", "references/notes.md": "notes\n" });
  fs.chmodSync(path.join(repo, "skills/beta/scripts/run.sh"), 0o755);
  commitAll(repo, "two skills");
  const env = { ...box.env, ...GIT_ENV };
  return {
    cwd,
    home: box.home,
    env,
    repo,
    url: fileUrl(repo),
    skills: path.join(cwd, ".agents", "skills"),
    lockfile: path.join(cwd, "skills-lock.json"),
    run: (...args: string[]) => runCli(args, { cwd, env }),
  };
}

/** One entry of skills-lock.json: the skills CLI's fields, then skillport's. */
interface LockEntry {
  source: string;
  sourceType: string;
  sourceUrl?: string;
  ref?: string;
  skillPath?: string;
  computedHash: string;
  commit?: string;
  digest: string;
  files?: Record<string, string>;
  folder: string;
  hosts?: string[];
  given?: string;
}

interface LockJson {
  version: number;
  skills: Record<string, LockEntry>;
}

function lockOf(p: Project): LockJson {
  return JSON.parse(fs.readFileSync(p.lockfile, "utf8")) as LockJson;
}

function read(file: string): string {
  return fs.readFileSync(file, "utf8");
}

/** What a folder of installed skills shows, dot-entries included. */
function entries(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
}

test("add installs every skill of a git source whole, records each in skills-lock.json, and says so one line each", { timeout: 60_000 }, async () => {
  const p = project();
  const head = git(p.repo, "rev-parse", "HEAD");
  const run = await p.run("add", p.url);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, `installed  alpha  skills/alpha @ ${head.slice(0, 12)}\ninstalled  beta  skills/beta @ ${head.slice(0, 12)}\n`);
  assert.match(run.stderr, /^fetching file:\/\/.*\nfetched .* at [0-9a-f]{12}\n2 installed\n$/);

  assert.deepEqual(entries(p.skills), ["alpha", "beta"]);
  assert.equal(read(path.join(p.skills, "beta/scripts/run.sh")), "#!/bin/sh\necho beta\n");
  assert.notEqual(fs.statSync(path.join(p.skills, "beta/scripts/run.sh")).mode & 0o111, 0, "a script stays executable");
  assert.equal(read(path.join(p.skills, "beta/references/notes.md")), "notes\n");

  const lock = lockOf(p);
  assert.equal(lock.version, 1);
  assert.deepEqual(Object.keys(lock.skills), ["alpha", "beta"]);
  const beta = lock.skills.beta!;
  assert.deepEqual(
    { ...beta, digest: "", computedHash: "", files: {} },
    { source: p.url, sourceUrl: p.url, sourceType: "git", skillPath: "skills/beta/SKILL.md", computedHash: "", commit: head, digest: "", files: {}, folder: ".agents/skills" },
  );
  assert.deepEqual(Object.keys(beta.files!), ["SKILL.md", "references/notes.md", "scripts/run.sh"]);
  assert.match(beta.computedHash, /^[0-9a-f]{64}$/);
  assert.equal(beta.digest, digestOfPackage(path.join(p.skills, "beta")).digest);
  assert.match(beta.digest, /^sha256:[0-9a-f]{64}$/);
  assert.deepEqual(fs.readdirSync(path.dirname(p.lockfile)).filter((n) => n.includes("skills-lock")), ["skills-lock.json"], "no temporary lockfile is left");
});

test("add --skill installs only the named skills; a name the source does not hold is refused with what it holds", { timeout: 60_000 }, async () => {
  const p = project();
  const one = await p.run("add", p.url, "--skill", "beta");
  assert.equal(one.code, 0, one.stderr);
  assert.deepEqual(entries(p.skills), ["beta"]);
  assert.deepEqual(Object.keys(lockOf(p).skills), ["beta"]);

  const missing = await p.run("add", p.url, "--skill", "gamma", "--json");
  assert.equal(missing.code, 1);
  const report = jsonOf<{ skills: Array<{ name: string; status: string; messages: string[] }> }>(missing);
  assert.deepEqual(report.skills, [{ name: "gamma", status: "refused", dir: path.join(p.skills, "gamma"), folder: ".agents/skills", messages: ["the source holds no skill named gamma (it holds: alpha, beta)"] }]);
  assert.deepEqual(entries(p.skills), ["beta"]);
});

test("add --list shows what a source holds, what validate says of each (a refusal only with --strict), and installs nothing", { timeout: 60_000 }, async () => {
  const p = project();
  writeRepoSkill(p.repo, "skills/Broken");
  commitAll(p.repo, "a broken skill");
  const strict = await p.run("add", p.url, "--list", "--strict");
  assert.equal(strict.code, 0, strict.stderr);
  assert.match(strict.stdout, /^Broken {2}\(skills\/Broken\) {2}\[cannot be installed\]\n {4}The Broken skill\.\n {4}- Skill name 'Broken' must be lowercase\n/);
  const run = await p.run("add", p.url, "--list");
  assert.equal(run.code, 0, run.stderr);
  // The loader serves it, so it installs; validate's message is a warning.
  assert.match(run.stdout, /^Broken {2}\(skills\/Broken\)\n {4}The Broken skill\.\n {4}- warning: Skill name 'Broken' must be lowercase\n/);
  assert.match(run.stdout, /^alpha {2}\(skills\/alpha\)\n {4}The alpha skill\.\n/m);
  assert.equal(fs.existsSync(p.skills), false);
  assert.equal(fs.existsSync(p.lockfile), false);
});

test("a source holding a skill validate rejects and a skill with a link out: the first installs with validate's message as a warning, the second is refused, exit 1", { timeout: 60_000 }, async () => {
  const p = project();
  writeRepoSkill(p.repo, "skills/Invalid");
  const leaky = writeRepoSkill(p.repo, "skills/leaky");
  fs.symlinkSync("../alpha/SKILL.md", path.join(leaky, "borrowed.md"));
  commitAll(p.repo, "bad skills");
  const run = await p.run("add", p.url);
  assert.equal(run.code, 1);
  assert.match(run.stdout, /^installed {2}Invalid {2}skills\/Invalid @ [0-9a-f]{12}\n {4}Skill name 'Invalid' must be lowercase\n/m);
  assert.match(run.stdout, /^refused {4}leaky\n {4}borrowed\.md: a link leading outside the skill\n/m);
  assert.match(run.stdout, /^installed {2}alpha /m);
  assert.match(run.stdout, /^installed {2}beta /m);
  assert.deepEqual(entries(p.skills), ["Invalid", "alpha", "beta"]);
  assert.deepEqual(Object.keys(lockOf(p).skills), ["Invalid", "alpha", "beta"]);
});

test("update moves a changed skill to the source's new commit; an untouched one is unchanged but its lock follows the commit", { timeout: 60_000 }, async () => {
  const p = project();
  const first = git(p.repo, "rev-parse", "HEAD");
  assert.equal((await p.run("add", p.url)).code, 0);
  writeRepoSkill(p.repo, "skills/alpha", "Alpha, second version.\n");
  const second = commitAll(p.repo, "alpha v2");

  const run = await p.run("update");
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, `updated    alpha  ${first.slice(0, 12)} -> ${second.slice(0, 12)}\nunchanged  beta  skills/beta @ ${second.slice(0, 12)}\n`);
  assert.match(read(path.join(p.skills, "alpha/SKILL.md")), /second version/);
  const lock = lockOf(p).skills;
  assert.equal(lock.alpha!.commit, second);
  assert.equal(lock.beta!.commit, second);
  assert.equal(lock.alpha!.digest, digestOfPackage(path.join(p.skills, "alpha")).digest);

  const again = await p.run("update", "alpha");
  assert.equal(again.code, 0);
  assert.equal(again.stdout, `unchanged  alpha  skills/alpha @ ${second.slice(0, 12)}\n`);
  const unknown = await p.run("update", "nope");
  assert.equal(unknown.code, 1);
  assert.match(unknown.stdout, /^refused  nope\n {4}nope is not installed in \.agents\/skills/);
});

test("update of a skill pinned to a tag or a commit keeps it there while the branch moves on", { timeout: 60_000 }, async () => {
  const p = project();
  const pinned = git(p.repo, "rev-parse", "HEAD");
  git(p.repo, "tag", "v1");
  assert.equal((await p.run("add", `${p.url}#v1`, "--skill", "alpha")).code, 0);
  assert.equal((await p.run("add", `${p.url}#${pinned}`, "--skill", "beta")).code, 0);
  writeRepoSkill(p.repo, "skills/alpha", "Alpha, on main only.\n");
  writeRepoSkill(p.repo, "skills/beta", "Beta, on main only.\n");
  commitAll(p.repo, "main moves on");

  const run = await p.run("update");
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^unchanged {2}alpha /m);
  assert.match(run.stdout, /^unchanged {2}beta /m);
  assert.match(read(path.join(p.skills, "alpha/SKILL.md")), /first version/);
  const lock = lockOf(p).skills;
  assert.deepEqual([lock.alpha!.ref, lock.alpha!.commit], ["v1", pinned]);
  assert.deepEqual([lock.beta!.ref, lock.beta!.commit], [pinned, pinned]);
  assert.equal(lock.alpha!.source, p.url, "the skills CLI's source: the URL");
  assert.equal(lock.alpha!.given, `${p.url}#v1`, "skillport's: the SOURCE as given");

  // Moving the tag moves the skill pinned to it.
  git(p.repo, "tag", "--force", "v1", "HEAD");
  const moved = await p.run("update", "alpha");
  assert.equal(moved.code, 0, moved.stderr);
  assert.match(moved.stdout, /^updated {2}alpha /);
  assert.match(read(path.join(p.skills, "alpha/SKILL.md")), /on main only/);
});

test("remove takes a skill out of its folder and the lockfile; a name not installed is refused", { timeout: 60_000 }, async () => {
  const p = project();
  assert.equal((await p.run("add", p.url)).code, 0);
  const run = await p.run("remove", "alpha", "ghost");
  assert.equal(run.code, 1);
  assert.equal(run.stdout, "removed  alpha\nrefused  ghost\n    ghost is not installed in .agents/skills\n");
  assert.deepEqual(entries(p.skills), ["beta"]);
  assert.deepEqual(Object.keys(lockOf(p).skills), ["beta"]);
});

test("verify and doctor report a hand-edited skill; update and remove refuse to replace it without --force", { timeout: 90_000 }, async () => {
  const p = project();
  assert.equal((await p.run("add", p.url)).code, 0);
  const clean = await p.run("verify");
  assert.equal(clean.code, 0);
  assert.equal(clean.stdout, "ok  alpha\nok  beta\n");

  fs.appendFileSync(path.join(p.skills, "beta/references/notes.md"), "my own note\n");
  const verify = await p.run("verify", "--json");
  assert.equal(verify.code, 1);
  const report = jsonOf<{ skills: Array<{ name: string; status: string; messages: string[] }> }>(verify);
  assert.deepEqual(report.skills.map((s) => [s.name, s.status]), [["alpha", "ok"], ["beta", "modified"]]);
  assert.match(report.skills[1]!.messages[0]!, /^its files were changed since it was installed/);

  const doctor = await p.run("doctor", "--json");
  assert.equal(doctor.code, 1);
  const diagnostics = jsonOf<{ diagnostics: Array<{ code: string; path: string; severity: string }> }>(doctor).diagnostics.filter((d) => d.code.startsWith("installed_skill"));
  assert.deepEqual(diagnostics.map((d) => [d.code, d.severity, d.path]), [["installed_skill_modified", "error", path.join(p.skills, "beta")]]);
  assert.match((diagnostics[0] as unknown as { message: string }).message, /: changed references\/notes\.md\)/, "doctor names the file changed");
  assert.deepEqual((report.skills[1] as unknown as { changes: unknown }).changes, { added: [], removed: [], changed: ["references/notes.md"] });

  writeRepoSkill(p.repo, "skills/beta", "Beta, second version.\n", { "scripts/run.sh": "#!/bin/sh\necho beta\n", "references/notes.md": "notes v2\n" });
  commitAll(p.repo, "beta v2");
  const refused = await p.run("update");
  assert.equal(refused.code, 1);
  assert.match(refused.stdout, /^refused +beta\n {4}its files were changed since it was installed \(they no longer match the digest in skills-lock\.json: changed references\/notes\.md\); use --force to replace it and lose those changes\n/m);
  assert.match(read(path.join(p.skills, "beta/references/notes.md")), /my own note/);
  const removeRefused = await p.run("remove", "beta");
  assert.equal(removeRefused.code, 1);
  assert.ok(fs.existsSync(path.join(p.skills, "beta")));

  const forced = await p.run("update", "beta", "--force");
  assert.equal(forced.code, 0, forced.stdout);
  assert.match(forced.stdout, /^updated {2}beta /);
  assert.equal(read(path.join(p.skills, "beta/references/notes.md")), "notes v2\n");
  assert.equal((await p.run("verify")).code, 0);
});

test("add --frozen installs each skill at its locked commit while the source has moved on", { timeout: 60_000 }, async () => {
  const p = project();
  const locked = git(p.repo, "rev-parse", "HEAD");
  assert.equal((await p.run("add", p.url)).code, 0);
  writeRepoSkill(p.repo, "skills/alpha", "Alpha, newer than the lock.\n");
  commitAll(p.repo, "moved on");

  // A fresh checkout of the project: the lockfile, no skills.
  fs.rmSync(p.skills, { recursive: true });
  const run = await p.run("add", "--frozen");
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, `installed  alpha  skills/alpha @ ${locked.slice(0, 12)}\ninstalled  beta  skills/beta @ ${locked.slice(0, 12)}\n`);
  assert.match(read(path.join(p.skills, "alpha/SKILL.md")), /first version/);
  assert.equal(lockOf(p).skills.alpha!.commit, locked);

  const again = await p.run("add", "--frozen");
  assert.equal(again.code, 0);
  assert.match(again.stdout, /^unchanged {2}alpha /m);

  // Files that do not match the locked digest are never placed.
  const lock = lockOf(p);
  lock.skills.alpha!.digest = `sha256:${"0".repeat(64)}`;
  fs.writeFileSync(p.lockfile, JSON.stringify(lock));
  fs.rmSync(path.join(p.skills, "alpha"), { recursive: true });
  const mismatch = await p.run("add", "--frozen", "--skill", "alpha");
  assert.equal(mismatch.code, 1);
  assert.match(mismatch.stdout, /^refused {2}alpha\n {4}its files in the source \(sha256:[0-9a-f]{64}\) do not match the locked digest \(sha256:0{64}\)\n$/);
  assert.deepEqual(entries(p.skills), ["beta"]);

  const withSource = await p.run("add", "--frozen", p.url);
  assert.equal(withSource.code, 2);
  fs.rmSync(p.lockfile);
  const noLock = await p.run("add", "--frozen");
  assert.equal(noLock.code, 2);
  assert.match(noLock.stderr, /skills-lock\.json does not exist or records no skills/);
});

test("a folder the lockfile does not record is never overwritten without --force", { timeout: 60_000 }, async () => {
  const p = project();
  fs.mkdirSync(path.join(p.skills, "alpha"), { recursive: true });
  fs.writeFileSync(path.join(p.skills, "alpha", "SKILL.md"), "---\nname: alpha\ndescription: Mine.\n---\nMine.\n");
  const run = await p.run("add", p.url);
  assert.equal(run.code, 1);
  assert.match(run.stdout, /^refused +alpha\n {4}.*alpha already exists and skills-lock\.json does not record it; use --force to replace it\n/m);
  assert.match(read(path.join(p.skills, "alpha/SKILL.md")), /Mine\./);
  assert.match(run.stdout, /^installed {2}beta /m);

  const forced = await p.run("add", p.url, "--skill", "alpha", "--force");
  assert.equal(forced.code, 0, forced.stdout);
  assert.match(forced.stdout, /^updated {2}alpha /);
  assert.match(read(path.join(p.skills, "alpha/SKILL.md")), /first version/);
});

test("a SOURCE shaped like an option, or naming a host or ref shaped like one, runs nothing and exits 2", { timeout: 60_000 }, async () => {
  const p = project();
  // A `git` first on PATH that leaves a mark: the real one is never reached either way.
  const bin = path.join(p.cwd, "bin");
  const mark = path.join(p.cwd, "git-ran");
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, "git"), `#!/bin/sh\necho "$@" >> ${JSON.stringify(mark)}\nexit 1\n`, { mode: 0o755 });
  const env = { ...p.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` };
  for (const source of [`--upload-pack=touch ${mark}`, "-oProxyCommand=x", "ssh://-oProxyCommand=x/repo", "git@-oProxyCommand=x:repo", `${p.url}#--upload-pack=x`, "owner/repo#-x"]) {
    const run = await runCli(["add", "--", source], { cwd: p.cwd, env });
    assert.equal(run.code, 2, `${source}: ${run.stderr}`);
    assert.match(run.stderr, /^error: SOURCE /m, source);
  }
  const direct = await runCli(["add", "--upload-pack=touch /tmp/x"], { cwd: p.cwd, env });
  assert.equal(direct.code, 2);
  assert.equal(fs.existsSync(mark), false, "git never ran");
  assert.equal(fs.existsSync(p.skills), false);
});

test("a local folder is a source too: recorded as local, and update picks up its edits", { timeout: 60_000 }, async () => {
  const p = project();
  const local = path.join(p.cwd, "my-skills");
  writeRepoSkill(local, "gamma", "Gamma v1.\n");
  const run = await p.run("add", "./my-skills");
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "installed  gamma  gamma\n");
  const entry = lockOf(p).skills.gamma!;
  assert.deepEqual(
    { ...entry, digest: "", computedHash: "", files: {} },
    { source: "./my-skills", sourceType: "local", skillPath: "gamma/SKILL.md", computedHash: "", digest: "", files: {}, folder: ".agents/skills" },
  );
  writeRepoSkill(local, "gamma", "Gamma v2.\n");
  const updated = await p.run("update");
  assert.equal(updated.code, 0, updated.stderr);
  assert.equal(updated.stdout, "updated  gamma  gamma\n");
  assert.match(read(path.join(p.skills, "gamma/SKILL.md")), /Gamma v2/);
  const gone = await p.run("add", "./nowhere");
  assert.equal(gone.code, 2);
  assert.match(gone.stderr, /^error: the folder .*nowhere does not exist$/m);

  // A folder that is itself a skill installs as that one skill.
  const single = writeRepoSkill(p.cwd, "elsewhere/delta");
  const one = await p.run("add", single);
  assert.equal(one.code, 0, one.stderr);
  assert.equal(one.stdout, "installed  delta\n");
  assert.equal(lockOf(p).skills.delta!.skillPath, "SKILL.md");
  const empty = path.join(p.cwd, "empty");
  fs.mkdirSync(empty);
  const none = await p.run("add", empty);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /^error: .*empty holds no skills$/m);
});

test("--global and --to install into the user's folders with a lockfile beside each", { timeout: 60_000 }, async () => {
  const p = project();
  assert.equal((await p.run("add", p.url, "--skill", "alpha", "--global")).code, 0);
  assert.ok(fs.existsSync(path.join(p.home, ".agents/skills/alpha/SKILL.md")));
  assert.equal((JSON.parse(read(path.join(p.home, ".agents/skills-lock.json"))) as LockJson).skills.alpha!.folder, "skills");
  assert.equal((await p.run("add", p.url, "--skill", "alpha", "--to", "codex")).code, 0);
  assert.ok(fs.existsSync(path.join(p.home, ".codex/skills/alpha/SKILL.md")));
  assert.ok(fs.existsSync(path.join(p.home, ".codex/skills-lock.json")));
  assert.equal((await p.run("add", p.url, "--skill", "beta", "--to", "claude")).code, 0);
  assert.ok(fs.existsSync(path.join(p.cwd, ".claude/skills/beta/SKILL.md")));
  assert.equal(lockOf(p).skills.beta!.folder, ".claude/skills");
  assert.equal(fs.existsSync(p.skills), false);
  const verify = await p.run("verify", "--global");
  assert.equal(verify.stdout, "ok  alpha\n");
  const bad = await p.run("add", p.url, "--to", "cursor");
  assert.equal(bad.code, 2);
});

test("an install killed mid-copy leaves no half skill: the folder holds whole skills and a dot-named leftover that is never discovered", { timeout: 90_000 }, async () => {
  const p = project();
  assert.equal((await p.run("add", p.url, "--skill", "alpha")).code, 0);
  const signal = path.join(p.cwd, "paused-at");
  const child = spawnCli(["add", p.url, "--skill", "beta"], { cwd: p.cwd, env: { ...p.env, SKILLPORT_TEST_PAUSE_MID_COPY: signal } });
  child.stdin!.end();
  const exited = new Promise((resolve) => child.on("close", resolve));
  await eventually(() => fs.existsSync(signal) && read(signal) !== "", "the install to pause mid-copy");
  const staging = read(signal);
  // While it holds the folder, a second run refuses at once instead of racing it for the lockfile.
  const concurrent = await p.run("remove", "alpha");
  assert.equal(concurrent.code, 1);
  assert.match(concurrent.stderr, new RegExp(`^error: another skillport run \\(process ${child.pid}\\) is changing these skills`, "m"));
  assert.ok(fs.existsSync(path.join(p.skills, "alpha")));
  child.kill("SIGKILL");
  await exited;

  assert.equal(path.dirname(staging), p.skills);
  assert.ok(fs.existsSync(staging), "the half-written copy is where the process left it");
  // Killed after its first file: half a skill (its folders made, its other files not yet written).
  assert.ok(fs.existsSync(path.join(staging, "SKILL.md")));
  assert.equal(fs.existsSync(path.join(staging, "references/notes.md")), false);
  assert.equal(fs.existsSync(path.join(staging, "scripts/run.sh")), false);
  const visible = entries(p.skills).filter((name) => !name.startsWith("."));
  assert.deepEqual(visible, ["alpha"], "only the whole skill is under its name");
  assert.match(path.basename(staging), /^\.skillport-staging-/);

  const list = await p.run("list", "--json");
  assert.equal(list.code, 0, list.stderr);
  assert.deepEqual(
    jsonOf<{ skills: Array<{ name: string }> }>(list).skills.map((s) => s.name),
    ["alpha"],
    "the leftover is not discovered as a skill",
  );

  // The next run finishes the job and clears what the dead process left.
  const again = await p.run("add", p.url, "--skill", "beta");
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(entries(p.skills), ["alpha", "beta"]);
  assert.equal((await p.run("verify")).code, 0);
});

test("--json gives every outcome with its commit, digest and path", { timeout: 60_000 }, async () => {
  const p = project();
  const run = await p.run("add", p.url, "--skill", "alpha", "--json");
  assert.equal(run.code, 0);
  const report = jsonOf<{ lockfile: string; skills: Array<Record<string, unknown>> }>(run);
  assert.equal(report.lockfile, p.lockfile);
  assert.deepEqual(Object.keys(report.skills[0]!).sort(), ["commit", "digest", "dir", "folder", "messages", "name", "path", "status"]);
  assert.equal(report.skills[0]!.status, "installed");
  assert.equal(report.skills[0]!.digest, lockOf(p).skills.alpha!.digest);
});

test("a lockfile skillport cannot read is a usage error naming it, and is left as it was", { timeout: 60_000 }, async () => {
  const p = project();
  fs.writeFileSync(p.lockfile, "{ not json");
  for (const args of [["verify"], ["update"], ["remove", "alpha"], ["add", p.url]]) {
    const run = await p.run(...args);
    assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
    assert.match(run.stderr, /^error: .*skills-lock\.json is not a skills lockfile skillport can read: /m);
  }
  assert.equal(read(p.lockfile), "{ not json");
  const doctor = await p.run("doctor", "--json");
  assert.equal(doctor.code, 1);
  assert.ok(jsonOf<{ diagnostics: Array<{ code: string }> }>(doctor).diagnostics.some((d) => d.code === "skills_lock_unreadable"));
});

test("a project folder that is a link out of the project gets nothing: add, add --frozen, update and remove exit 2 and write or delete nothing there", { timeout: 90_000 }, async () => {
  const p = project();
  assert.equal((await p.run("add", p.url)).code, 0);
  const lockText = read(p.lockfile);
  // A cloned repository commits `.agents` as a link to a folder outside it.
  const outside = path.join(path.dirname(p.cwd), "outside");
  fs.mkdirSync(path.join(outside, "skills", "alpha"), { recursive: true });
  fs.writeFileSync(path.join(outside, "skills", "alpha", "keep.txt"), "mine\n");
  fs.rmSync(path.join(p.cwd, ".agents"), { recursive: true });
  fs.symlinkSync("../outside", path.join(p.cwd, ".agents"));
  for (const args of [["add", p.url], ["add", "--frozen"], ["update", "--force"], ["remove", "alpha", "--force"]]) {
    const run = await p.run(...args);
    assert.equal(run.code, 2, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
    assert.match(run.stderr, /\.agents\/skills is reached through a link leading outside the project/);
  }
  assert.deepEqual(entries(path.join(outside, "skills")), ["alpha"]);
  assert.deepEqual(entries(path.join(outside, "skills", "alpha")), ["keep.txt"]);
  assert.equal(read(p.lockfile), lockText);
});

test("an installed skill folder swapped for a link is removed as a link: what it points at is untouched", { timeout: 60_000 }, async () => {
  const p = project();
  assert.equal((await p.run("add", p.url)).code, 0);
  const victim = path.join(path.dirname(p.cwd), "victim");
  fs.mkdirSync(victim);
  fs.writeFileSync(path.join(victim, "keep.txt"), "mine\n");
  fs.rmSync(path.join(p.skills, "alpha"), { recursive: true });
  fs.symlinkSync(victim, path.join(p.skills, "alpha"));
  assert.equal((await p.run("remove", "alpha")).code, 1, "refused without --force: it no longer matches its digest");
  assert.equal((await p.run("update", "alpha", "--force")).code, 0);
  assert.equal(fs.lstatSync(path.join(p.skills, "alpha")).isDirectory(), true);
  fs.rmSync(path.join(p.skills, "alpha"), { recursive: true });
  fs.symlinkSync(victim, path.join(p.skills, "alpha"));
  assert.equal((await p.run("remove", "alpha", "--force")).code, 0);
  assert.equal(fs.existsSync(path.join(p.skills, "alpha")), false);
  assert.deepEqual(entries(victim), ["keep.txt"]);
  const slashed = await p.run("remove", "../victim", "--force");
  assert.equal(slashed.code, 1);
  assert.deepEqual(entries(victim), ["keep.txt"]);
});

test("a committed lockfile whose sourceUrl git would run as a command (ext::, fd::) is refused before git runs", { timeout: 60_000 }, async () => {
  const p = project();
  assert.equal((await p.run("add", p.url)).code, 0);
  const mark = path.join(path.dirname(p.cwd), "ran");
  const good = read(p.lockfile);
  for (const url of [`ext::sh -c touch% ${mark}`, "fd::17", "ssh://-oProxyCommand=x/r"]) {
    const lock = JSON.parse(good) as LockJson;
    lock.skills.alpha!.sourceUrl = url;
    fs.writeFileSync(p.lockfile, JSON.stringify(lock));
    // Even where the user's git allows every transport.
    const allowAll = { ...p.env, GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "protocol.allow", GIT_CONFIG_VALUE_0: "always" };
    for (const args of [["update"], ["add", "--frozen"]]) {
      const run = await runCli(args, { cwd: p.cwd, env: allowAll });
      assert.equal(run.code, 2, `${url} ${args.join(" ")}: ${run.stdout}${run.stderr}`);
      assert.match(run.stderr, /sourceUrl must be/);
    }
  }
  assert.equal(fs.existsSync(mark), false);
});

test("a local source is recorded relative to the lockfile's folder, so the lockfile works in a clone elsewhere", { timeout: 60_000 }, async () => {
  const p = project();
  writeRepoSkill(path.join(p.cwd, "vendor"), "gamma");
  const sub = path.join(p.cwd, "docs");
  fs.mkdirSync(sub);
  const run = await runCli(["add", "../vendor"], { cwd: sub, env: p.env });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(lockOf(p).skills.gamma!.source, "./vendor", "relative to the project root, not to where add ran");
  // The whole project moved: the lockfile's relative source still finds its folder.
  const moved = path.join(path.dirname(p.cwd), "moved");
  fs.renameSync(p.cwd, moved);
  fs.rmSync(path.join(moved, ".agents"), { recursive: true });
  const frozen = await runCli(["add", "--frozen"], { cwd: moved, env: p.env });
  assert.equal(frozen.code, 0, frozen.stdout + frozen.stderr);
  assert.ok(fs.existsSync(path.join(moved, ".agents/skills/gamma/SKILL.md")));
});

test("a committed lockfile naming a local folder outside the project is refused for it; a file:// source it names is said before it is fetched", { timeout: 60_000 }, async () => {
  const p = project();
  assert.equal((await p.run("add", p.url, "--skill", "alpha")).code, 0);
  const outside = writeRepoSkill(path.join(p.home, ".claude", "skills"), "deploy", "Deploy.\n", { "creds.json": "secret\n" });
  const lock = lockOf(p);
  lock.skills.deploy = { source: path.relative(p.cwd, path.dirname(outside)), sourceType: "local", skillPath: "deploy/SKILL.md", computedHash: "", digest: `sha256:${"0".repeat(64)}`, folder: ".agents/skills" };
  fs.writeFileSync(p.lockfile, JSON.stringify(lock, null, 2));
  for (const args of [["update"], ["add", "--frozen"]]) {
    const run = await p.run(...args);
    assert.equal(run.code, 1, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
    assert.match(run.stdout, /^refused +deploy\n {4}skills-lock\.json names the local folder \.\.\/.*\.claude\/skills .*, outside the project; a project's lockfile may only name local folders inside it/m);
    assert.match(run.stderr, /^skills-lock\.json names the local repository file:\/\/.* for alpha; fetching it\nfetching file:\/\//m);
    assert.equal(fs.existsSync(path.join(p.skills, "deploy")), false, "nothing copied from outside");
  }
  // A link inside the project that leads outside counts as outside.
  fs.symlinkSync(path.dirname(outside), path.join(p.cwd, "inside"));
  lock.skills.deploy.source = "./inside";
  fs.writeFileSync(p.lockfile, JSON.stringify(lock, null, 2));
  const linked = await p.run("update", "deploy");
  assert.equal(linked.code, 1);
  assert.match(linked.stdout, /outside the project/);
  assert.equal(fs.existsSync(path.join(p.skills, "deploy")), false);
});
