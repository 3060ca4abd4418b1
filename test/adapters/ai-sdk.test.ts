import assert from "node:assert/strict";
import { test } from "node:test";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV2 } from "ai/test";
import { aiSdkSkillTool, type SkillToolSessionLike } from "../../src/adapters/ai-sdk.js";
import type { Envelope } from "../../src/tool/envelope.js";
import { renderEnvelopeText } from "../../src/tool/render.js";
import { makeSkill } from "../support/skill-spec.js";
import { realTempDir } from "../support/tmp.js";
import { globalSource, runtimeHarness } from "../tool/harness.js";

type GenerateOptions = Parameters<MockLanguageModelV2["doGenerate"]>[0];
type GenerateResult = Awaited<ReturnType<MockLanguageModelV2["doGenerate"]>>;

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

function toolCall(id: string, input: unknown): GenerateResult {
  return {
    content: [{ type: "tool-call", toolCallId: id, toolName: "skill", input: JSON.stringify(input) }],
    finishReason: "tool-calls",
    usage,
    warnings: [],
  };
}

function finalText(text: string): GenerateResult {
  return { content: [{ type: "text", text }], finishReason: "stop", usage, warnings: [] };
}

/** The tool-result texts the model was shown in a prompt, by tool call id. */
function toolResultsIn(prompt: GenerateOptions["prompt"]): Map<string, unknown> {
  const results = new Map<string, unknown>();
  for (const message of prompt) {
    if (message.role !== "tool") continue;
    for (const part of message.content) if (part.type === "tool-result") results.set(part.toolCallId, part.output);
  }
  return results;
}

const root = realTempDir("skillport-ai-sdk");
const dir = makeSkill(root, "release-notes", {
  description: "Writes release notes.",
  body: "# Release notes\n\nFollow {baseDir}/references/style.md.",
  files: { "references/style.md": "Use short sentences.\n" },
});

test("an agent loop lists, activates and reads through the AI SDK tool, and the model sees rendered text", async () => {
  const h = await runtimeHarness(globalSource(root));
  const activations: string[] = [];
  const skill = aiSdkSkillTool(h.tool, { activateSkill: (name) => (activations.push(name), true) });
  const script = [
    toolCall("c1", {}),
    toolCall("c2", { name: "release-notes" }),
    toolCall("c3", { name: "release-notes", file_path: "references/style.md" }),
    toolCall("c4", { name: "release-notes", mode: "x" }),
    finalText("done"),
  ];
  const prompts: GenerateOptions["prompt"][] = [];
  const model = new MockLanguageModelV2({
    doGenerate: async (options) => {
      prompts.push(options.prompt);
      return script[prompts.length - 1]!;
    },
  });

  const result = await generateText({ model, tools: { skill }, prompt: "Write release notes.", stopWhen: stepCountIs(10) });

  assert.equal(result.text, "done");
  assert.equal(result.steps.length, 5);
  const outputs = result.steps.flatMap((step) => step.toolResults.map((r) => r.output as Envelope));
  assert.deepEqual(
    outputs.map((envelope) => (envelope.ok ? (envelope.data as { status?: string }).status ?? "list" : envelope.error!.code)),
    ["list", "loaded", "file_loaded", "invalid_arguments"],
  );
  assert.deepEqual(activations, ["release-notes"], "only the activation reached the hook");

  const seen = toolResultsIn(prompts[4]!);
  assert.deepEqual(seen.get("c1"), { type: "text", value: renderEnvelopeText(outputs[0]!) });
  const loadedText = (seen.get("c2") as { value: string }).value;
  assert.ok(loadedText.startsWith('<skill_content name="release-notes">'), loadedText);
  assert.ok(loadedText.includes(`Follow ${dir}/references/style.md.`));
  assert.ok(loadedText.includes(`Skill directory: ${dir}`));
  assert.ok(loadedText.includes("<file>references/style.md</file>"));
  assert.deepEqual(seen.get("c3"), { type: "text", value: "Use short sentences.\n" });
  assert.match((seen.get("c4") as { value: string }).value, /"mode"/);

  const offered = model.doGenerateCalls[0]!.tools ?? [];
  assert.equal(offered.length, 1);
  assert.deepEqual((offered[0] as { inputSchema: unknown }).inputSchema, h.tool.inputSchema);
});

test("a session-like host is called with the tool call id and rendered through the same function", async () => {
  const { tool } = await runtimeHarness(globalSource(root));
  const calls: Array<string | undefined> = [];
  const session: SkillToolSessionLike = {
    tool: { name: tool.name, description: tool.description, inputSchema: tool.inputSchema },
    call: async (args, options) => {
      calls.push(options?.toolCallId);
      return tool.call(args);
    },
  };
  const model = new MockLanguageModelV2({ doGenerate: [toolCall("s1", { name: "nope" }), finalText("ok")] });
  const result = await generateText({ model, tools: { skill: aiSdkSkillTool(session) }, prompt: "x", stopWhen: stepCountIs(3) });
  assert.deepEqual(calls, ["s1"]);
  const envelope = result.steps[0]!.toolResults[0]!.output as Envelope;
  assert.equal(envelope.error!.code, "skill_not_found");
  const shown = toolResultsIn(model.doGenerateCalls[1]!.prompt).get("s1");
  assert.deepEqual(shown, { type: "text", value: envelope.error!.message });
});

test("an envelope parsed back from storage still renders, without the directory line", async () => {
  const { tool } = await runtimeHarness(globalSource(root));
  const skill = aiSdkSkillTool(tool);
  const envelope = await tool.call({ name: "release-notes" });
  const stored = JSON.parse(JSON.stringify(envelope)) as Envelope;
  const output = skill.toModelOutput!(stored);
  assert.equal(output.type, "text");
  assert.ok((output as { value: string }).value.startsWith('<skill_content name="release-notes">'));
  assert.ok(!(output as { value: string }).value.includes("Skill directory:"));
});

test("a runtime session drives the AI SDK tool: dedup across steps, call ids recorded", async () => {
  const { runtime } = await runtimeHarness(globalSource(root));
  const session = runtime.session({ log: false });
  const model = new MockLanguageModelV2({
    doGenerate: [toolCall("r1", { name: "release-notes" }), toolCall("r2", { name: "release-notes" }), finalText("ok")],
  });
  const result = await generateText({ model, tools: { skill: aiSdkSkillTool(session) }, prompt: "x", stopWhen: stepCountIs(5) });
  const statuses = result.steps.flatMap((step) => step.toolResults.map((r) => ((r.output as Envelope).data as { status: string }).status));
  assert.deepEqual(statuses, ["loaded", "already_active"]);
  assert.deepEqual(session.loaded(), ["release-notes"]);
  const shown = toolResultsIn(model.doGenerateCalls[2]!.prompt);
  assert.ok((shown.get("r1") as { value: string }).value.includes(`Skill directory: ${dir}`), "sessions render with the directory");
  assert.match(JSON.stringify(session.history()), /"r1"/);
  session.close();
});
