/**
 * What `list` and `doctor` say the Skills Extension does with a skill (`extensionVisibility`) is
 * what the server's own plan decides (`planSkillEntry`), also where the answer is taken from what
 * loading recorded (`entryReady`) instead of reading SKILL.md again: for odd frontmatter, for a
 * SKILL.md changed or swapped for a link after loading, and for packages over the limits.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { extensionVisibility, extensionVisibilityNow, planSkillEntry, type ExtensionVisibility } from "../../src/adapters/skill-entry.js";
import { keepDiscoveredListings, peekDiscoveredListing } from "../../src/package/discovered-listings.js";
import type { RegisteredSkill } from "../../src/registry/types.js";
import { loadedSkills as loaded } from "../support/loaded-skills.js";
import { CORPUS, EXAMPLES, realTempDir, writeSkill } from "../support/tmp.js";

/** The whole plan's verdict, reading SKILL.md: the answer the shortcut must give. */
async function planned(skill: RegisteredSkill): Promise<ExtensionVisibility> {
  const plan = await planSkillEntry(skill);
  return plan.ok ? { served: true, reason: null, leftOut: plan.leftOut } : { served: false, reason: plan.reason, leftOut: [] };
}

const SKILLS: Record<string, string> = {
  plain: "name: plain\ndescription: Nothing unusual.",
  typed: "name: typed\ndescription: Has typed values.\nuser-invocable: true\nversion: 2.0\nhooks:\n  - matcher: Bash\n    timeout: 30",
  retried: "name: retried\ndescription: Use when: the user asks",
  "metadata-map": "name: metadata-map\ndescription: Keeps a map.\nmetadata:\n  author: ops\n  count: 28",
  "metadata-list": "name: metadata-list\ndescription: Metadata is a list.\nmetadata:\n  - a",
  wordy: `name: wordy\ndescription: ${"w".repeat(1025)}`,
  "at-limit": `name: at-limit\ndescription: ${"w".repeat(1024)}`,
  "not-json": "name: not-json\ndescription: Holds a NaN.\nratio: .nan",
  "bad-compat": "name: bad-compat\ndescription: Empty compatibility.\ncompatibility: ''",
  "padded-name": "name: ' padded-name'\ndescription: Its name has a blank.",
  "with-files": "name: with-files\ndescription: Ships references.",
  // Limits count code points: 1,024 emoji are 2,048 UTF-16 units and still fit.
  "astral-limit": `name: astral-limit\ndescription: ${"\u{1F600}".repeat(1024)}`,
  "astral-over": `name: astral-over\ndescription: ${"\u{1F600}".repeat(1025)}`,
  "compat-limit": `name: compat-limit\ndescription: Compatibility at its limit.\ncompatibility: ${"\u{1F600}".repeat(500)}`,
  "compat-over": `name: compat-over\ndescription: Compatibility past its limit.\ncompatibility: ${"\u{1F600}".repeat(499)}xx`,
};

test("the extension's verdict from what loading recorded is the plan's verdict, for every kind of frontmatter", { timeout: 120_000 }, async () => {
  const root = realTempDir("extension-visibility");
  for (const [dir, frontmatter] of Object.entries(SKILLS)) writeSkill(root, dir, frontmatter);
  fs.mkdirSync(path.join(root, "with-files", "references"));
  fs.writeFileSync(path.join(root, "with-files", "references", "guide.md"), "# Guide\n");
  const skills = await loaded(root);
  // The shortcut is really taken for the skills whose frontmatter needs nothing, and only for them.
  assert.deepEqual(
    [...skills.values()].filter((skill) => skill.entryReady).map((skill) => skill.name).sort(),
    ["astral-limit", "at-limit", "compat-limit", "plain", "typed", "with-files"],
  );
  for (const skill of skills.values()) assert.deepEqual(await extensionVisibility(skill), await planned(skill), skill.name);
  assert.deepEqual(await extensionVisibility(skills.get("plain")!), { served: true, reason: null, leftOut: [] });
});

test("a SKILL.md changed, swapped for a link, or grown past the limits after loading is decided from the file as it is now", { timeout: 120_000 }, async () => {
  const root = realTempDir("extension-visibility-changed");
  for (const name of ["rewritten", "linked", "outside", "crowded"]) writeSkill(root, name, `name: ${name}\ndescription: Ready when loaded.`);
  const skills = await loaded(root);
  for (const skill of skills.values()) assert.equal(skill.entryReady, true, skill.name);

  // Rewritten with a description the extension refuses.
  writeSkill(root, "rewritten", `name: rewritten\ndescription: ${"w".repeat(1025)}`);
  // The same bytes, now behind a link inside the package, and one leading out of it.
  const linked = path.join(root, "linked");
  fs.renameSync(path.join(linked, "SKILL.md"), path.join(linked, "real.md"));
  fs.symlinkSync("real.md", path.join(linked, "SKILL.md"));
  const outside = path.join(root, "outside");
  fs.renameSync(path.join(outside, "SKILL.md"), path.join(root, "elsewhere.md"));
  fs.symlinkSync(path.join(root, "elsewhere.md"), path.join(outside, "SKILL.md"));
  // More files than the resource listing takes.
  const many = path.join(root, "crowded", "references");
  fs.mkdirSync(many);
  for (let i = 0; i < 520; i++) fs.writeFileSync(path.join(many, `f${i}.md`), "x");

  for (const skill of skills.values()) assert.deepEqual(await extensionVisibility(skill), await planned(skill), skill.name);
  assert.equal((await extensionVisibility(skills.get("rewritten")!)).served, false);
  assert.equal((await extensionVisibility(skills.get("outside")!)).served, false);
  assert.equal((await extensionVisibility(skills.get("crowded")!)).served, false);
});

test("the verdict decided in the turn from discovery's listings is the plan's, on the corpus, the examples and every kind of frontmatter", { timeout: 120_000 }, async () => {
  const root = realTempDir("extension-visibility-now");
  for (const [dir, frontmatter] of Object.entries(SKILLS)) writeSkill(root, dir, frontmatter);
  fs.mkdirSync(path.join(root, "with-files", "references"));
  fs.writeFileSync(path.join(root, "with-files", "references", "guide.md"), "# Guide\n");
  // Its SKILL.md a link to a file beside it: only the whole plan decides.
  writeSkill(root, "linked-manifest", "name: linked-manifest\ndescription: Its manifest is a link.");
  fs.renameSync(path.join(root, "linked-manifest", "SKILL.md"), path.join(root, "linked-manifest", "real.md"));
  fs.symlinkSync("real.md", path.join(root, "linked-manifest", "SKILL.md"));
  const decidedNow: string[] = [];
  const leftToPlan: string[] = [];
  for (const tree of [CORPUS, EXAMPLES, root]) {
    keepDiscoveredListings(true);
    let skills: Map<string, RegisteredSkill>;
    const now = new Map<string, ExtensionVisibility | undefined>();
    try {
      skills = await loaded(tree);
      for (const skill of skills.values()) {
        const verdict = extensionVisibilityNow(skill);
        now.set(skill.name, verdict);
        // Left to the asynchronous check, a package keeps discovery's listing for it.
        if (verdict === undefined) assert.notEqual(peekDiscoveredListing(skill.dir), undefined, `${skill.name}: the listing is left`);
      }
    } finally {
      keepDiscoveredListings(false);
    }
    for (const skill of skills.values()) {
      const verdict = now.get(skill.name);
      if (verdict === undefined) {
        leftToPlan.push(skill.name);
        continue;
      }
      decidedNow.push(skill.name);
      assert.deepEqual(verdict, await planned(skill), skill.name);
      assert.deepEqual(verdict, await extensionVisibility(skill), skill.name);
    }
  }
  assert.equal(decidedNow.length, 19);
  // Left to the asynchronous check: a package of more than 16 folders (claude-api has 23), and
  // every skill whose frontmatter loading did not find ready for an entry.
  assert.deepEqual(leftToPlan.sort(), ["bad-compat", "claude-api", "compat-over", "http-smoke-test", "linked-manifest", "metadata-list", "metadata-map", "not-json", "padded-name", "retried", "wordy", "astral-over"].sort());
});
