import assert from "node:assert/strict";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { buildScopedRegistry } from "../../src/access/scoped-registry.js";
import { policiesOfScope, type SkillPolicies } from "../../src/access/skill-policy.js";
import type { Scope } from "../../src/access/types.js";
import { createRegistry } from "../../src/registry/registry.js";
import type { RegistrySnapshot, SkillSource } from "../../src/registry/types.js";
import { tempDir, writeSkill } from "../registry/skill-tree.js";

const policies: SkillPolicies = {
  agents: {
    restricted: { allowedSkills: ["g-only"] },
    nothing: { allowedSkills: [] },
    star: { allowedSkills: ["*"], excludedSkills: ["excluded-one"] },
    excluder: { excludedSkills: ["common", "b-only"] },
  },
  projects: {
    p: { disabledSkills: ["p-disabled"], sharedSkills: ["b-only"] },
    "opts-in-excluded": { sharedSkills: ["excluded-one"] },
    "disables-own-common": { disabledSkills: ["common"] },
  },
};

/** One tree with every kind of skill; `common` exists in several origins. */
async function fixture(t: TestContext): Promise<RegistrySnapshot> {
  const root = tempDir(t);
  const at = (name: string) => path.join(root, name);
  const sources: SkillSource[] = [
    { path: at("bundled"), origin: "bundled" },
    { path: at("global"), origin: "global" },
    { path: at("project-p"), origin: "project", projectId: "p" },
    { path: at("project-q"), origin: "project", projectId: "q" },
    { path: at("project-own-common"), origin: "project", projectId: "disables-own-common" },
    { path: at("agent-a"), origin: "agent", agentId: "a" },
    { path: at("agent-b"), origin: "agent", agentId: "b" },
  ];
  const put = (dir: string, name: string, frontmatter = "") => writeSkill(at(dir), name, { description: `${name} in ${dir}.`, frontmatter });
  put("bundled", "b-only");
  put("bundled", "common");
  put("global", "g-only");
  put("global", "common");
  put("global", "excluded-one");
  put("global", "hidden", "disable-model-invocation: true");
  put("project-p", "p-only");
  put("project-p", "p-disabled");
  put("project-p", "common");
  put("project-q", "q-only");
  put("project-own-common", "common");
  put("project-own-common", "own-extra");
  put("agent-a", "a-private");
  put("agent-a", "common");
  put("agent-b", "b-private");
  const registry = createRegistry(sources, { env: () => ({}) });
  const outcome = await registry.refresh();
  assert.ok(outcome.ok);
  return outcome.snapshot;
}

const SHARED = ["common", "excluded-one", "g-only", "hidden", "b-only"];

/** Scope → the skills `all()` shows (origin precedence, then name) and where its `common` comes from. */
const table: { scope: Scope; all: string[]; common: string | null }[] = [
  { scope: {}, all: SHARED, common: "global" },
  { scope: { agentId: "unknown-agent" }, all: SHARED, common: "global" },
  { scope: { agentId: "a" }, all: ["a-private", "common", ...SHARED.filter((n) => n !== "common")], common: "agent-a" },
  { scope: { agentId: "b" }, all: ["b-private", ...SHARED], common: "global" },
  { scope: { agentId: "restricted" }, all: ["g-only"], common: null },
  { scope: { agentId: "nothing" }, all: [], common: null },
  { scope: { agentId: "star" }, all: SHARED.filter((n) => n !== "excluded-one"), common: "global" },
  { scope: { agentId: "excluder" }, all: ["excluded-one", "g-only", "hidden"], common: null },
  { scope: { projectId: "p" }, all: ["common", "p-only", ...SHARED.filter((n) => n !== "common")], common: "project-p" },
  { scope: { projectId: "p", agentId: "nothing" }, all: ["common", "p-only", "b-only"], common: "project-p" },
  { scope: { projectId: "p", agentId: "excluder" }, all: ["common", "p-only", "excluded-one", "g-only", "hidden", "b-only"], common: "project-p" },
  { scope: { projectId: "p", agentId: "a" }, all: ["a-private", "common", "p-only", ...SHARED.filter((n) => n !== "common")], common: "agent-a" },
  { scope: { projectId: "q" }, all: ["q-only", ...SHARED], common: "global" },
  { scope: { projectId: "unknown-project" }, all: SHARED, common: "global" },
  { scope: { projectId: "opts-in-excluded", agentId: "star" }, all: SHARED, common: "global" },
  { scope: { projectId: "disables-own-common" }, all: ["own-extra", ...SHARED], common: "global" },
];

test("skill policy table: which skills each scope sees, and which copy of a shared name", async (t) => {
  const snapshot = await fixture(t);
  for (const row of table) {
    const scoped = buildScopedRegistry(snapshot, row.scope, policies);
    const label = JSON.stringify(row.scope);
    assert.deepEqual(
      scoped.all().map((s) => s.name),
      row.all,
      label,
    );
    const common = scoped.all().find((s) => s.name === "common");
    assert.equal(common ? path.basename(path.dirname(common.dir)) : null, row.common, label);
    assert.deepEqual(
      scoped.list().map((s) => s.name),
      row.all.filter((n) => n !== "hidden"),
      `${label}: list() leaves model-hidden skills out`,
    );
  }
});

test("a skill the scope may not use is indistinguishable from a missing one", async (t) => {
  const snapshot = await fixture(t);
  const asB = buildScopedRegistry(snapshot, { agentId: "b" }, policies);
  for (const refused of ["a-private", "p-only", "q-only"]) {
    assert.equal(asB.get(refused), undefined);
    assert.equal(asB.availability(refused), undefined);
    assert.equal(asB.all().some((s) => s.name === refused), false);
  }
  assert.equal(asB.get("no-such-skill"), undefined);
  assert.equal(asB.availability("no-such-skill"), undefined);
  const nothing = buildScopedRegistry(snapshot, { agentId: "nothing" }, policies);
  assert.deepEqual(nothing.list(), []);
  assert.equal(nothing.get("g-only"), undefined);
  const disabled = buildScopedRegistry(snapshot, { projectId: "p" }, policies);
  assert.equal(disabled.get("p-disabled"), undefined);
});

test("disable-model-invocation skills: absent from list() and get(), present in all() with an availability", async (t) => {
  const snapshot = await fixture(t);
  const scoped = buildScopedRegistry(snapshot, {}, policies);
  assert.equal(scoped.get("hidden"), undefined);
  assert.equal(scoped.list().some((s) => s.name === "hidden"), false);
  assert.ok(scoped.all().some((s) => s.name === "hidden"));
  assert.deepEqual(scoped.availability("hidden"), { status: "available", optionalMissing: [] });
});

test("list() gives the public face of each skill in origin precedence, then name", async (t) => {
  const snapshot = await fixture(t);
  const scoped = buildScopedRegistry(snapshot, { agentId: "a", projectId: "p" }, policies);
  const first = scoped.list()[0]!;
  assert.deepEqual(Object.keys(first).sort(), ["description", "dir", "label", "name", "origin"]);
  assert.equal(first.name, "a-private");
  assert.equal(first.origin, "agent");
  assert.equal(first.label, "Private");
  assert.deepEqual(
    scoped.list().map((s) => s.origin),
    ["agent", "agent", "project", "global", "global", "bundled"],
  );
  scoped.list()[0]!.name = "mutated";
  assert.equal(scoped.list()[0]!.name, "a-private", "callers cannot change the registry through list()");
});

test("the scoped registry reports whether the skill tool is effective for its scope", async (t) => {
  const snapshot = await fixture(t);
  const withTools: SkillPolicies = {
    agents: { denied: { deniedTools: ["skill"] } },
    projects: { locked: { toolWhitelist: ["read"] }, open: {} },
  };
  assert.equal(buildScopedRegistry(snapshot, {}, withTools).toolAvailable, true);
  assert.equal(buildScopedRegistry(snapshot, { projectId: "open" }, withTools).toolAvailable, true);
  assert.equal(buildScopedRegistry(snapshot, { projectId: "unconfigured" }, withTools).toolAvailable, true);
  assert.equal(buildScopedRegistry(snapshot, { projectId: "locked" }, withTools).toolAvailable, false);
  assert.equal(buildScopedRegistry(snapshot, { agentId: "denied" }, withTools).toolAvailable, false);
});

test("an agent or project named like an Object.prototype member has no policy but its own", () => {
  const policies: SkillPolicies = { agents: { reviewer: { allowedSkills: ["a"] } }, projects: {} };
  for (const id of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
    assert.deepEqual(policiesOfScope({ agentId: id, projectId: id }, policies), { agent: undefined, project: {} }, id);
  }
  assert.deepEqual(policiesOfScope({ agentId: "reviewer" }, policies).agent, { allowedSkills: ["a"] });
});
