import assert from "node:assert/strict";
import { test } from "node:test";
import { anthropicToolDefinition } from "../../src/adapters/anthropic.js";
import { realTempDir } from "../support/tmp.js";
import { globalSource, runtimeHarness } from "../tool/harness.js";

test("the Anthropic definition carries name, description and input_schema, detached from the tool", async () => {
  const { tool } = await runtimeHarness(globalSource(realTempDir("skillport-anthropic")));
  const definition = anthropicToolDefinition(tool);
  assert.deepEqual(definition, { name: "skill", description: tool.description, input_schema: tool.inputSchema });
  definition.input_schema.properties.file_path.description = "changed";
  assert.notEqual(tool.inputSchema.properties.file_path.description, "changed");
  assert.deepEqual(Object.keys(definition.input_schema).sort(), ["properties", "type"]);
});
