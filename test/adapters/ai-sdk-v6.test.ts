/**
 * The adapter on ai 6 (installed here as the alias `ai6`): the same tool code the public module
 * builds with ai 5, driven by ai 6's own agent loop, whose `toModelOutput` takes
 * `{ toolCallId, input, output }` instead of the output itself.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as ai6 from "ai6";
import { MockLanguageModelV3 } from "ai6/test";
import { buildAiSdkSkillTool } from "../../src/adapters/ai-sdk-tool.js";
import type { Envelope } from "../../src/tool/envelope.js";
import { renderEnvelopeText } from "../../src/tool/render.js";
import { makeSkill } from "../support/skill-spec.js";
import { realTempDir } from "../support/tmp.js";
import { globalSource, runtimeHarness } from "../tool/harness.js";

type GenerateOptions = Parameters<MockLanguageModelV3["doGenerate"]>[0];
type GenerateResult = Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>;

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

function toolCall(id: string, input: unknown): GenerateResult {
  return {
    content: [{ type: "tool-call", toolCallId: id, toolName: "skill", input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls", raw: "tool_calls" },
    usage,
    warnings: [],
  };
}

function finalText(text: string): GenerateResult {
  return { content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
}

function toolResultsIn(prompt: GenerateOptions["prompt"]): Map<string, unknown> {
  const results = new Map<string, unknown>();
  for (const message of prompt) {
    if (message.role !== "tool") continue;
    for (const part of message.content) if (part.type === "tool-result") results.set(part.toolCallId, part.output);
  }
  return results;
}

const root = realTempDir("skillport-ai-sdk6");
const dir = makeSkill(root, "release-notes", {
  description: "Writes release notes.",
  body: "# Release notes\n\nFollow {baseDir}/references/style.md.",
  files: { "references/style.md": "Use short sentences.\n" },
});

test("on ai 6 an agent loop lists, activates and reads through the tool, and the model sees the rendered text", async () => {
  const { runtime } = await runtimeHarness(globalSource(root));
  const session = runtime.session({ log: false });
  const skill = buildAiSdkSkillTool(ai6, session);
  const script = [
    toolCall("c1", {}),
    toolCall("c2", { name: "release-notes" }),
    toolCall("c3", { name: "release-notes", file_path: "references/style.md" }),
    toolCall("c4", { name: "release-notes" }),
    toolCall("c5", { name: "release-notes", mode: "x" }),
    finalText("done"),
  ];
  const prompts: GenerateOptions["prompt"][] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      prompts.push(options.prompt);
      return script[prompts.length - 1]!;
    },
  });

  const result = await ai6.generateText({ model, tools: { skill: skill as never }, prompt: "Write release notes.", stopWhen: ai6.stepCountIs(10) });

  assert.equal(result.text, "done");
  const outputs = result.steps.flatMap((step) => step.toolResults.map((r) => r.output as Envelope));
  assert.deepEqual(
    outputs.map((envelope) => (envelope.ok ? (envelope.data as { status?: string }).status ?? "list" : envelope.error!.code)),
    ["list", "loaded", "file_loaded", "already_active", "invalid_arguments"],
  );
  const seen = toolResultsIn(prompts[5]!);
  assert.deepEqual(seen.get("c1"), { type: "text", value: renderEnvelopeText(outputs[0]!) });
  const loadedText = (seen.get("c2") as { value: string }).value;
  assert.ok(loadedText.startsWith('<skill_content name="release-notes">'), loadedText);
  assert.ok(loadedText.includes(`Skill directory: ${dir}`), "rendered with the directory the session knows");
  assert.deepEqual(seen.get("c3"), { type: "text", value: "Use short sentences.\n" });
  assert.match((seen.get("c5") as { value: string }).value, /"mode"/);
  assert.deepEqual((model.doGenerateCalls[0]!.tools?.[0] as { inputSchema: unknown }).inputSchema, session.tool.inputSchema);
  session.close();
});
