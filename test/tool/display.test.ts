import assert from "node:assert/strict";
import { test } from "node:test";
import { displayOf } from "../../src/tool/display.js";
import { makeSkill } from "../support/skill-spec.js";
import { realTempDir } from "../support/tmp.js";
import { globalSource, runtimeHarness } from "./harness.js";

const root = realTempDir("skillport-display");
makeSkill(root, "alpha", { files: { "references/r.md": "r" } });
makeSkill(root, "beta");
const { tool } = await runtimeHarness(globalSource(root));

async function display(args: unknown) {
  return displayOf(args, await tool.call(args));
}

test("a successful list reports results = count and no primary", async () => {
  assert.deepEqual(await display({}), { primary: null, results: 2 });
  assert.deepEqual(await display({ name: " " }), { primary: null, results: 2 });
});

test("named calls show the name; reads show the file path; failures carry no count", async () => {
  assert.deepEqual(await display({ name: "alpha" }), { primary: "alpha" });
  assert.deepEqual(await display({ name: "alpha", file_path: "references/r.md" }), { primary: "references/r.md" });
  assert.deepEqual(await display({ name: "missing" }), { primary: "missing" });
  assert.deepEqual(await display({ name: "alpha", file_path: "../x" }), { primary: "../x" });
  assert.deepEqual(await display({ bogus: true }), { primary: null });
  assert.deepEqual(await display("nonsense"), { primary: null });
});
