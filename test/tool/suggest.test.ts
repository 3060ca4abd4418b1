import assert from "node:assert/strict";
import { test } from "node:test";
import { closeNames, editDistance } from "../../src/tool/suggest.js";

test("edit distance counts insertions, deletions, substitutions and adjacent swaps", () => {
  assert.equal(editDistance("pdf", "pdf"), 0);
  assert.equal(editDistance("pdf", "pdfs"), 1);
  assert.equal(editDistance("pdf", "pd"), 1);
  assert.equal(editDistance("pdf", "pdx"), 1);
  assert.equal(editDistance("pdf", "pfd"), 1);
  assert.equal(editDistance("技能", "技术"), 1, "by code point");
  assert.equal(editDistance("abcdef", "uvwxyz", 2), 3, "bounded early");
});

test("close names: nearest first, then by name, at most three, containment counts", () => {
  const known = ["pdf", "pdf-tools", "docx", "xlsx", "pptx", "brand-guidelines", "canvas-design"];
  assert.deepEqual(closeNames("pdx", known), ["pdf"]);
  assert.deepEqual(closeNames("brand", known), ["brand-guidelines"]);
  assert.deepEqual(closeNames("xlxs", known), ["xlsx"]);
  assert.deepEqual(closeNames("canvas-desing", known), ["canvas-design"]);
  assert.deepEqual(closeNames("x-tool", ["a-tool", "b-tool", "c-tool", "d-tool", "e-tool"]), ["a-tool", "b-tool", "c-tool"]);
  assert.deepEqual(closeNames("zzzzzzzz", known), []);
  assert.ok(closeNames("pdf-tool", known).length <= 3);
  assert.equal(closeNames("pdf-tool", known)[0], "pdf-tools");
});
