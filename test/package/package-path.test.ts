import assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";
import fc from "fast-check";
import { pathInPackage, relativeInPackage } from "../../src/package/package-path.js";

// Entry names as a listing holds them: never empty, ".", ".." or holding a separator.
const entryName = fc.string({ unit: fc.constantFrom(..."ab.-_ é~%"), minLength: 1, maxLength: 6 }).filter((name) => name !== "." && name !== "..");
const realDir = fc.array(entryName, { maxLength: 4 }).map((segments) => path.sep + segments.join(path.sep));
const listed = fc.array(entryName, { minLength: 1, maxLength: 4 }).map((segments) => segments.join("/"));

test("a path inside a package is what path.join gives, and its relative path what path.relative gives", () => {
  for (const [dir, rel] of [
    ["/", "SKILL.md"],
    ["/skills/pdf", "scripts/run.sh"],
    ["/skills/pdf", "..a/b..c/.d"],
  ] as const) {
    assert.equal(pathInPackage(dir, rel), path.join(dir, rel));
    assert.equal(relativeInPackage(dir, path.join(dir, rel)), path.relative(dir, path.join(dir, rel)));
  }
  // A file outside the directory falls back to path.relative.
  assert.equal(relativeInPackage("/skills/pdf", "/skills/other/x.md"), "../other/x.md");
  fc.assert(
    fc.property(realDir, listed, (dir, rel) => {
      const joined = path.join(dir, rel);
      return pathInPackage(dir, rel) === joined && relativeInPackage(dir, joined) === path.relative(dir, joined);
    }),
    { numRuns: 3000 },
  );
});
