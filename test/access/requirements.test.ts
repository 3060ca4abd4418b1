import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { buildScopedRegistry } from "../../src/access/scoped-registry.js";
import type { Availability } from "../../src/access/types.js";
import { createRegistry } from "../../src/registry/registry.js";
import { tempDir, writeSkill } from "../registry/skill-tree.js";

/**
 * Writes one global skill per entry (`name` → the YAML under `metadata.requirements`), puts an
 * executable `present-tool` on PATH, and returns the scoped registry of `{}` (or of the agent).
 */
async function scoped(
  t: TestContext,
  skills: Record<string, string>,
  { env = {}, excluded = [] as string[] }: { env?: Record<string, string>; excluded?: string[] } = {},
) {
  const root = tempDir(t);
  const bin = path.join(root, "bin");
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, "present-tool"), "#!/bin/sh\n", { mode: 0o755 });
  fs.writeFileSync(path.join(bin, "not-executable"), "data\n", { mode: 0o644 });
  for (const [name, requirements] of Object.entries(skills)) {
    const indented = requirements
      .trim()
      .split("\n")
      .map((line) => `    ${line}`)
      .join("\n");
    writeSkill(path.join(root, "skills"), name, { frontmatter: requirements ? `metadata:\n  requirements:\n${indented}` : "" });
  }
  const registry = createRegistry([{ path: path.join(root, "skills"), origin: "global" }], { env: () => ({ PATH: bin, ...env }) });
  const outcome = await registry.refresh();
  assert.ok(outcome.ok);
  return buildScopedRegistry(outcome.snapshot, { agentId: "agent" }, { agents: { agent: { excludedSkills: excluded } } });
}

const available = (optionalMissing: string[] = []): Availability => ({ status: "available", optionalMissing });
const unavailable = (missing: string[], optionalMissing: string[] = []): Availability => ({ status: "unavailable", missing, optionalMissing });

test("leaves: env from the snapshot, binaries from PATH", async (t) => {
  const registry = await scoped(
    t,
    {
      "no-requirements": "",
      "env-set": "env: TOKEN",
      "env-unset": "env: MISSING_TOKEN",
      "env-empty": "env: EMPTY_TOKEN",
      "binary-present": "binary: present-tool",
      "binary-absent": "binary: absent-tool",
      "binary-not-executable": "binary: not-executable",
    },
    { env: { TOKEN: "secret", EMPTY_TOKEN: "" } },
  );
  assert.deepEqual(registry.availability("no-requirements"), available());
  assert.deepEqual(registry.availability("env-set"), available());
  assert.deepEqual(registry.availability("env-unset"), unavailable(["env: MISSING_TOKEN"]));
  assert.deepEqual(registry.availability("env-empty"), unavailable(["env: EMPTY_TOKEN"]));
  assert.deepEqual(registry.availability("binary-present"), available());
  assert.deepEqual(registry.availability("binary-absent"), unavailable(["binary: absent-tool"]));
  assert.deepEqual(registry.availability("binary-not-executable"), unavailable(["binary: not-executable"]));
});

test("all names every missing item; any is met by one and names the alternatives when none is", async (t) => {
  const registry = await scoped(
    t,
    {
      "all-partly": "all:\n  - env: TOKEN\n  - binary: absent-tool\n  - env: OTHER",
      "all-met": "all:\n  - env: TOKEN\n  - binary: present-tool",
      "any-met": "any:\n  - env: NOPE\n  - binary: present-tool",
      "any-unmet": "any:\n  - env: NOPE\n  - binary: absent-tool",
      "any-of-all": "any:\n  - all:\n      - env: TOKEN\n      - env: NOPE\n  - binary: absent-tool",
      "env-list": "env: [TOKEN, NOPE]",
    },
    { env: { TOKEN: "x" } },
  );
  assert.deepEqual(registry.availability("all-partly"), unavailable(["binary: absent-tool", "env: OTHER"]));
  assert.deepEqual(registry.availability("all-met"), available());
  assert.deepEqual(registry.availability("any-met"), available());
  assert.deepEqual(registry.availability("any-unmet"), unavailable(["any of: env: NOPE | binary: absent-tool"]));
  assert.deepEqual(registry.availability("any-of-all"), unavailable(["any of: env: NOPE | binary: absent-tool"]));
  assert.deepEqual(registry.availability("env-list"), unavailable(["env: NOPE"]));
});

test("optional items are reported, never blocking", async (t) => {
  const registry = await scoped(
    t,
    {
      "root-and-optional": "env: TOKEN\noptional:\n  - env: NICE_TO_HAVE\n  - binary: present-tool\n  - binary: absent-tool",
      "only-optional": "optional:\n  - env: NICE_TO_HAVE",
      "root-missing-too": "env: NOPE\noptional:\n  - env: NICE_TO_HAVE",
    },
    { env: { TOKEN: "x" } },
  );
  assert.deepEqual(registry.availability("root-and-optional"), available(["env: NICE_TO_HAVE", "binary: absent-tool"]));
  assert.deepEqual(registry.availability("only-optional"), available(["env: NICE_TO_HAVE"]));
  assert.deepEqual(registry.availability("root-missing-too"), unavailable(["env: NOPE"], ["env: NICE_TO_HAVE"]));
});

test("skill dependencies must be allowed in the same scope and available themselves", async (t) => {
  const registry = await scoped(
    t,
    {
      helper: "env: TOKEN",
      "broken-helper": "env: NOPE",
      "refused-helper": "",
      "uses-helper": "skill: helper",
      "uses-broken-helper": "skill: broken-helper",
      "uses-refused-helper": "skill: refused-helper",
      "uses-nothing-real": "skill: not-a-skill",
      "chain-top": "skill: uses-broken-helper",
    },
    { env: { TOKEN: "x" }, excluded: ["refused-helper"] },
  );
  assert.deepEqual(registry.availability("uses-helper"), available());
  assert.deepEqual(registry.availability("uses-broken-helper"), unavailable(["skill: broken-helper (needs env: NOPE)"]));
  assert.deepEqual(registry.availability("uses-refused-helper"), unavailable(["skill: refused-helper"]), "refused looks like missing");
  assert.deepEqual(registry.availability("uses-nothing-real"), unavailable(["skill: not-a-skill"]));
  assert.deepEqual(
    registry.availability("chain-top"),
    unavailable(["skill: uses-broken-helper (needs skill: broken-helper (needs env: NOPE))"]),
  );
});

test("dependency cycles resolve to unavailable with the cycle named", async (t) => {
  const registry = await scoped(t, {
    a: "skill: b",
    b: "skill: a",
    self: "skill: self",
    "into-cycle": "skill: a",
    "any-around-cycle": "any:\n  - skill: a\n  - env: NOPE",
    "any-escapes-cycle": "any:\n  - skill: a\n  - binary: present-tool",
  });
  assert.deepEqual(registry.availability("a"), unavailable(["skill cycle: a -> b -> a"]));
  assert.deepEqual(registry.availability("b"), unavailable(["skill cycle: b -> a -> b"]));
  assert.deepEqual(registry.availability("self"), unavailable(["skill cycle: self -> self"]));
  assert.deepEqual(registry.availability("into-cycle"), unavailable(["skill cycle: a -> b -> a"]));
  assert.deepEqual(registry.availability("any-around-cycle"), unavailable(["any of: skill cycle: a -> b -> a | env: NOPE"]));
  assert.deepEqual(registry.availability("any-escapes-cycle"), available());
  assert.deepEqual(registry.availability("a"), unavailable(["skill cycle: a -> b -> a"]), "asking again gives the same answer");
});

test("malformed requirements make a skill invalid; the nested vbot form is read too", async (t) => {
  const registry = await scoped(
    t,
    {
      malformed: "bogus: thing",
      "two-roots": "env: A\nbinary: b",
    },
    { env: { TOKEN: "x" } },
  );
  const malformed = registry.availability("malformed");
  assert.equal(malformed?.status, "invalid");
  assert.match(malformed.status === "invalid" ? malformed.message : "", /bogus/);
  assert.equal(registry.availability("two-roots")?.status, "invalid");

  const root = tempDir(t);
  writeSkill(root, "nested-form", { frontmatter: "metadata:\n  vbot:\n    requirements:\n      env: NESTED_TOKEN" });
  const registry2 = createRegistry([{ path: root, origin: "global" }], { env: () => ({}) });
  const outcome = await registry2.refresh();
  assert.deepEqual(buildScopedRegistry(outcome.snapshot, {}, {}).availability("nested-form"), unavailable(["env: NESTED_TOKEN"]));
});

test("a deep diamond of dependencies evaluates without blowing up", async (t) => {
  // Each level needs both halves of the next: 2^30 paths unless settled results are reused.
  const skills: Record<string, string> = {};
  for (let i = 0; i < 30; i++) {
    skills[`left-${i}`] = `skill: level-${i + 1}`;
    skills[`right-${i}`] = `skill: level-${i + 1}`;
    skills[`level-${i}`] = `all:\n  - skill: left-${i}\n  - skill: right-${i}`;
  }
  skills["level-30"] = "env: TOKEN";
  const registry = await scoped(t, skills, { env: { TOKEN: "x" } });
  assert.deepEqual(registry.availability("level-0"), available());
});

test("a chain of 1,900 skill dependencies is answered, its message naming six levels", async (t) => {
  const skills: Record<string, string> = {};
  for (let i = 0; i < 1900; i++) skills[`c${i}`] = i < 1899 ? `skill: c${i + 1}` : "env: NOPE";
  const registry = await scoped(t, skills, {});
  const availability = registry.availability("c0");
  assert.equal(availability?.status, "unavailable");
  assert.deepEqual(availability.status === "unavailable" && availability.missing, [
    "skill: c1 (needs skill: c2 (needs skill: c3 (needs skill: c4 (needs skill: c5 (needs skill: c6 (unavailable))))))",
  ]);
  assert.equal(registry.availability("c1899")?.status, "unavailable");
});

test("a message stays small when every level needs the next twice", async (t) => {
  // Naming each path separately gave 2^20 copies of the bottom reason: a 60 MB message.
  const skills: Record<string, string> = {};
  for (let i = 0; i < 20; i++) skills[`d${i}`] = `all:\n  - skill: d${i + 1}\n  - skill: d${i + 1}`;
  skills.d20 = "env: NOPE";
  const registry = await scoped(t, skills, {});
  const availability = registry.availability("d0");
  assert.equal(availability?.status, "unavailable");
  assert.ok(JSON.stringify(availability).length < 1000, JSON.stringify(availability).slice(0, 300));
});

test("a cycle that another branch satisfies runs, whichever skill is asked about first", async (t) => {
  const skills = { e0: "any:\n  - skill: e1\n  - env: TOKEN", e1: "skill: e0", f0: "skill: f1", f1: "any:\n  - skill: f0\n  - env: TOKEN" };
  const registry = await scoped(t, skills, { env: { TOKEN: "x" } });
  assert.deepEqual(registry.availability("e1"), available());
  assert.deepEqual(registry.availability("e0"), available());
  assert.deepEqual(registry.availability("f0"), available());
});

test("reasons stay bounded as they are built when every skill needs all the later ones", async (t) => {
  // Finished text trimmed only at the end: 400 such skills took gigabytes and crashed `list`.
  const skills: Record<string, string> = {};
  const count = 120;
  for (let i = 0; i < count; i++) {
    const later = Array.from({ length: count - i - 1 }, (_, k) => `\n  - skill: w${i + k + 1}`).join("");
    skills[`w${i}`] = `all:\n  - env: NOPE${later}`;
  }
  const registry = await scoped(t, skills, {});
  for (let i = 0; i < count; i++) {
    const availability = registry.availability(`w${i}`);
    assert.equal(availability?.status, "unavailable");
    assert.ok(JSON.stringify(availability).length < 25_000, `w${i}: ${JSON.stringify(availability).length} chars`);
  }
});
