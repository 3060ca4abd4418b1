/**
 * The `{}` answer is kept per offered list and shared by every call and session that sees the
 * same list (src/tool/list.ts). These tests pin what makes a kept answer go: a refresh that
 * changes the skills, new requirement answers, another scope; and that no caller can change it.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import type { Envelope, ListData } from "../../src/tool/envelope.js";
import { makeSkill } from "../support/skill-spec.js";
import { realTempDir } from "../support/tmp.js";
import { globalSource, runtimeHarness } from "./harness.js";

function listed(envelope: Envelope): Array<{ name: string; description: string }> {
  assert.equal(envelope.ok, true, JSON.stringify(envelope));
  return (envelope.data as ListData).skill_groups.flatMap((group) => group.skills);
}

test("a listing after a refresh shows a skill added on disk and a description edited, in every session", async () => {
  const root = realTempDir("skillport-list-answer");
  makeSkill(root, "alpha", { description: "First words." });
  const { runtime } = await runtimeHarness(globalSource(root));
  const one = runtime.session();
  const two = runtime.session();
  assert.deepEqual(listed(await one.call({})), [{ name: "alpha", description: "First words." }]);
  assert.deepEqual(listed(await two.call({})), [{ name: "alpha", description: "First words." }]);

  makeSkill(root, "beta");
  // A different length, so the stamp changes whatever the clock's granularity.
  makeSkill(root, "alpha", { description: "Second, longer words." });
  await runtime.refresh();
  const expected = [
    { name: "alpha", description: "Second, longer words." },
    { name: "beta", description: "Does beta things." },
  ];
  assert.deepEqual(listed(await one.call({})), expected);
  assert.deepEqual(listed(await two.call({})), expected);
  const text = (await two.invoke({})).text;
  assert.match(text, /^2 skills available/);
  assert.match(text, /- alpha: Second, longer words\./);
});

test("a listing after a removal and refresh no longer shows the removed skill", async () => {
  const root = realTempDir("skillport-list-answer");
  makeSkill(root, "alpha");
  makeSkill(root, "beta");
  const { runtime } = await runtimeHarness(globalSource(root));
  const session = runtime.session();
  assert.equal(listed(await session.call({})).length, 2);
  fs.rmSync(path.join(root, "beta"), { recursive: true });
  await runtime.refresh();
  assert.deepEqual(listed(await session.call({})).map((s) => s.name), ["alpha"]);
  assert.equal((await session.invoke({})).text.split("\n")[0], "1 skill available. Load one by calling this tool with its name.");
});

test("a skill whose requirement becomes met joins the listing at the next refresh", async () => {
  const root = realTempDir("skillport-list-answer");
  const bin = realTempDir("skillport-list-answer-bin");
  makeSkill(root, "alpha");
  makeSkill(root, "needs-tool", { frontmatter: "metadata:\n  requirements:\n    binary: list-answer-tool" });
  const { runtime } = await runtimeHarness({ ...globalSource(root), env: { PATH: bin } });
  const session = runtime.session();
  assert.deepEqual(listed(await session.call({})).map((s) => s.name), ["alpha"]);
  const tool = path.join(bin, "list-answer-tool");
  fs.writeFileSync(tool, "#!/bin/sh\n");
  fs.chmodSync(tool, 0o755);
  await runtime.refresh();
  assert.deepEqual(listed(await session.call({})).map((s) => s.name), ["alpha", "needs-tool"]);
});

test("scopes with different policies each get their own listing, however the calls interleave", async () => {
  const root = realTempDir("skillport-list-answer");
  makeSkill(root, "alpha");
  makeSkill(root, "beta");
  const { runtime } = await runtimeHarness({
    ...globalSource(root),
    agents: { narrow: { allowedSkills: ["alpha"] }, none: { allowedSkills: [] } },
  });
  const everyone = runtime.session();
  const narrow = runtime.session({ agentId: "narrow" });
  const none = runtime.session({ agentId: "none" });
  for (let round = 0; round < 2; round++) {
    assert.deepEqual(listed(await everyone.call({})).map((s) => s.name), ["alpha", "beta"]);
    assert.deepEqual(listed(await narrow.call({})).map((s) => s.name), ["alpha"]);
    assert.deepEqual(listed(await none.call({})), []);
    assert.equal((await none.invoke({})).text, "No skills are available.");
  }
});

test("a session narrowed to some skills lists only those, next to a session that is not", async () => {
  const root = realTempDir("skillport-list-answer");
  makeSkill(root, "alpha");
  makeSkill(root, "beta");
  const { runtime } = await runtimeHarness(globalSource(root));
  const all = runtime.session();
  const some = runtime.session({ skills: ["beta"] });
  assert.deepEqual(listed(await all.call({})).map((s) => s.name), ["alpha", "beta"]);
  assert.deepEqual(listed(await some.call({})).map((s) => s.name), ["beta"]);
  assert.deepEqual(listed(await all.call({})).map((s) => s.name), ["alpha", "beta"]);
});

test("the shared listing cannot be changed by a caller: the next call answers as before", async () => {
  const root = realTempDir("skillport-list-answer");
  makeSkill(root, "alpha");
  const { runtime } = await runtimeHarness(globalSource(root));
  const session = runtime.session();
  const data = (await session.call({})).data as ListData;
  assert.throws(() => {
    (data as { count: number }).count = 7;
  }, TypeError);
  assert.throws(() => (data.skill_groups[0]!.skills as Array<unknown>).push({ name: "forged", description: "x" }), TypeError);
  assert.deepEqual(listed(await runtime.session().call({})), [{ name: "alpha", description: "Does alpha things." }]);
});
