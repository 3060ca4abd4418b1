// skill_manage beside `skill` in the plain tool definitions and the AI SDK (SPEC §11, §7).
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV2 } from "ai/test";
import { aiSdkManageTool, aiSdkSkillTool } from "../../src/adapters/ai-sdk.js";
import { anthropicToolDefinition } from "../../src/adapters/anthropic.js";
import { openAIToolDefinition } from "../../src/adapters/openai.js";
import { createSkillRuntime } from "../../src/runtime.js";
import type { Envelope } from "../../src/tool/envelope.js";
import { realTempDir } from "../support/tmp.js";

const T = { timeout: 60_000 };
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

async function authoringSession(t: { after(fn: () => unknown): void }, writable = true) {
  const dir = realTempDir("skillport-manage-adapters");
  const runtime = await createSkillRuntime({ sources: [{ path: dir, origin: "project", writable }], env: {} });
  t.after(() => runtime.close());
  const session = runtime.session();
  t.after(() => session.close());
  return { dir, session };
}

test("OpenAI and Anthropic definitions of skill_manage carry its exact flat schema, detached", T, async (t) => {
  const { session } = await authoringSession(t);
  const manage = session.manageTool!;
  const openai = openAIToolDefinition(manage);
  assert.deepEqual(openai, { type: "function", function: { name: "skill_manage", description: manage.description, parameters: manage.inputSchema } });
  const anthropic = anthropicToolDefinition(manage);
  assert.deepEqual(anthropic, { name: "skill_manage", description: manage.description, input_schema: manage.inputSchema });
  assert.deepEqual(Object.keys(manage.inputSchema).sort(), ["properties", "type"], "no required, no additionalProperties");
  (anthropic.input_schema.properties as { name: { description: string } }).name.description = "changed";
  assert.notEqual(manage.inputSchema.properties.name.description, "changed");
});

test("the AI SDK tool for skill_manage is null without a writable source", T, async (t) => {
  const { session } = await authoringSession(t, false);
  assert.equal(aiSdkManageTool(session), null);
});

test("an AI SDK agent loop creates a skill with skill_manage and loads it with skill in the next step", T, async (t) => {
  const { dir, session } = await authoringSession(t);
  const skill = aiSdkSkillTool(session);
  const skillManage = aiSdkManageTool(session)!;
  const content = "---\nname: learned\ndescription: What the agent learned.\n---\n\nDo it this way.\n";
  const script = [
    { toolName: "skill_manage", input: { action: "create", name: "learned", content } },
    { toolName: "skill", input: { name: "learned" } },
  ];
  let step = 0;
  const model = new MockLanguageModelV2({
    doGenerate: async () => {
      const call = script[step];
      step += 1;
      if (!call) return { content: [{ type: "text", text: "done" }], finishReason: "stop", usage, warnings: [] };
      return { content: [{ type: "tool-call", toolCallId: `c${step}`, toolName: call.toolName, input: JSON.stringify(call.input) }], finishReason: "tool-calls", usage, warnings: [] };
    },
  });
  const result = await generateText({ model, tools: { skill, skill_manage: skillManage }, prompt: "Keep what you learned.", stopWhen: stepCountIs(5) });
  const outputs = result.steps.flatMap((s) => s.toolResults.map((r) => r.output as Envelope));
  assert.deepEqual(outputs.map((e) => (e.ok ? (e.data as { status: string }).status : e.error.code)), ["created", "loaded"]);
  assert.equal(fs.readFileSync(path.join(dir, "learned", "SKILL.md"), "utf8"), content);
  const offered = (model.doGenerateCalls[0]!.tools ?? []).map((tool) => (tool as { name: string }).name).sort();
  assert.deepEqual(offered, ["skill", "skill_manage"]);
  assert.deepEqual(
    session.history().filter((r) => r.type === "call").map((r) => r.type === "call" && [r.tool ?? "skill", r.toolCallId]),
    [
      ["skill_manage", "c1"],
      ["skill", "c2"],
    ],
  );
});
