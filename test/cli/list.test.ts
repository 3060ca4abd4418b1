import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { writeSkill } from "../support/tmp.js";
import { jsonOf, runCli } from "./cli-process.js";
import { cliTree } from "./skill-fixtures.js";

const tree = cliTree();
const opts = { cwd: tree.cwd, env: tree.env };

interface ListJson {
  count: number;
  toolAvailable: boolean;
  skills: Array<{ name: string; description: string; origin: string; label: string; dir: string; modelInvocable: boolean; offeredToModel: boolean; problem: string | null; extension: unknown; audit: { findings: Array<{ rule: string }> } & Record<string, unknown> }>;
}

test("list prints each skill under its group, marking hidden and unavailable ones", async () => {
  const run = await runCli(["list", "--root", tree.root], opts);
  assert.equal(run.code, 0, run.stderr);
  const lines = run.stdout.trimEnd().split("\n");
  assert.match(lines[0]!, /^Global/);
  assert.deepEqual(
    lines.slice(1).map((l) => l.trim().split(/\s+/)[0]),
    ["alpha", "beta", "gated", "hidden"],
  );
  assert.match(run.stdout, /hidden +\[hidden from the model\] Only people see this one\./);
  assert.match(run.stdout, /gated +\[unavailable: missing .*SKILLPORT_TEST_NEVER_SET.*\] Needs a variable\./);
  // alpha pre-approves Bash: the audit's warning, and still listed and served.
  assert.match(run.stdout, /alpha +\[audit warnings: shell-preapproved\] Alpha does the first thing\./);
});

test("list --json has one entry per skill with origin, directory and usability", async () => {
  const run = await runCli(["list", "--root", tree.root, "--json"], opts);
  assert.equal(run.code, 0);
  const list = jsonOf<ListJson>(run);
  assert.equal(list.count, 4);
  assert.equal(list.toolAvailable, true);
  const alpha = list.skills.find((s) => s.name === "alpha")!;
  assert.deepEqual(
    { ...alpha, label: typeof alpha.label, audit: { ...alpha.audit, findings: alpha.audit.findings.map((f) => f.rule) } },
    {
      name: "alpha",
      description: "Alpha does the first thing.",
      origin: "global",
      label: "string",
      dir: tree.alphaDir,
      modelInvocable: true,
      offeredToModel: true,
      userInvocable: true,
      argumentHint: null,
      arguments: [],
      takesArguments: false,
      whenToUse: null,
      problem: null,
      extension: { served: true, reason: null, leftOut: [] },
      audit: { mode: "block", verdict: "warn", blocking: null, findings: ["shell-preapproved"], accepted: [], packageJudged: false },
    },
  );
  const hidden = list.skills.find((s) => s.name === "hidden")!;
  assert.deepEqual([hidden.modelInvocable, hidden.offeredToModel], [false, false]);
  const gated = list.skills.find((s) => s.name === "gated")!;
  assert.match(gated.problem ?? "", /SKILLPORT_TEST_NEVER_SET/);
  assert.deepEqual([gated.modelInvocable, gated.offeredToModel], [true, false], "listed for people, not offered to the model");
  assert.equal(gated.extension, null, "a skill nobody serves here has no extension verdict");
});

test("repeated --root keeps the order given: the first root wins a name collision", async () => {
  const first = jsonOf<ListJson>(await runCli(["list", "--root", tree.root, "--root", tree.shadowRoot, "--json"], opts));
  assert.equal(first.skills.find((s) => s.name === "alpha")!.description, "Alpha does the first thing.");
  const second = jsonOf<ListJson>(await runCli(["list", "--root", tree.shadowRoot, "--root", tree.root, "--json"], opts));
  assert.equal(second.skills.find((s) => s.name === "alpha")!.description, "A second alpha that loses.");
});

test("an empty root lists nothing on stdout and says why on stderr, exit 0", async () => {
  const empty = path.join(tree.cwd, "empty");
  fs.mkdirSync(empty, { recursive: true });
  const run = await runCli(["list", "--root", empty], opts);
  assert.equal(run.code, 0);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, /No skills found/);
});

test("a --root that does not exist is a path error (exit 2) naming it", async () => {
  const run = await runCli(["list", "--root", "nowhere"], opts);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /--root nowhere: directory does not exist/);
});

test("without --root the default project sources under the working directory are read", async () => {
  const cwd = path.join(tree.cwd, "project-a");
  writeSkill(path.join(cwd, ".agents", "skills"), "local-skill", "name: local-skill\ndescription: Lives in the project.");
  const list = jsonOf<ListJson>(await runCli(["list", "--json"], { cwd, env: tree.env }));
  assert.deepEqual(list.skills.map((s) => [s.name, s.origin]), [["local-skill", "project"]]);
});

test("./skillport.config.json is picked up; agents in it narrow what --agent sees", async () => {
  // A folder of the project whose root holds the skills: a config found implicitly names only
  // folders inside the project.
  const cwd = path.join(tree.cwd, "configured");
  fs.mkdirSync(cwd);
  fs.mkdirSync(path.join(tree.cwd, ".git"), { recursive: true });
  fs.writeFileSync(
    path.join(cwd, "skillport.config.json"),
    JSON.stringify({ sources: [tree.root], agents: { reviewer: { allowedSkills: ["beta"] }, nobody: { allowedSkills: [] } } }),
  );
  const all = jsonOf<ListJson>(await runCli(["list", "--json"], { cwd, env: tree.env }));
  assert.equal(all.count, 4);
  const reviewer = jsonOf<ListJson>(await runCli(["list", "--json", "--agent", "reviewer"], { cwd, env: tree.env }));
  assert.deepEqual(reviewer.skills.map((s) => s.name), ["beta"]);
  const nobody = jsonOf<ListJson>(await runCli(["list", "--json", "--agent", "nobody"], { cwd, env: tree.env }));
  assert.equal(nobody.count, 0);
});

test("an unknown --agent works but warns on stderr, since it is almost always a typo", async () => {
  const run = await runCli(["list", "--root", tree.cleanRoot, "--agent", "ghost"], opts);
  assert.equal(run.code, 0);
  assert.match(run.stderr, /agent 'ghost' is not defined/);
  assert.match(run.stdout, /only-one/);
});

test("a broken config file is a usage error naming the file and the key", async () => {
  const config = path.join(tree.cwd, "bad.config.json");
  fs.writeFileSync(config, JSON.stringify({ agents: { coder: { alowedSkills: ["x"] } } }));
  const run = await runCli(["list", "--config", config], opts);
  assert.equal(run.code, 2);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, new RegExp(`${config.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: agents\\.coder\\.alowedSkills: unknown key`));
  const missing = await runCli(["list", "--config", "absent.json"], opts);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /absent\.json: file does not exist/);
});
