/**
 * Skills written for Claude Code, served over MCP to the SDK's own client (SPEC §1 table, §7
 * prompts): prompt arguments and their substitution, `user-invocable: false`, `when_to_use` in
 * the catalog, `${CLAUDE_SKILL_DIR}`, and `` !`command` `` lines kept as text.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { McpError } from "@modelcontextprotocol/sdk/types.js";
import type { ListData, LoadedData } from "../../src/tool/envelope.js";
import { serverCommand } from "../support/mcp-server.js";
import { makeSkill } from "../support/skill-spec.js";
import { realTempDir } from "../support/tmp.js";
import { callSkill, dataOf } from "./mcp-fixtures.js";

const root = realTempDir("skillport-claude-fields");
const marker = path.join(root, "command-ran");
const fixDir = makeSkill(root, "fix-issue", {
  description: "Fixes one issue.",
  frontmatter: 'argument-hint: "[issue-number] [priority]"',
  body: "Fix issue $ARGUMENTS now. First word: $0. Second: $ARGUMENTS[1]. Third: $2. Again: $ARGUMENTS.",
});
makeSkill(root, "rename", {
  description: "Renames a symbol.",
  frontmatter: "arguments: [old-name, new-name]",
  body: "Rename $old-name to $new-name (all: $ARGUMENTS).",
});
makeSkill(root, "plain-args", { description: "Takes text but names no placeholder.", frontmatter: "argument-hint: <topic>", body: "Write about the topic." });
makeSkill(root, "no-args", { description: "Takes nothing.", body: "Costs $5; nothing to put in." });
makeSkill(root, "helper", {
  description: "A helper only the model starts.",
  frontmatter: "user-invocable: false\nwhen_to_use: When another skill asks for the helper.",
  body: "Help.",
});
makeSkill(root, "located", {
  description: "Uses its own folder.",
  body: `Run \${CLAUDE_SKILL_DIR}/scripts/go.sh and {baseDir}/scripts/go.sh; keep \${CLAUDE_PLUGIN_ROOT} as written.\n\n!\`touch ${marker}\`\n`,
  files: { "scripts/go.sh": "#!/bin/sh\n" },
});

let client: Client;

before(async () => {
  client = new Client({ name: "claude-fields-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ ...serverCommand(["--root", root, "--no-log"]), stderr: "pipe" }));
});
after(() => client?.close());

const textOf = (result: Awaited<ReturnType<Client["getPrompt"]>>): string => (result.messages[0]!.content as { type: string; text: string }).text;

/** The skill's text inside `<skill_content>`, up to the directory line. */
function bodyOf(text: string): string {
  const start = text.indexOf("\n") + 1;
  return text.slice(start, text.indexOf("\n\nSkill directory:"));
}

test("a skill that takes text declares prompt arguments: `arguments` (the hint) and one per name it lists", async () => {
  const { prompts } = await client.listPrompts();
  const byName = new Map(prompts.map((prompt) => [prompt.name, prompt]));
  const fix = byName.get("fix-issue")!.arguments!;
  assert.deepEqual(fix.map((a) => [a.name, a.required]), [["arguments", false]]);
  assert.match(fix[0]!.description!, /^\[issue-number\] \[priority\]/);
  assert.deepEqual(byName.get("rename")!.arguments!.map((a) => a.name), ["arguments", "old-name", "new-name"]);
  assert.deepEqual(byName.get("plain-args")!.arguments!.map((a) => a.name), ["arguments"]);
  assert.equal(byName.get("no-args")!.arguments, undefined, "no hint, no names, no $ARGUMENTS: no arguments");
});

test("prompts/get puts the text in as Claude Code does: raw text, shell-split words (0-based), a missing word left as written", async () => {
  const got = await client.getPrompt({ name: "fix-issue", arguments: { arguments: '123 "very high"' } });
  assert.equal(bodyOf(textOf(got)), 'Fix issue 123 "very high" now. First word: 123. Second: very high. Third: $2. Again: 123 "very high".');
});

test("edge cases: a $ in the text is put in as typed, $ARGUMENTS twice, single quotes, and no text at all", async () => {
  const dollar = await client.getPrompt({ name: "fix-issue", arguments: { arguments: "$HOME '$1 $&' x" } });
  assert.equal(bodyOf(textOf(dollar)), "Fix issue $HOME '$1 $&' x now. First word: $HOME. Second: $1 $&. Third: x. Again: $HOME '$1 $&' x.");
  const none = await client.getPrompt({ name: "fix-issue" });
  assert.equal(bodyOf(textOf(none)), "Fix issue  now. First word: $0. Second: $ARGUMENTS[1]. Third: $2. Again: .");
  const empty = await client.getPrompt({ name: "fix-issue", arguments: { arguments: "" } });
  assert.equal(textOf(empty), textOf(none), "an empty field is no text");
  const openQuote = await client.getPrompt({ name: "fix-issue", arguments: { arguments: "it's broken" } });
  assert.equal(bodyOf(textOf(openQuote)), "Fix issue it's broken now. First word: it's. Second: broken. Third: $2. Again: it's broken.", "an open quote splits at blanks");
});

test("named arguments: from the text by position, or given by name", async () => {
  const fromText = await client.getPrompt({ name: "rename", arguments: { arguments: "Foo Bar" } });
  assert.equal(bodyOf(textOf(fromText)), "Rename Foo to Bar (all: Foo Bar).");
  const byName = await client.getPrompt({ name: "rename", arguments: { "old-name": "Foo", "new-name": "Big Bar" } });
  assert.equal(bodyOf(textOf(byName)), "Rename Foo to Big Bar (all: Foo 'Big Bar').");
  const missing = await client.getPrompt({ name: "rename", arguments: { arguments: "Foo" } });
  assert.equal(bodyOf(textOf(missing)), "Rename Foo to $new-name (all: Foo).");
  await assert.rejects(client.getPrompt({ name: "rename", arguments: { nonsense: "x" } }), (error: McpError) => error.code === -32602 && /nonsense/.test(error.message));
});

test("a body with no placeholder gets ARGUMENTS: <text> appended when text is given, and nothing otherwise", async () => {
  const given = await client.getPrompt({ name: "plain-args", arguments: { arguments: "tide pools" } });
  assert.equal(bodyOf(textOf(given)), "Write about the topic.\n\nARGUMENTS: tide pools");
  const none = await client.getPrompt({ name: "plain-args" });
  assert.equal(bodyOf(textOf(none)), "Write about the topic.");
  const plain = await client.getPrompt({ name: "no-args" });
  assert.equal(bodyOf(textOf(plain)), "Costs $5; nothing to put in.", "a missing $5 stays as written");
});

test("the skill tool's activation substitutes nothing", async () => {
  const loaded = dataOf<LoadedData>(await callSkill(client, { name: "fix-issue" }));
  assert.equal(loaded.content, "Fix issue $ARGUMENTS now. First word: $0. Second: $ARGUMENTS[1]. Third: $2. Again: $ARGUMENTS.");
});

test("user-invocable: false is no prompt, yet in the model's catalog and activatable", async () => {
  const { prompts } = await client.listPrompts();
  assert.ok(!prompts.some((prompt) => prompt.name === "helper"));
  await assert.rejects(client.getPrompt({ name: "helper" }), (error: McpError) => error.code === -32602);
  const [tool] = (await client.listTools()).tools;
  assert.match(tool!.description!, /<name>helper<\/name>/);
  assert.equal(dataOf<LoadedData>(await callSkill(client, { name: "helper" })).status, "loaded");
});

test("when_to_use follows the description, joined as Claude Code joins them, in the tool description and the {} listing", async () => {
  const joined = "A helper only the model starts. - When another skill asks for the helper.";
  const [tool] = (await client.listTools()).tools;
  assert.ok(tool!.description!.includes(`<description>${joined}</description>`), tool!.description);
  const listed = dataOf<ListData>(await callSkill(client, {})).skill_groups.flatMap((group) => group.skills);
  assert.equal(listed.find((skill) => skill.name === "helper")!.description, joined);
  assert.equal(listed.find((skill) => skill.name === "no-args")!.description, "Takes nothing.");
});

test("${CLAUDE_SKILL_DIR} is filled like {baseDir}; a !`command` line is never run and stays text", async () => {
  const dir = fs.realpathSync(path.join(root, "located"));
  const loaded = dataOf<LoadedData>(await callSkill(client, { name: "located" }));
  assert.equal(loaded.content.split("\n")[0], `Run ${dir}/scripts/go.sh and ${dir}/scripts/go.sh; keep \${CLAUDE_PLUGIN_ROOT} as written.`);
  assert.ok(loaded.content.includes(`!\`touch ${marker}\``));
  const prompt = textOf(await client.getPrompt({ name: "located" }));
  assert.ok(prompt.includes(`Run ${dir}/scripts/go.sh`) && prompt.includes("!`touch"));
  assert.equal(fs.existsSync(marker), false, "the command never ran");
  assert.ok(fixDir.length > 0);
});
