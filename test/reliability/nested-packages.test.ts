/**
 * A package ends where another begins (SPEC §1 Resources, SECURITY.md): the files of a skill
 * nested inside another, and of another source's root inside a package, belong to that skill or
 * source alone. Read through the enclosing skill they answer as missing files do, on every
 * surface: the tool (library and MCP), the activation's resource list, the Skills Extension's
 * entries, resources and folders, and prompts.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import type { McpError } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod/v4";
import { writeBundle } from "../../src/registry/bundle-write.js";
import { createSkillRuntime } from "../../src/runtime.js";
import type { SkillSource } from "../../src/registry/types.js";
import type { Envelope, LoadedData } from "../../src/tool/envelope.js";
import { realTempDir, writeSkill } from "../support/tmp.js";
import { assertEnvelope, childEnv, startStdioServer } from "./support.js";

const ALICE_CREDS = "alice-creds-7f3a";
const ALICE_ROSTER = "alice-roster-91bc";
const EXCLUDED_BODY = "excluded-body-c40e";

/** Paths inside `parent` that belong to someone else, each reached the way an author could plant it. */
const FOREIGN_PATHS = [
  // Alice's private skill, inside her private source root, inside parent's folder.
  "alice-private/alice-secret/creds.md",
  "alice-private/alice-secret/SKILL.md",
  "alice-private/alice-secret",
  // A file of alice's source root that no skill holds: still hers, not parent's.
  "alice-private/roster.md",
  // A skill nested in parent's folder, which bob's policy excludes.
  "sub/excluded/SKILL.md",
  // Links inside parent leading into the nested skill: the real path decides, not the name.
  "notes/SKILL.md",
  "excluded-copy.md",
];

/**
 * A global folder holding `parent`, whose folder holds agent alice's private source root (with
 * her skill `alice-secret`) and a nested skill `sub/excluded` that bob's policy excludes.
 */
function nestedTree(): { root: string; global: string; alicePrivate: string; sources: SkillSource[] } {
  const root = realTempDir("skillport-nested-packages");
  const global = path.join(root, "global");
  const parent = writeSkill(global, "parent", "name: parent\ndescription: The enclosing skill.");
  fs.writeFileSync(path.join(parent, "guide.md"), "parent's own guide\n");
  const alicePrivate = path.join(parent, "alice-private");
  const secret = writeSkill(alicePrivate, "alice-secret", "name: alice-secret\ndescription: Alice's own.");
  fs.writeFileSync(path.join(secret, "creds.md"), `${ALICE_CREDS}\n`);
  fs.writeFileSync(path.join(alicePrivate, "roster.md"), `${ALICE_ROSTER}\n`);
  const excluded = writeSkill(path.join(parent, "sub"), "excluded", "name: excluded\ndescription: Not for bob.", `${EXCLUDED_BODY}\n`);
  fs.symlinkSync(excluded, path.join(parent, "notes"));
  fs.symlinkSync(path.join(excluded, "SKILL.md"), path.join(parent, "excluded-copy.md"));
  const sources: SkillSource[] = [
    { path: global, origin: "global" },
    { path: alicePrivate, origin: "agent", agentId: "alice" },
  ];
  return { root, global, alicePrivate, sources };
}

const AGENTS = { alice: {}, bob: { excludedSkills: ["excluded"] } };

function assertNotFound(envelope: Envelope, what: string): void {
  assertEnvelope(envelope, what);
  assert.equal(envelope.ok, false, `${what}: refused`);
  assert.equal(envelope.error?.code, "skill_read_error", what);
  assert.equal((envelope.error as { reason?: string }).reason, "not_found", `${what}: answered as a missing file`);
  assert.match(envelope.error!.message, /no such file in this skill/, what);
  for (const leak of [ALICE_CREDS, ALICE_ROSTER, EXCLUDED_BODY]) assert.ok(!JSON.stringify(envelope).includes(leak), `${what} leaked ${leak}`);
}

test("through the library, a nested skill's files and another source's root are not found through the enclosing skill, by any agent", { timeout: 60_000 }, async (t) => {
  const { root, sources } = nestedTree();
  const runtime = await createSkillRuntime({ sources, agents: AGENTS, cwd: root, home: root, env: {} });
  t.after(() => runtime.close());
  for (const agentId of ["bob", "alice"]) {
    const session = runtime.session({ agentId, log: false });
    const own = await session.call({ name: "parent", file_path: "guide.md" });
    assert.equal(own.ok, true, `${agentId}: parent's own file still reads`);
    for (const filePath of FOREIGN_PATHS) assertNotFound(await session.call({ name: "parent", file_path: filePath }), `${agentId} reads parent ${filePath}`);
    const activation = await session.call({ name: "parent" });
    assert.equal(activation.ok, true);
    const files = (activation.data as LoadedData).resource_files?.files ?? [];
    assert.deepEqual(files, ["guide.md"], `${agentId}: parent's resources are its own files only`);
  }
  // The owners still reach their own files directly.
  const alice = runtime.session({ agentId: "alice", log: false });
  const creds = await alice.call({ name: "alice-secret", file_path: "creds.md" });
  assert.equal(creds.ok, true);
  assert.ok(JSON.stringify(creds).includes(ALICE_CREDS));
  const bob = runtime.session({ agentId: "bob", log: false });
  assert.equal((await bob.call({ name: "alice-secret" })).error?.code, "skill_not_found");
  assert.equal((await bob.call({ name: "excluded" })).error?.code, "skill_not_found");
});

test("over MCP (real SDK client), a nested private skill read through its parent is refused by the tool, the resources, the extension's folders and the prompt", { timeout: 60_000 }, async (t) => {
  const { root, global, alicePrivate } = nestedTree();
  const config = path.join(root, "skillport.config.json");
  fs.writeFileSync(
    config,
    JSON.stringify({ sources: [{ path: global }, { path: alicePrivate, origin: "agent", agentId: "alice" }], agents: AGENTS }),
  );
  const server = await startStdioServer(["--config", config, "--agent", "bob", "--no-log"], root, childEnv(root));
  t.after(() => server.close());

  for (const filePath of FOREIGN_PATHS) {
    const { envelope, text, isError } = await server.call({ name: "parent", file_path: filePath });
    assert.equal(isError, true, filePath);
    assertNotFound(envelope, `tools/call parent ${filePath}`);
    for (const leak of [ALICE_CREDS, ALICE_ROSTER, EXCLUDED_BODY]) assert.ok(!text.includes(leak), `model text for ${filePath} leaked ${leak}`);
  }
  const own = await server.call({ name: "parent", file_path: "guide.md" });
  assert.equal(own.envelope.ok, true, "parent's own file still reads over MCP");

  const anyResult = z.looseObject({});
  const request = (method: string, params: Record<string, unknown>) =>
    server.client.request({ method, params }, anyResult) as Promise<Record<string, unknown>>;
  const refusedCode = async (method: string, uri: string): Promise<number> => {
    try {
      const result = await request(method, { uri });
      assert.fail(`${method} ${uri} answered: ${JSON.stringify(result).slice(0, 300)}`);
    } catch (error) {
      return (error as McpError).code;
    }
  };
  for (const filePath of FOREIGN_PATHS) {
    assert.equal(await refusedCode("resources/read", `skill://parent/${filePath}`), -32602, `resources/read ${filePath}`);
  }
  for (const dir of ["alice-private", "alice-private/alice-secret", "sub", "sub/excluded", "notes"]) {
    assert.equal(await refusedCode("resources/directory/read", `skill://parent/${dir}`), -32602, `resources/directory/read ${dir}`);
  }
  const got = await request("skills/get", { uri: "skill://parent/SKILL.md" });
  const entry = got["skill"] as { resources: Array<{ uri: string }> };
  assert.deepEqual(entry.resources.map((r) => r.uri).sort(), ["skill://parent/SKILL.md", "skill://parent/guide.md"], "skills/get: parent's entry holds its own files only");
  const listed = (await request("skills/list", {}))["skills"] as Array<{ uri: string; resources: Array<{ uri: string }> }>;
  assert.deepEqual(listed.map((e) => e.uri), ["skill://parent/SKILL.md"], "bob is served parent alone");
  const rootDir = await request("resources/directory/read", { uri: "skill://parent" });
  assert.deepEqual((rootDir["resources"] as Array<{ uri: string }>).map((r) => r.uri).sort(), ["skill://parent/SKILL.md", "skill://parent/guide.md"]);

  const prompt = await server.client.getPrompt({ name: "parent" });
  const promptText = JSON.stringify(prompt);
  for (const name of ["alice-private", "alice-secret", "roster.md", "sub/excluded", "excluded-copy.md", "notes/"]) {
    assert.ok(!promptText.includes(name), `the prompt names ${name}: ${promptText}`);
  }
});

test("served from a bundle, a nested skill's files are still not found through the enclosing skill", { timeout: 60_000 }, async (t) => {
  const root = realTempDir("skillport-nested-bundle");
  const tree = path.join(root, "tree");
  const parent = writeSkill(tree, "parent", "name: parent\ndescription: The enclosing skill.");
  fs.writeFileSync(path.join(parent, "guide.md"), "parent's own guide\n");
  writeSkill(path.join(parent, "sub"), "excluded", "name: excluded\ndescription: Not for bob.", `${EXCLUDED_BODY}\n`);
  const bundle = await writeBundle(tree, path.join(root, "out"));
  const runtime = await createSkillRuntime({ bundle: bundle.dir, agents: AGENTS, cwd: root, home: root, env: {} });
  t.after(() => runtime.close());
  const bob = runtime.session({ agentId: "bob", log: false });
  assert.equal((await bob.call({ name: "excluded" })).error?.code, "skill_not_found");
  assertNotFound(await bob.call({ name: "parent", file_path: "sub/excluded/SKILL.md" }), "bob reads the bundled parent's sub/excluded/SKILL.md");
  assert.equal((await bob.call({ name: "parent", file_path: "guide.md" })).ok, true);
});
