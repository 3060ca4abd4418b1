import assert from "node:assert/strict";
import { test } from "node:test";
import { entryFrontmatter } from "../../src/adapters/skill-entry.js";

const base = { name: "deploy", description: "Deploys the app when asked." };

test("metadata values that are not text are left out of the extension entry; text values stay", () => {
  const decided = entryFrontmatter({ ...base, metadata: { author: "ops", version: "2", requirements: { all: [{ env: "TOKEN" }] }, vbot: { requirements: { env: "X" } } } }, "deploy");
  assert.deepEqual(decided, {
    ok: true,
    frontmatter: { ...base, metadata: { author: "ops", version: "2" } },
    leftOut: ["metadata.requirements", "metadata.vbot"],
  });
});

test("metadata with no text value at all, or not a map, is left out whole", () => {
  assert.deepEqual(entryFrontmatter({ ...base, metadata: { requirements: { env: "X" } } }, "deploy"), { ok: true, frontmatter: base, leftOut: ["metadata.requirements"] });
  assert.deepEqual(entryFrontmatter({ ...base, metadata: ["a", "b"] }, "deploy"), { ok: true, frontmatter: base, leftOut: ["metadata"] });
});

test("a skill whose metadata is all text is published unchanged, nothing left out", () => {
  const frontmatter = { ...base, metadata: { author: "ops" } };
  const decided = entryFrontmatter(frontmatter, "deploy");
  assert.deepEqual(decided, { ok: true, frontmatter, leftOut: [] });
});

test("problems other than metadata still keep the skill out, whatever its metadata: a description of 1,025 characters is refused, 1,024 is served", () => {
  const at = entryFrontmatter({ ...base, description: "d".repeat(1024), metadata: { requirements: { env: "X" } } }, "deploy");
  assert.equal(at.ok, true);
  const over = entryFrontmatter({ ...base, description: "d".repeat(1025), metadata: { requirements: { env: "X" } } }, "deploy");
  assert.deepEqual(over, { ok: false, problems: ["frontmatter description must be a string of 1-1024 characters"] });
});
