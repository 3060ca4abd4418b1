import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { CORPUS, writeSkill } from "../support/tmp.js";
import { jsonOf, runCli, spawnCli } from "./cli-process.js";
import { cliTree } from "./skill-fixtures.js";

const tree = cliTree();
const opts = { cwd: tree.cwd, env: tree.env };

test("prompt prints the XML catalog of model-visible skills", async () => {
  const run = await runCli(["prompt", "--root", tree.root], opts);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^<available_skills>/);
  assert.match(run.stdout, /<name>alpha<\/name>/);
  assert.doesNotMatch(run.stdout, /<name>hidden<\/name>/);
  assert.ok(run.stdout.endsWith("\n"));
});

test("prompt --format markdown", async () => {
  const run = await runCli(["prompt", "--root", tree.root, "--format", "markdown"], opts);
  assert.equal(run.code, 0);
  assert.doesNotMatch(run.stdout, /<available_skills>/);
  assert.match(run.stdout, /alpha/);
});

test("prompt --budget keeps the catalog within the budget", async () => {
  const full = await runCli(["prompt", "--root", CORPUS], opts);
  const budget = 1500;
  assert.ok([...full.stdout.trimEnd()].length > budget);
  const cut = await runCli(["prompt", "--root", CORPUS, "--budget", String(budget), "--json"], opts);
  assert.equal(cut.code, 0);
  const text = jsonOf<{ text: string }>(cut).text;
  assert.ok(text.length > 0 && [...text].length <= budget, `${[...text].length} chars`);
});

test("prompt --budget too small for one skill says so, not that there are no skills", async () => {
  const run = await runCli(["prompt", "--root", CORPUS, "--budget", "60"], opts);
  assert.equal(run.code, 0);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, /budget of 60 characters leaves no room/);
  assert.doesNotMatch(run.stderr, /No skills found/);
});

test("prompt --skills-ref prints the reference to-prompt output with SKILL.md locations", async () => {
  const run = await runCli(["prompt", "--root", tree.cleanRoot, "--skills-ref"], opts);
  assert.equal(run.code, 0);
  assert.equal(
    run.stdout,
    [
      "<available_skills>",
      "<skill>",
      "<name>",
      "only-one",
      "</name>",
      "<description>",
      "The single clean skill.",
      "</description>",
      "<location>",
      path.join(tree.cleanRoot, "only-one", "SKILL.md"),
      "</location>",
      "</skill>",
      "</available_skills>",
      "",
    ].join("\n"),
  );
});

test("prompt --json wraps the text with its format and skill count", async () => {
  const run = await runCli(["prompt", "--root", tree.root, "--json"], opts);
  const json = jsonOf<{ format: string; count: number; text: string }>(run);
  assert.equal(json.format, "xml");
  assert.equal(json.count, 2, "alpha and beta: hidden is model-hidden, gated's variable is unset, broken does not load");
  assert.match(json.text, /<available_skills>/);
  assert.doesNotMatch(json.text, /gated/);
});

test("an empty catalog prints nothing on stdout", async () => {
  const run = await runCli(["prompt", "--root", path.join(tree.cwd, "home")], opts);
  assert.equal(run.code, 0);
  assert.equal(run.stdout, "");
});

test("bad option values are usage errors (exit 2)", async () => {
  const format = await runCli(["prompt", "--root", tree.root, "--format", "yaml"], opts);
  assert.equal(format.code, 2);
  assert.match(format.stderr, /Allowed choices are xml, markdown/);
  const budget = await runCli(["prompt", "--root", tree.root, "--budget", "lots"], opts);
  assert.equal(budget.code, 2);
  assert.match(budget.stderr, /expected a positive whole number/);
});

/** A config whose `noskill` agent and `toolless` project withhold the `skill` tool (SPEC §3.1). */
function toolOffConfig(): string {
  const file = path.join(tree.cwd, "tool-off.config.json");
  fs.writeFileSync(
    file,
    JSON.stringify({ agents: { noskill: { deniedTools: ["skill"] } }, projects: { toolless: { toolWhitelist: ["read"] } } }),
  );
  return file;
}

test("with the skill tool off for the scope, prompt prints no catalog and says why in one stderr line", async () => {
  const config = toolOffConfig();
  const on = await runCli(["prompt", "--root", tree.root, "--config", config], opts);
  assert.match(on.stdout, /<name>alpha<\/name>/, "the same skills make a catalog when the tool is on");
  for (const scope of [["--agent", "noskill"], ["--project", "toolless"]]) {
    const run = await runCli(["prompt", "--root", tree.root, "--config", config, ...scope], opts);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "");
    assert.equal(run.stderr.trimEnd().split("\n").length, 1, run.stderr);
    assert.match(run.stderr, new RegExp(`\`skill\` tool is not available for ${scope[0]!.slice(2)} '${scope[1]}' \\(tool policy\\)`));
  }
});

test("with the skill tool off, prompt --json has an empty text, a zero count and toolAvailable false", async () => {
  const run = await runCli(["prompt", "--root", tree.root, "--config", toolOffConfig(), "--agent", "noskill", "--json"], opts);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(jsonOf(run), { format: "xml", count: 0, toolAvailable: false, text: "" });
});

test("with the skill tool off, prompt --skills-ref prints the reference's output for zero skills", async () => {
  const args = ["prompt", "--root", tree.cleanRoot, "--config", toolOffConfig(), "--agent", "noskill", "--skills-ref"];
  const run = await runCli(args, opts);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "<available_skills>\n</available_skills>\n");
  assert.match(run.stderr, /tool is not available/);
  const json = await runCli([...args, "--json"], opts);
  assert.deepEqual(jsonOf(json), { format: "skills-ref", count: 0, toolAvailable: false, text: "<available_skills>\n</available_skills>" });
});

test("prompt --skills-ref over a skill the reference cannot read prints the reference's error text and exits 1", async () => {
  const root = path.join(tree.cwd, "unreadable-for-reference");
  // Our loader accepts the unquoted colon (with a warning); the reference's strict YAML does not.
  writeSkill(root, "colon", "name: colon\ndescription: Use when: x");
  writeSkill(root, "fine", "name: fine\ndescription: A fine skill.");
  const run = await runCli(["prompt", "--skills-ref", "--root", root], opts);
  assert.equal(run.code, 1, run.stderr);
  assert.equal(run.stdout, "");
  assert.equal(
    run.stderr,
    'Error: Invalid YAML in frontmatter: mapping values are not allowed here\n  in "<unicode string>", line 3, column 22:\n    description: Use when: x\n                         ^ (line: 3)\n',
  );
  const ours = await runCli(["prompt", "--root", root], opts);
  assert.match(ours.stdout, /<name>colon<\/name>/, "the default catalog still includes the skill");
});

test("prompt --skills-ref DIR... prints the skills in the order given, hidden ones too", async () => {
  const root = path.join(tree.cwd, "ordered");
  const zed = writeSkill(root, "zed", "name: zed\ndescription: Last by name.\ndisable-model-invocation: true");
  const abe = writeSkill(root, "abe", "name: abe\ndescription: First by name.");
  const run = await runCli(["prompt", "--skills-ref", zed, path.join(abe, "SKILL.md")], opts);
  assert.equal(run.code, 0, run.stderr);
  const names = [...run.stdout.matchAll(/<name>\n(.*)\n<\/name>/g)].map((m) => m[1]);
  assert.deepEqual(names, ["zed", "abe"]);
  const missing = await runCli(["prompt", "--skills-ref", path.join(root, "nope")], opts);
  assert.equal(missing.code, 2);
  assert.equal(missing.stdout, "");
});

test("a reader that closes the pipe early ends the command quietly, not with a stack trace", async () => {
  const root = path.join(tree.cwd, "many");
  // About 1 MB of catalog: more than a pipe or socket buffer holds, so the writes outlast the reader.
  for (let i = 0; i < 1200; i++) writeSkill(root, `skill-${i}`, `name: skill-${i}\ndescription: ${"Long enough to fill the pipe. ".repeat(30)}`);
  const child = spawnCli(["prompt", "--root", root], opts);
  // Like `| head -c 1`: take one chunk, then close our end.
  child.stdout!.once("data", () => child.stdout!.destroy());
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdin!.end();
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  assert.doesNotMatch(stderr, /EPIPE|node:events|throw er/);
  assert.equal(code, 0, stderr);
});
