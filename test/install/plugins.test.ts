/**
 * Plugins and where skills hide (SPEC §10.1, §10): Claude Code marketplaces (the shape of
 * anthropics/skills' `.claude-plugin/marketplace.json`, and plugins in folders of their own
 * with `plugin.json`), Codex plugins (`.codex-plugin/plugin.json`, `.agents/plugins/marketplace.json`),
 * `--plugin`, the dot-folders of a `skills/` folder (openai/skills keeps its skills in
 * `skills/.curated`, `.system`, `.experimental`), the dot-folders named when nothing is found,
 * and `--path` for local and git sources.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { folderTarget, installSkills, listSourceSkills, readSkillsLock } from "../../src/index.js";
import { runCli, sandbox } from "../cli/cli-process.js";
import { commitAll, fileUrl, GIT_ENV, initRepo, writeRepoSkill } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";

const env = { ...process.env, ...GIT_ENV };

function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(value, null, "\t")}\n`);
}

/** A repository shaped like anthropics/skills: skills/ at the root, a marketplace naming them per plugin. */
function claudeMarketplace(): string {
  const root = path.join(tempDir("skillport-plugins-"), "repo");
  for (const name of ["xlsx", "docx", "pdf", "algorithmic-art", "skill-creator", "claude-api"]) writeRepoSkill(root, `skills/${name}`);
  writeRepoSkill(root, "plugins/reviewer/skills/review-code");
  writeJson(path.join(root, ".claude-plugin", "marketplace.json"), {
    name: "anthropic-agent-skills",
    owner: { name: "Someone", email: "someone@example.com" },
    metadata: { description: "Example skills", version: "1.0.0" },
    plugins: [
      { name: "document-skills", description: "Document processing", source: "./", strict: false, skills: ["./skills/xlsx", "./skills/docx", "./skills/pdf"] },
      { name: "example-skills", description: "Examples", source: "./", strict: false, skills: ["./skills/algorithmic-art", "./skills/skill-creator"] },
      { name: "claude-api", description: "Claude API", source: "./", strict: false, skills: ["./skills/claude-api"] },
      // A plugin in a folder of its own: its skills/ folder by default, its plugin.json read for the description.
      { name: "reviewer", source: "./plugins/reviewer" },
      // A plugin whose files are in another repository.
      { name: "remote", source: { source: "github", repo: "someone/remote-plugin" } },
    ],
  });
  writeJson(path.join(root, "plugins", "reviewer", ".claude-plugin", "plugin.json"), { name: "reviewer", description: "Reviews code", version: "0.1.0" });
  return root;
}

test("add --list groups a Claude Code marketplace's skills by plugin; a plugin elsewhere is said to be", { timeout: 60_000 }, async () => {
  const root = claudeMarketplace();
  const listing = await listSourceSkills(root, {});
  assert.deepEqual(
    listing.plugins!.map((p) => [p.name, p.kind, p.skills, p.elsewhere ?? null]),
    [
      ["document-skills", "claude", ["docx", "pdf", "xlsx"], null],
      ["example-skills", "claude", ["algorithmic-art", "skill-creator"], null],
      ["claude-api", "claude", ["claude-api"], null],
      ["reviewer", "claude", ["review-code"], null],
      ["remote", "claude", [], "someone/remote-plugin"],
    ],
  );
  assert.equal(listing.plugins![3]!.description, "Reviews code");

  const { cwd, env: cliEnv } = sandbox();
  const run = await runCli(["add", root, "--list"], { cwd, env: cliEnv });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /\nplugins:\ndocument-skills {2}\[claude\] {2}docx, pdf, xlsx\n {4}Document processing\n/);
  assert.match(run.stdout, /^remote {2}\[claude\] {2}not in this source \(someone\/remote-plugin\)$/m);
});

test("add --plugin NAME installs that plugin's skills only; an unknown plugin is a usage error naming those there are", { timeout: 60_000 }, async () => {
  const root = claudeMarketplace();
  const target = folderTarget(path.join(tempDir("skillport-project-"), "skills"));
  const report = await installSkills(root, { target, plugin: "document-skills" });
  assert.deepEqual(report.skills.map((s) => [s.name, s.status, s.path]), [["docx", "installed", "skills/docx"], ["pdf", "installed", "skills/pdf"], ["xlsx", "installed", "skills/xlsx"]]);
  assert.deepEqual(fs.readdirSync(target.dir).sort(), ["docx", "pdf", "xlsx"]);
  assert.deepEqual([...readSkillsLock(target.lockfile).get("skills")!.keys()], ["docx", "pdf", "xlsx"]);

  const { cwd, env: cliEnv } = sandbox();
  fs.mkdirSync(path.join(cwd, ".git"));
  const unknown = await runCli(["add", root, "--plugin", "nope"], { cwd, env: cliEnv });
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /holds no plugin named nope \(it holds: document-skills, example-skills, claude-api, reviewer, remote\)/);
  const remote = await runCli(["add", root, "--plugin", "remote"], { cwd, env: cliEnv });
  assert.equal(remote.code, 2);
  assert.match(remote.stderr, /plugin remote is not in this source \(its source is someone\/remote-plugin\)/);
  const own = await runCli(["add", root, "--plugin", "reviewer"], { cwd, env: cliEnv });
  assert.equal(own.code, 0, own.stderr);
  assert.match(own.stdout, /^installed {2}review-code {2}plugins\/reviewer\/skills\/review-code$/m);
});

test("a Codex plugin (.codex-plugin/plugin.json, its skills path) and a Codex marketplace are read likewise", { timeout: 60_000 }, async () => {
  const lone = path.join(tempDir("skillport-plugins-"), "lone");
  writeRepoSkill(lone, "skills/learn-core");
  writeRepoSkill(lone, "extra/not-in-plugin");
  writeJson(path.join(lone, ".codex-plugin", "plugin.json"), { name: "core-learning", skills: "./skills/", interface: { displayName: "Core learning" } });
  const listing = await listSourceSkills(lone, {});
  assert.deepEqual(listing.plugins!.map((p) => [p.name, p.kind, p.skills]), [["core-learning", "codex", ["learn-core"]]]);
  const target = folderTarget(path.join(tempDir("skillport-project-"), "skills"));
  assert.deepEqual((await installSkills(lone, { target, plugin: "core-learning" })).skills.map((s) => s.name), ["learn-core"]);

  const market = path.join(tempDir("skillport-plugins-"), "market");
  writeRepoSkill(market, "plugins/core-learning/skills/learn-core");
  writeRepoSkill(market, "plugins/other/skills/other-skill");
  writeJson(path.join(market, ".agents", "plugins", "marketplace.json"), { name: "local", plugins: [{ name: "core-learning", source: { source: "local", path: "./plugins/core-learning" } }, { name: "other", source: { source: "local", path: "./plugins/other" } }] });
  writeJson(path.join(market, "plugins", "core-learning", ".codex-plugin", "plugin.json"), { name: "core-learning", description: "Learning", skills: "./skills/" });
  const marketListing = await listSourceSkills(market, {});
  assert.deepEqual(marketListing.plugins!.map((p) => [p.name, p.kind, p.skills, p.description]), [["core-learning", "codex", ["learn-core"], "Learning"], ["other", "codex", ["other-skill"], null]]);
});

test("a marketplace path leading outside the source is left out with a note, and a broken marketplace.json is a note, not a failure", { timeout: 60_000 }, async () => {
  const root = path.join(tempDir("skillport-plugins-"), "repo");
  writeRepoSkill(root, "skills/alpha");
  writeJson(path.join(root, ".claude-plugin", "marketplace.json"), { plugins: [{ name: "out", source: "../../elsewhere" }, { name: "ok", source: "./", skills: ["./skills/alpha", "../../etc"] }] });
  const listing = await listSourceSkills(root, {});
  assert.deepEqual(listing.plugins!.map((p) => [p.name, p.skills]), [["ok", ["alpha"]]]);
  assert.equal(listing.notes!.length, 2);
  assert.ok(listing.notes!.every((n) => /leads outside the source/.test(n)));
  fs.writeFileSync(path.join(root, ".claude-plugin", "marketplace.json"), "{ not json");
  const broken = await listSourceSkills(root, {});
  assert.equal(broken.plugins, undefined);
  assert.match(broken.notes![0]!, /marketplace\.json is not JSON/);
  assert.deepEqual(broken.skills.map((s) => s.name), ["alpha"]);
});

/** A repository shaped like openai/skills: every skill in a dot-folder of skills/. */
function openaiShaped(): string {
  const root = path.join(tempDir("skillport-openai-"), "repo");
  writeRepoSkill(root, "skills/.curated/gh-address-comments");
  writeRepoSkill(root, "skills/.curated/notion-knowledge-capture");
  writeRepoSkill(root, "skills/.system/skill-creator");
  writeRepoSkill(root, "skills/.experimental/create-plan");
  return root;
}

test("the dot-folders directly inside skills/ are searched when installing (openai/skills' .curated, .system, .experimental)", { timeout: 60_000 }, async () => {
  const repo = initRepo(openaiShaped());
  const commit = commitAll(repo, "skills in dot-folders");
  const listing = await listSourceSkills(fileUrl(repo), { env });
  assert.deepEqual(listing.skills.map((s) => [s.name, s.path]).sort(), [
    ["create-plan", "skills/.experimental/create-plan"],
    ["gh-address-comments", "skills/.curated/gh-address-comments"],
    ["notion-knowledge-capture", "skills/.curated/notion-knowledge-capture"],
    ["skill-creator", "skills/.system/skill-creator"],
  ]);
  const target = folderTarget(path.join(tempDir("skillport-project-"), "skills"));
  const report = await installSkills(fileUrl(repo), { target, env, skills: ["create-plan"] });
  assert.deepEqual(report.skills.map((s) => [s.name, s.status, s.commit]), [["create-plan", "installed", commit]]);
  assert.equal(readSkillsLock(target.lockfile).get("skills")!.get("create-plan")!.path, "skills/.experimental/create-plan");
});

test("a source with no skills says which dot-folders were not searched, and --path reaches into one", { timeout: 60_000 }, async () => {
  const root = path.join(tempDir("skillport-hidden-"), "repo");
  writeRepoSkill(root, ".claude/skills/hidden-one");
  writeRepoSkill(root, "docs/.drafts/hidden-two");
  fs.mkdirSync(path.join(root, ".git"));
  const { cwd, env: cliEnv } = sandbox();
  fs.mkdirSync(path.join(cwd, ".git"));
  const add = await runCli(["add", root], { cwd, env: cliEnv });
  assert.equal(add.code, 1);
  assert.match(add.stderr, /holds no skills; these dot-folders were not searched \(name one with --path\): \.claude, docs\/\.drafts/);
  const list = await runCli(["add", root, "--list"], { cwd, env: cliEnv });
  assert.match(list.stderr, /these dot-folders were not searched \(name one with --path\): \.claude, docs\/\.drafts/);
  assert.doesNotMatch(list.stderr, /\.git\b/);

  const reached = await runCli(["add", root, "--path", ".claude/skills", "--json"], { cwd, env: cliEnv });
  assert.equal(reached.code, 0, reached.stderr);
  assert.deepEqual((JSON.parse(reached.stdout) as { skills: Array<{ name: string; path: string }> }).skills.map((s) => [s.name, s.path]), [["hidden-one", ".claude/skills/hidden-one"]]);
  const escape = await runCli(["add", root, "--path", "../x"], { cwd, env: cliEnv });
  assert.equal(escape.code, 2);
  assert.match(escape.stderr, /--path "\.\.\/x" must be a relative folder inside the source/);
});

test("--path narrows a git source too, below the path the SOURCE names itself", { timeout: 60_000 }, async () => {
  const repo = initRepo(path.join(tempDir("skillport-path-"), "repo"));
  writeRepoSkill(repo, "packs/a/one");
  writeRepoSkill(repo, "packs/b/two");
  commitAll(repo, "two packs");
  const listing = await listSourceSkills(fileUrl(repo), { env, path: "packs/b" });
  assert.deepEqual(listing.skills.map((s) => [s.name, s.path]), [["two", "packs/b/two"]]);
  await assert.rejects(listSourceSkills(fileUrl(repo), { env, path: "packs/c" }), /the source has no folder "packs\/c"/);
});
