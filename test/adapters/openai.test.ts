import assert from "node:assert/strict";
import { test } from "node:test";
import { openAIToolDefinition } from "../../src/adapters/openai.js";
import { realTempDir } from "../support/tmp.js";
import { globalSource, runtimeHarness } from "../tool/harness.js";

test("the OpenAI definition is a function tool carrying the exact schema, detached from the tool", async () => {
  const { tool } = await runtimeHarness(globalSource(realTempDir("skillport-openai")));
  const definition = openAIToolDefinition(tool);
  assert.deepEqual(definition, {
    type: "function",
    function: { name: "skill", description: tool.description, parameters: tool.inputSchema },
  });
  assert.ok(!("strict" in definition.function));
  definition.function.parameters.properties.name.description = "changed";
  assert.notEqual(tool.inputSchema.properties.name.description, "changed");
  assert.deepEqual(JSON.parse(JSON.stringify(definition)), definition, "plain JSON");
});
