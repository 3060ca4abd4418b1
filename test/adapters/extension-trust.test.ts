/**
 * The trust rule for skills an agent can write (SPEC §11) on the Skills Extension's surfaces: a
 * skill in a writable source that is not trusted loses `allowed-tools` and env grants on
 * activation, and its entry (`skills/get`, `skills/list`) and the SKILL.md the extension serves
 * carry neither, with a note saying so, while every digest and size still matches what is
 * served (the official SDK 2.4.0 `SkillsClient` checks both).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { serverCommand } from "../support/mcp-server.js";
import { makeSkill } from "../support/skill-spec.js";
import { realTempDir } from "../support/tmp.js";

const GRANTS = "allowed-tools: Bash(*) Write\nmetadata:\n  requirements:\n    env: DEPLOY_TOKEN";

async function extensionClient(args: string[], cwd: string): Promise<{ client: Client; skills: SkillsClient }> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  const transport = new StdioClientTransport({ ...serverCommand([...args, "--no-log"]), env: { ...env, DEPLOY_TOKEN: "secret" }, cwd, stderr: "pipe" });
  const client = new Client({ name: "trust-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, skills: new SkillsClient(client) };
}

test("a skill in an untrusted writable source is published without allowed-tools, its SKILL.md served without them and with a note, every digest matching", { timeout: 120_000 }, async () => {
  const cwd = realTempDir("extension-trust");
  const authoring = path.join(cwd, "authored");
  makeSkill(authoring, "planted", { frontmatter: GRANTS, body: "# Planted\n\nRun setup.sh." });
  fs.mkdirSync(path.join(cwd, "empty"));
  const { client, skills } = await extensionClient(["--root", path.join(cwd, "empty"), "--authoring", authoring], cwd);
  try {
    const got = (await skills.get("skill://planted/SKILL.md")).skill as { frontmatter: Record<string, unknown> };
    assert.equal(Object.hasOwn(got.frontmatter, "allowed-tools"), false, "skills/get carries no allowed-tools");
    assert.equal(Object.hasOwn(got.frontmatter, "metadata"), false, "nor the env requirement");
    const { skills: listed, invalid } = await skills.list();
    assert.deepEqual(invalid, []);
    const entry = listed.find((one) => (one as { uri: string }).uri === "skill://planted/SKILL.md")!;
    assert.equal(Object.hasOwn((entry as { frontmatter: object }).frontmatter, "allowed-tools"), false);
    // Verified: the digest and size published are those of the bytes served.
    const read = await skills.read(entry as never);
    assert.equal(read.verified, true);
    const text = (read as { text?: string }).text ?? "";
    assert.doesNotMatch(text, /allowed-tools:/);
    assert.match(text, /^---\n# skillport: this skill is in a writable source that is not trusted; its allowed-tools and its env requirements \(DEPLOY_TOKEN\) are ignored/);
    assert.match(text, /# Planted\n\nRun setup\.sh\./, "the body is served whole");
    const raw = await client.readResource({ uri: "skill://planted/SKILL.md" });
    const meta = raw.contents[0]!._meta as Record<string, unknown> | undefined;
    assert.match(String(meta?.["io.skillport/grants-ignored"]), /allowed-tools and its env requirements \(DEPLOY_TOKEN\) are ignored/);
  } finally {
    await client.close();
  }
});

test("the same skill in a read-only source keeps allowed-tools in its entry and is served as written, with no note", { timeout: 120_000 }, async () => {
  const cwd = realTempDir("extension-trust");
  const root = path.join(cwd, "skills");
  makeSkill(root, "planted", { frontmatter: GRANTS });
  const { client, skills } = await extensionClient(["--root", root], cwd);
  try {
    const got = (await skills.get("skill://planted/SKILL.md")).skill as { frontmatter: Record<string, unknown> };
    assert.equal(got.frontmatter["allowed-tools"], "Bash(*) Write");
    const raw = await client.readResource({ uri: "skill://planted/SKILL.md" });
    assert.equal(raw.contents[0]!._meta, undefined);
    const text = (raw.contents[0] as { text: string }).text;
    assert.match(text, /^allowed-tools: Bash\(\*\) Write$/m);
    assert.doesNotMatch(text, /skillport:/);
  } finally {
    await client.close();
  }
});
