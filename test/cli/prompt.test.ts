import assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";
import { CORPUS } from "../support/tmp.js";
import { jsonOf, runCli } from "./cli-process.js";
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
  assert.equal(json.count, 3);
  assert.match(json.text, /<available_skills>/);
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
