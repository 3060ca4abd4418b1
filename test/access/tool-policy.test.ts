import assert from "node:assert/strict";
import { test } from "node:test";
import { effectiveTools, isToolEffective, PROJECT_DEFAULT_ALLOWED_TOOLS, type ToolPolicyContext } from "../../src/access/tool-policy.js";

test("the project default whitelist contains skill and cannot be changed", () => {
  assert.ok(PROJECT_DEFAULT_ALLOWED_TOOLS.includes("skill"));
  assert.ok(Object.isFrozen(PROJECT_DEFAULT_ALLOWED_TOOLS));
});

const table: [string, ToolPolicyContext, boolean][] = [
  ["no policy at all", {}, true],
  ["agent allows every tool", { agent: { allowedTools: ["*"] } }, true],
  ["agent allows skill by name", { agent: { allowedTools: ["read", "skill"] } }, true],
  ["agent allows other tools only", { agent: { allowedTools: ["read"] } }, false],
  ["agent allows nothing", { agent: { allowedTools: [] } }, false],
  ["agent denies skill", { agent: { deniedTools: ["skill"] } }, false],
  ["agent denies everything", { agent: { deniedTools: ["*"] } }, false],
  ["denied wins over allowed", { agent: { allowedTools: ["*"], deniedTools: ["skill"] } }, false],
  ["agent denies another tool", { agent: { deniedTools: ["bash"] } }, true],
  ["in a project with the default whitelist", { project: {} }, true],
  ["in a project whose whitelist leaves skill out", { project: { toolWhitelist: ["read"] } }, false],
  ["in a project whose whitelist is empty", { project: { toolWhitelist: [] } }, false],
  ["in a project whose whitelist is *", { project: { toolWhitelist: ["*"] } }, true],
  ["project allows it, agent does not", { project: {}, agent: { allowedTools: ["read"] } }, false],
  ["agent allows it, project does not", { project: { toolWhitelist: ["read"] }, agent: { allowedTools: ["*"] } }, false],
  ["both allow it, agent denies it", { project: { toolWhitelist: ["skill"] }, agent: { deniedTools: ["skill"] } }, false],
];

for (const [name, context, expected] of table) {
  test(`skill tool effective: ${name} → ${expected}`, () => {
    assert.equal(isToolEffective("skill", context), expected);
  });
}

test("effective tools = project whitelist ∩ allowed − denied, in the order given", () => {
  const tools = ["read", "skill", "bash", "write"];
  assert.deepEqual(effectiveTools(tools, {}), tools);
  assert.deepEqual(effectiveTools(tools, { project: {} }), ["skill"]);
  assert.deepEqual(
    effectiveTools(tools, { project: { toolWhitelist: ["read", "skill", "bash"] }, agent: { allowedTools: ["skill", "bash", "write"], deniedTools: ["bash"] } }),
    ["skill"],
  );
  assert.deepEqual(effectiveTools(tools, { project: { toolWhitelist: ["*"] }, agent: { deniedTools: ["write"] } }), ["read", "skill", "bash"]);
});
