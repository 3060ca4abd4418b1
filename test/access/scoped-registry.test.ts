import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { createScopeResolver } from "../../src/access/scoped-registry.js";
import { createRegistry } from "../../src/registry/registry.js";
import { createSkillRuntime } from "../../src/runtime.js";
import type { SkillSource } from "../../src/registry/types.js";
import { tempDir, writeSkill } from "../registry/skill-tree.js";

test("scoped registries are cached per (projectId, agentId) until the snapshot changes", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "one");
  const registry = createRegistry([{ path: root, origin: "global" }], { env: () => ({}) });
  await registry.refresh();
  const resolve = createScopeResolver(() => registry.snapshot(), {});
  const plain = resolve({});
  assert.equal(resolve(), plain);
  assert.equal(resolve({ agentId: "a" }), resolve({ agentId: "a" }));
  assert.notEqual(resolve({ agentId: "a" }), plain);
  assert.notEqual(resolve({ projectId: "a" }), resolve({ agentId: "a" }));
  const withExtras = { agentId: "a", compaction: "carry" } as { agentId: string };
  assert.equal(resolve(withExtras), resolve({ agentId: "a" }), "keys other than the scope's are ignored");

  await registry.refresh();
  assert.equal(resolve({}), plain, "an unchanged refresh keeps the snapshot and so the cache");

  writeSkill(root, "two");
  await registry.refresh();
  const fresh = resolve({});
  assert.notEqual(fresh, plain);
  assert.equal(fresh.version, plain.version + 1);
  assert.deepEqual(fresh.list().map((s) => s.name), ["one", "two"]);
  assert.deepEqual(plain.list().map((s) => s.name), ["one"], "a resolved registry keeps serving its own snapshot");
});

test("a scope's diagnostics leave out what only other agents' and projects' skills concern", async (t) => {
  const root = tempDir(t);
  const sources: SkillSource[] = [
    { path: path.join(root, "global"), origin: "global" },
    { path: path.join(root, "agent-a"), origin: "agent", agentId: "a" },
    { path: path.join(root, "agent-b"), origin: "agent", agentId: "b" },
  ];
  writeSkill(sources[0]!.path, "x");
  writeSkill(sources[1]!.path, "x");
  fs.mkdirSync(path.join(sources[2]!.path, "broken-b"), { recursive: true });
  fs.writeFileSync(path.join(sources[2]!.path, "broken-b", "SKILL.md"), "no frontmatter here\n");
  const registry = createRegistry(sources, { env: () => ({}) });
  await registry.refresh();
  const resolve = createScopeResolver(() => registry.snapshot(), {});
  const codes = (agentId?: string) => resolve(agentId === undefined ? {} : { agentId }).diagnostics().map((d) => d.code).sort();
  assert.deepEqual(codes("a"), ["shadowed"]);
  assert.equal(codes("b").length, 1);
  assert.notEqual(codes("b")[0], "shadowed");
  assert.deepEqual(codes(), []);
  assert.equal(registry.snapshot().diagnostics.length, 2, "the whole snapshot has both");
});

test("a binary installed into PATH shows after a refresh that finds the skill tree unchanged", async (t) => {
  const root = tempDir(t);
  const bin = path.join(root, "bin");
  fs.mkdirSync(bin);
  writeSkill(path.join(root, "skills"), "needs-tool", { frontmatter: "metadata:\n  requirements:\n    binary: some-tool" });
  const runtime = await createSkillRuntime({ sources: [{ path: path.join(root, "skills"), origin: "global" }], env: { PATH: bin } });
  t.after(() => runtime.close());
  const before = runtime.registry();
  assert.deepEqual(before.availability("needs-tool"), { status: "unavailable", missing: ["binary: some-tool"], optionalMissing: [] });

  fs.writeFileSync(path.join(bin, "some-tool"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  assert.equal(runtime.registry().availability("needs-tool")?.status, "unavailable", "looked up again only at a refresh");
  const outcome = await runtime.refresh();
  assert.ok(outcome.ok && !outcome.changed, "the tree and the fixed env did not change");
  assert.equal(runtime.registry(), before, "the scope's cached view survives an unchanged refresh");
  assert.deepEqual(runtime.registry().availability("needs-tool"), { status: "available", optionalMissing: [] });

  fs.rmSync(path.join(bin, "some-tool"));
  await runtime.refresh();
  assert.equal(runtime.registry().availability("needs-tool")?.status, "unavailable", "an uninstalled binary goes too");
});

test("an environment variable set in the process shows after a refresh when no env is fixed", async (t) => {
  const root = tempDir(t);
  const name = `SKILLPORT_TEST_TOKEN_${process.pid}_${path.basename(root).replace(/\W/g, "_")}`;
  writeSkill(root, "needs-token", { frontmatter: `metadata:\n  requirements:\n    env: ${name}` });
  const runtime = await createSkillRuntime({ sources: [{ path: root, origin: "global" }] });
  t.after(async () => {
    delete process.env[name];
    await runtime.close();
  });
  assert.deepEqual(runtime.registry().availability("needs-token"), { status: "unavailable", missing: [`env: ${name}`], optionalMissing: [] });

  process.env[name] = "set";
  assert.equal(runtime.registry().availability("needs-token")?.status, "unavailable", "the env snapshot is taken at load");
  await runtime.refresh();
  assert.deepEqual(runtime.registry().availability("needs-token"), { status: "available", optionalMissing: [] });
});

test("list() offers only skills whose requirements hold; get() and all() still have the others", async (t) => {
  const root = tempDir(t);
  const bin = path.join(root, "bin");
  fs.mkdirSync(bin);
  writeSkill(path.join(root, "skills"), "plain");
  writeSkill(path.join(root, "skills"), "needs-tool", { frontmatter: "metadata:\n  requirements:\n    binary: some-tool" });
  writeSkill(path.join(root, "skills"), "needs-needy", { frontmatter: "metadata:\n  requirements:\n    skill: needs-tool" });
  writeSkill(path.join(root, "skills"), "malformed", { frontmatter: "metadata:\n  requirements:\n    bogus: x" });
  const runtime = await createSkillRuntime({ sources: [{ path: path.join(root, "skills"), origin: "global" }], env: { PATH: bin } });
  t.after(() => runtime.close());
  const scoped = runtime.registry();
  assert.deepEqual(scoped.list().map((s) => s.name), ["plain"]);
  assert.deepEqual(scoped.all().map((s) => s.name).sort(), ["malformed", "needs-needy", "needs-tool", "plain"]);
  assert.equal(scoped.get("needs-tool")?.name, "needs-tool", "activation still finds it, to answer skill_unavailable");
  assert.equal(scoped.availability("malformed")?.status, "invalid");

  fs.writeFileSync(path.join(bin, "some-tool"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  await runtime.refresh();
  assert.equal(runtime.registry(), scoped, "the tree did not change, so the view is the same object");
  assert.deepEqual(scoped.list().map((s) => s.name), ["needs-needy", "needs-tool", "plain"], "offered once the binary is there, and so is its dependent");
});
