/** `skill://` URIs (src/adapters/skill-uri.ts): what a request may name, and what names nothing. */
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { isCanonical, isCanonicalFileUri, parseSkillUri, skillUri } from "../../src/adapters/skill-uri.js";

test("a skill URI names the skill by its authority and the file by its path, each segment decoded once", () => {
  assert.deepEqual(parseSkillUri("skill://a/SKILL.md"), { skillName: "a", relPath: "SKILL.md" });
  assert.deepEqual(parseSkillUri("skill://a"), { skillName: "a", relPath: "" });
  assert.deepEqual(parseSkillUri("skill://a/references/notes%20v2.md"), { skillName: "a", relPath: "references/notes v2.md" });
  // An escaped `?` is part of a file's name, not a query.
  assert.deepEqual(parseSkillUri("skill://a/what%3F.md"), { skillName: "a", relPath: "what?.md" });
  assert.deepEqual(parseSkillUri(skillUri("a", "what?.md")), { skillName: "a", relPath: "what?.md" });
});

test("a URI with a query or a fragment names nothing, an empty one included", () => {
  for (const uri of [
    "skill://a/SKILL.md?x",
    "skill://a/SKILL.md?",
    "skill://a/SKILL.md#x",
    "skill://a/SKILL.md#",
    "skill://a/SKILL.md?x#y",
    "skill://a?x",
    "skill://a#x",
    "skill://a/references?x",
  ]) {
    assert.equal(parseSkillUri(uri), null, uri);
  }
});

test("a URI that is not a plain skill:// URI names nothing: another scheme, credentials, a port, no name, an empty or undecodable segment", () => {
  for (const uri of [
    "file:///etc/passwd",
    "skill://user@a/SKILL.md",
    "skill://user:pw@a/SKILL.md",
    "skill://a:8080/SKILL.md",
    "skill:///SKILL.md",
    "skill://a/references//x.md",
    "skill://a/x%2Fy.md",
    "skill://a/x%5Cy.md",
    "skill://a/x%00y.md",
    "skill://a/%E0%A4%A.md",
    "not a uri",
  ]) {
    assert.equal(parseSkillUri(uri), null, uri);
  }
});

test("the URIs written for file names are canonical, and a dot segment is not", () => {
  for (const name of ["SKILL.md", "references/notes v2.md", "what?.md", "hash#.md", "100%.md", "naïve/日本.md", "a[1]|b~c.md"]) {
    assert.equal(isCanonical(skillUri("a", name)), true, name);
  }
  assert.equal(isCanonical("skill://a/./SKILL.md"), false);
  assert.equal(isCanonical("skill://a/references/.."), false);
});

test("a file's URI is judged canonical without parsing it exactly when parsing it would say so", () => {
  const names = ["pdf", "a-b-1", "-x", "x-", "0", "技能", "мой-навык", "a b", "x%2e", "ünïcode-name", "UPPER", "a.b", "a_b", "a~b"];
  const paths = ["SKILL.md", "scripts/run.sh", "a/./b", "a/../b", ".", "..", "a/..", "...", "x..y/z", "-a/_b/~c", "a b.md", "a%2e/b", "a/%2e%2e", "tab\there", "a//b", "a/", "/a", "ü.md", "a?b", "a#b", "\\x"];
  for (const name of names) for (const rel of paths) assert.equal(isCanonicalFileUri(name, rel), isCanonical(skillUri(name, rel)), `${name} ${rel}`);
  fc.assert(
    fc.property(fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: fc.constantFrom(..."aZ09-_.~%é "), maxLength: 8 })), fc.array(fc.string({ unit: fc.constantFrom(..."ab.~_-%2eZ /?#\\ü"), maxLength: 6 }), { maxLength: 4 }), (name, segments) => {
      const rel = segments.join("/");
      return isCanonicalFileUri(name, rel) === isCanonical(skillUri(name, rel));
    }),
    { numRuns: 2000 },
  );
});
