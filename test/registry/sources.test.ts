import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { defaultSources, groupsMeet, groupsOfScope, visibilityGroup } from "../../src/registry/sources.js";
import { tempDir } from "./skill-tree.js";

test("default sources outside a repository: the working directory's .agents, .claude and .agent skills, then the user's four, all optional", (t) => {
  const root = tempDir(t);
  const cwd = path.join(root, "proj");
  fs.mkdirSync(cwd);
  assert.deepEqual(defaultSources(cwd, "/home/me"), [
    { path: `${cwd}/.agents/skills`, origin: "project", linkRoot: cwd, optional: true },
    { path: `${cwd}/.claude/skills`, origin: "project", linkRoot: cwd, optional: true },
    { path: `${cwd}/.agent/skills`, origin: "project", linkRoot: cwd, optional: true },
    { path: "/home/me/.agents/skills", origin: "global", optional: true },
    { path: "/home/me/.claude/skills", origin: "global", optional: true },
    { path: "/home/me/.codex/skills", origin: "global", optional: true },
    { path: "/home/me/.agent/skills", origin: "global", optional: true },
  ]);
});

test("default sources inside a repository: each directory from the working one up to the root holding .git, nearest first", (t) => {
  const repo = tempDir(t);
  fs.mkdirSync(path.join(repo, ".git"));
  const deep = path.join(repo, "apps", "web");
  fs.mkdirSync(deep, { recursive: true });
  const projectPaths = defaultSources(deep, "/home/me").filter((s) => s.origin === "project").map((s) => s.path);
  assert.deepEqual(projectPaths, [
    `${deep}/.agents/skills`,
    `${deep}/.claude/skills`,
    `${deep}/.agent/skills`,
    `${repo}/apps/.agents/skills`,
    `${repo}/apps/.claude/skills`,
    `${repo}/apps/.agent/skills`,
    `${repo}/.agents/skills`,
    `${repo}/.claude/skills`,
    `${repo}/.agent/skills`,
  ]);
});

test("default sources: a worktree's .git file marks the root too, and nothing above it is searched", (t) => {
  const outer = tempDir(t);
  fs.mkdirSync(path.join(outer, ".git"));
  const worktree = path.join(outer, "wt");
  fs.mkdirSync(path.join(worktree, "src"), { recursive: true });
  fs.writeFileSync(path.join(worktree, ".git"), "gitdir: ../.git/worktrees/wt\n");
  const projectPaths = defaultSources(path.join(worktree, "src"), "/home/me").filter((s) => s.origin === "project").map((s) => s.path);
  assert.deepEqual(projectPaths.map((p) => path.relative(outer, p)), ["wt/src/.agents/skills", "wt/src/.claude/skills", "wt/src/.agent/skills", "wt/.agents/skills", "wt/.claude/skills", "wt/.agent/skills"]);
});

test("default sources: working in the home directory lists its folders once, as global", (t) => {
  const home = tempDir(t);
  assert.deepEqual(defaultSources(home, home).map((s) => [path.relative(home, s.path), s.origin]), [
    [".agents/skills", "global"],
    [".claude/skills", "global"],
    [".codex/skills", "global"],
    [".agent/skills", "global"],
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
