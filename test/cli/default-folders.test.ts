/**
 * The default folders (SPEC §2) as the real CLI reads them: a child process whose HOME and
 * working directory are temp folders, so the machine's own skills never take part.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { realTempDir, writeSkill } from "../support/tmp.js";
import { jsonOf, runCli } from "./cli-process.js";

interface ListJson {
  count: number;
  broken: number;
  skills: Array<{ name: string; description: string; origin: string; dir: string }>;
}

/** A repository holding `apps/web`, a HOME beside it, and a folder above the repository. */
function layout() {
  const top = realTempDir("skillport-default-folders");
  const repo = path.join(top, "repo");
  const web = path.join(repo, "apps", "web");
  const home = path.join(top, "home");
  fs.mkdirSync(path.join(repo, ".git"), { recursive: true });
  fs.mkdirSync(web, { recursive: true });
  fs.mkdirSync(home);
  return { top, repo, web, home, env: { HOME: home } };
}

const skill = (root: string, name: string, description: string) => writeSkill(root, name, `name: ${name}\ndescription: ${description}`);

test("without --root, list reads every default folder: project folders up to the repository root, then the four global ones, openskills' .agent/skills included", async () => {
  const { top, repo, web, home, env } = layout();
  skill(path.join(web, ".agents", "skills"), "in-web", "Nearest project folder.");
  skill(path.join(repo, "apps", ".claude", "skills"), "in-apps", "A parent inside the repository.");
  skill(path.join(repo, ".claude", "skills"), "in-root", "The repository root.");
  skill(path.join(top, ".agents", "skills"), "above-root", "Above the repository: never searched.");
  skill(path.join(home, ".agents", "skills"), "g-agents", "Global, .agents.");
  skill(path.join(home, ".claude", "skills"), "g-claude", "Global, .claude.");
  skill(path.join(home, ".codex", "skills"), "g-codex", "Global, .codex.");
  skill(path.join(web, ".agent", "skills"), "in-web-universal", "Where openskills install --universal writes.");
  skill(path.join(home, ".agent", "skills"), "g-agent", "Global, openskills' .agent.");

  const run = await runCli(["list", "--json"], { cwd: web, env });
  assert.equal(run.code, 0, run.stderr);
  const list = jsonOf<ListJson>(run);
  assert.deepEqual(
    list.skills.map((s) => [s.name, s.origin]),
    [
      ["in-web", "project"],
      ["in-web-universal", "project"],
      ["in-apps", "project"],
      ["in-root", "project"],
      ["g-agents", "global"],
      ["g-claude", "global"],
      ["g-codex", "global"],
      ["g-agent", "global"],
    ],
  );
});

test("the nearest project folder wins a name collision, and the loser is reported as shadowed", async () => {
  const { repo, web, env } = layout();
  skill(path.join(web, ".claude", "skills"), "deploy", "The app's own deploy.");
  skill(path.join(repo, ".agents", "skills"), "deploy", "The repository's deploy.");
  const list = jsonOf<ListJson>(await runCli(["list", "--json"], { cwd: web, env }));
  assert.deepEqual(list.skills.map((s) => s.description), ["The app's own deploy."]);
  const doctor = await runCli(["doctor"], { cwd: web, env });
  assert.match(doctor.stdout, /\[shadowed\]/);
});

test("No skills found names every folder searched, nearest first, and which are missing", async () => {
  const { repo, web, home, env } = layout();
  fs.mkdirSync(path.join(repo, ".agents", "skills"), { recursive: true });
  const run = await runCli(["list"], { cwd: web, env });
  assert.equal(run.code, 0);
  assert.equal(run.stdout, "");
  const searched = [
    path.join(web, ".agents", "skills"),
    path.join(web, ".claude", "skills"),
    path.join(web, ".agent", "skills"),
    path.join(repo, "apps", ".agents", "skills"),
    path.join(repo, "apps", ".claude", "skills"),
    path.join(repo, "apps", ".agent", "skills"),
    path.join(repo, ".agents", "skills"),
    path.join(repo, ".claude", "skills"),
    path.join(repo, ".agent", "skills"),
    path.join(home, ".agents", "skills"),
    path.join(home, ".claude", "skills"),
    path.join(home, ".codex", "skills"),
    path.join(home, ".agent", "skills"),
  ];
  const lines = run.stderr.split("\n");
  const start = lines.findIndex((line) => line.startsWith("No skills found"));
  assert.ok(start >= 0, run.stderr);
  const named = lines.slice(start + 1, start + 1 + searched.length).map((line) => line.trim().replace(/\s+\(missing\)$/, ""));
  assert.deepEqual(named, searched);
  assert.match(lines[start + 7]!, /\.agents\/skills$/, "the folder that exists is not marked missing");
  assert.match(lines[start + 1]!, /\(missing\)$/);
});

test("No skills found names the --root folders when those were searched", async () => {
  const { top, env } = layout();
  const empty = path.join(top, "empty-skills");
  fs.mkdirSync(empty);
  const run = await runCli(["list", "--root", empty], { cwd: top, env });
  assert.match(run.stderr, new RegExp(`No skills found\\. Folders searched:\\n  ${empty.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\n`));
});

test("list says on stderr how many skills were left out as broken and points at doctor", async () => {
  const { top, env } = layout();
  const root = path.join(top, "skills");
  skill(root, "fine", "Loads.");
  fs.mkdirSync(path.join(root, "torn"));
  fs.writeFileSync(path.join(root, "torn", "SKILL.md"), "---\nname: torn\ndescription: [unclosed\n---\n");
  fs.mkdirSync(path.join(root, "bare"));
  fs.writeFileSync(path.join(root, "bare", "SKILL.md"), "no frontmatter\n");

  const run = await runCli(["list", "--root", root], { cwd: top, env });
  assert.equal(run.code, 0);
  assert.match(run.stdout, /fine/);
  assert.match(run.stderr, /2 skills were left out because they do not load; run `skillport doctor` to see why/);
  const json = await runCli(["list", "--root", root, "--json"], { cwd: top, env });
  assert.equal(jsonOf<ListJson>(json).broken, 2);

  fs.rmSync(path.join(root, "bare"), { recursive: true });
  const one = await runCli(["list", "--root", root], { cwd: top, env });
  assert.match(one.stderr, /1 skill was left out because it does not load/);
  fs.rmSync(path.join(root, "torn"), { recursive: true });
  const none = await runCli(["list", "--root", root], { cwd: top, env });
  assert.doesNotMatch(none.stderr, /left out/);
});

test("a project folder that is itself a link out of the repository is refused: its skills are not loaded and read prints nothing from outside", async () => {
  const { top, repo, env } = layout();
  const outside = skill(path.join(top, "outside"), "other-skill", "Kept outside the repository.");
  fs.writeFileSync(path.join(outside, "notes.txt"), "outside-notes-3b9e\n");
  fs.mkdirSync(path.join(repo, ".claude"));
  fs.symlinkSync("../../outside", path.join(repo, ".claude", "skills"));

  const read = await runCli(["read", "other-skill", "notes.txt"], { cwd: repo, env });
  assert.equal(read.code, 1, read.stderr);
  assert.ok(!read.stdout.includes("outside-notes-3b9e") && !read.stderr.includes("outside-notes-3b9e"), read.stdout);
  const list = await runCli(["list", "--json"], { cwd: repo, env });
  assert.deepEqual(jsonOf<ListJson>(list).skills, []);
  const doctor = await runCli(["doctor", "--json"], { cwd: repo, env });
  const report = JSON.stringify(jsonOf(doctor));
  assert.match(report, /symlink_external/);
  assert.ok(!report.includes(path.join(top, "outside")), `the warning does not say where the link leads: ${report}`);
});
