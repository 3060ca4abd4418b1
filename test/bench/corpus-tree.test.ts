import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { createCorpusTree } from "../../bench/bench-tree.js";
import { realTempDir, writeSkill } from "../support/tmp.js";

/** Every file below `dir` with its content, links as their targets: what a copy must leave alone. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    if (entry.isSymbolicLink()) files[path.relative(dir, full)] = `-> ${fs.readlinkSync(full)}`;
    else if (entry.isFile()) files[path.relative(dir, full)] = fs.readFileSync(full, "utf8");
  }
  return files;
}

test("a corpus is copied with each skill name once, grouped by the folders that hold skills, and the original is left alone", { timeout: 30_000 }, () => {
  const corpus = realTempDir("corpus");
  writeSkill(path.join(corpus, "repo-a", "skills"), "alpha", 'name: alpha\ndescription: "Alpha does A."');
  writeSkill(path.join(corpus, "repo-a", "skills", "alpha", "tools"), "inner", "name: inner\ndescription: >-\n  Inner, folded\n  over lines.");
  writeSkill(path.join(corpus, "repo-b", ".claude", "skills"), "beta", "name: beta\ndescription: Beta does B.");
  // A frontmatter js-yaml refuses: a skill with no reference description.
  writeSkill(path.join(corpus, "repo-b", ".claude", "skills"), "broken", "name: broken\ndescription: [unclosed");
  // A second alpha, later in path order: removed from the copy.
  writeSkill(path.join(corpus, "repo-c"), "alpha-again", "name: alpha\ndescription: Another alpha.");
  fs.symlinkSync(path.join(corpus, "repo-b", ".claude", "skills", "beta"), path.join(corpus, "repo-a", "skills", "linked-beta"));
  const before = snapshot(corpus);

  const root = realTempDir("corpus-bench");
  const tree = createCorpusTree(root, corpus);
  const copy = path.join(root, "corpus");

  assert.equal(tree.shape, "corpus");
  // inner sits inside alpha, so its folder is no group: only loaders that search inside a skill find it.
  assert.deepEqual(tree.groups, [path.join(copy, "repo-a", "skills"), path.join(copy, "repo-b", ".claude", "skills")]);
  // Links are not followed while counting, so linked-beta is not a second beta.
  assert.deepEqual(
    tree.skillDirs.map((dir) => path.relative(copy, dir)),
    ["repo-a/skills/alpha", "repo-a/skills/alpha/tools/inner", "repo-b/.claude/skills/beta", "repo-b/.claude/skills/broken"],
  );
  assert.equal(tree.count, 4);
  assert.equal(fs.existsSync(path.join(copy, "repo-c", "alpha-again")), false);
  assert.deepEqual(JSON.parse(fs.readFileSync(tree.referenceFile, "utf8")), { alpha: "Alpha does A.", inner: "Inner, folded over lines.", beta: "Beta does B." });
  assert.equal(fs.readlinkSync(path.join(copy, "repo-a", "skills", "linked-beta")), path.join(corpus, "repo-b", ".claude", "skills", "beta"));

  // The bench edits SKILL.md files of its tree (rescan after one edit): only the copy may change.
  fs.writeFileSync(tree.skillFiles[0]!, "---\nname: alpha\ndescription: edited\n---\n");
  assert.deepEqual(snapshot(corpus), before);
});

test("a corpus whose folders are skills is one source", { timeout: 30_000 }, () => {
  const corpus = realTempDir("corpus-one");
  writeSkill(corpus, "alpha", "name: alpha\ndescription: A.");
  writeSkill(corpus, "beta", "name: beta\ndescription: B.");
  const root = realTempDir("corpus-one-bench");
  const tree = createCorpusTree(root, corpus);
  assert.deepEqual(tree.groups, [path.join(root, "corpus")]);
  assert.equal(tree.count, 2);
});
