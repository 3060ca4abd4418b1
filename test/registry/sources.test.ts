import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultSources, groupsMeet, groupsOfScope, visibilityGroup } from "../../src/registry/sources.js";

test("default sources: the project's .agents and .claude skills, then the user's", () => {
  assert.deepEqual(defaultSources("/srv/proj", "/home/me"), [
    { path: "/srv/proj/.agents/skills", origin: "project" },
    { path: "/srv/proj/.claude/skills", origin: "project" },
    { path: "/home/me/.agents/skills", origin: "global" },
    { path: "/home/me/.claude/skills", origin: "global" },
  ]);
});

test("visibility groups: agents and projects meet everything but their own kind", () => {
  const shared = visibilityGroup({ origin: "bundled" });
  assert.equal(shared, visibilityGroup({ origin: "global" }));
  const agentA = visibilityGroup({ origin: "agent", agentId: "a" });
  const agentB = visibilityGroup({ origin: "agent", agentId: "b" });
  const projectP = visibilityGroup({ origin: "project", projectId: "p" });
  const projectQ = visibilityGroup({ origin: "project", projectId: "q" });
  assert.equal(groupsMeet(agentA, agentB), false);
  assert.equal(groupsMeet(projectP, projectQ), false);
  assert.equal(groupsMeet(agentA, projectP), true);
  assert.equal(groupsMeet(agentA, shared), true);
  assert.equal(groupsMeet(projectQ, shared), true);
  assert.equal(groupsMeet(agentA, agentA), true);
  assert.deepEqual([...groupsOfScope({ agentId: "a", projectId: "p" })].sort(), [agentA, projectP, shared].sort());
  assert.deepEqual([...groupsOfScope({})].sort(), [visibilityGroup({ origin: "project" }), shared].sort());
});
