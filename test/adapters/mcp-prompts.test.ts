/** Skills as MCP prompts (SPEC §7), through the real server over stdio and the SDK's own client. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { McpError } from "@modelcontextprotocol/sdk/types.js";
import { serverCommand } from "../support/mcp-server.js";
import { makeSkill } from "../support/skill-spec.js";
import { realTempDir } from "../support/tmp.js";
import { callSkill } from "./mcp-fixtures.js";

const MISSING = "SKILLPORT_PROMPTS_TEST_NEVER_SET";

test("every skill a user may start is a prompt; getting one activates it in the connection's session, hidden skills included", async () => {
  const root = realTempDir("skillport-prompts");
  makeSkill(root, "alpha", { description: "Alpha does the first thing.", body: "# Alpha\n\nStep one." });
  makeSkill(root, "secret-step", { description: "Only a person starts this.", frontmatter: "disable-model-invocation: true", body: "# Secret\n\nStep two." });
  makeSkill(root, "gated", { frontmatter: `metadata:\n  requirements:\n    env: ${MISSING}` });
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && key !== MISSING) env[key] = value;
  const client = new Client({ name: "prompts-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ ...serverCommand(["--root", root, "--no-log"]), env, stderr: "pipe" }));
  try {
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts, [
      { name: "alpha", title: "alpha", description: "Alpha does the first thing." },
      { name: "secret-step", title: "secret-step", description: "Only a person starts this." },
    ]);
    const [tool] = (await client.listTools()).tools;
    assert.ok(!tool!.description!.includes("secret-step"), "a model-hidden skill stays out of the model's catalog");

    const alpha = await client.getPrompt({ name: "alpha" });
    assert.equal(alpha.description, "Alpha does the first thing.");
    assert.equal(alpha.messages.length, 1);
    assert.equal(alpha.messages[0]!.role, "user");
    const text = (alpha.messages[0]!.content as { type: string; text: string }).text;
    assert.ok(text.startsWith('<skill_content name="alpha">'), text);
    assert.ok(text.includes("Step one."));

    const viaTool = await callSkill(client, { name: "alpha" });
    assert.equal((viaTool.envelope.data as { status: string }).status, "loaded", "over MCP every activation answers with the content");
    const again = await client.getPrompt({ name: "alpha" });
    assert.equal((again.messages[0]!.content as { text: string }).text, text, "a prompt asked for again answers with the content again");

    const secret = await client.getPrompt({ name: "secret-step" });
    assert.ok((secret.messages[0]!.content as { text: string }).text.includes("Step two."));
    const modelTries = await callSkill(client, { name: "secret-step" });
    assert.equal(modelTries.envelope.error?.code, "skill_not_found", "the model still cannot start it");

    for (const name of ["gated", "nope"]) {
      await assert.rejects(client.getPrompt({ name }), (error: McpError) => error.code === -32602, name);
    }
  } finally {
    await client.close();
  }
});
