/**
 * Untrusted skill files in a source (SPEC §1 Limits and YAML, §5.4, §8): YAML bombs, deep
 * nesting, code-constructing tags, `---js` front matter, oversized and non-UTF-8 files. The
 * runtime and the MCP server must load the good skills, report each bad one as a diagnostic,
 * run no code from any of them, and never hang. Secrets in env grants never reach the model.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, test } from "node:test";
import { createSkillRuntime, type SkillRuntime } from "../../src/runtime.js";
import type { ListData, LoadedData } from "../../src/tool/envelope.js";
import { realTempDir } from "../support/tmp.js";
import { assertEnvelope, childEnv, startStdioServer, withinBound, writeSkillDir, type StdioServer } from "./support.js";

const root = realTempDir("skillport-hostile-skills");
const skills = path.join(root, "skills");
const home = path.join(root, "home");
fs.mkdirSync(home);
const marker = path.join(root, "code-ran");
const SECRET_NAME = "SKILLPORT_RELIABILITY_TOKEN";
const SECRET_VALUE = "tok-9f3a-never-show-this-value";

function writeRaw(name: string, content: string | Buffer): string {
  const dir = path.join(skills, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "SKILL.md"), content);
  return dir;
}

function billionLaughs(): string {
  const lines = ["---", "name: bomb", 'a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i <= 9; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(",")}]`);
  lines.push("description: *a9", "---", "", "# bomb", "");
  return lines.join("\n");
}

const js = (expression: string) => `require('fs').writeFileSync(${JSON.stringify(marker)}, ${expression})`;
const BAD: Record<string, string | Buffer> = {
  bomb: billionLaughs(),
  deep: `---\nname: deep\ndescription: ${"[".repeat(20_000)}${"]".repeat(20_000)}\n---\nbody\n`,
  "js-front-matter": `---js\n{ name: "js-front-matter", description: (function () { ${js('"gray-matter"')}; return "x"; })() }\n---\nbody\n`,
  "js-tag": `---\nname: js-tag\ndescription: !!js/function "function () { ${js('"tag"')} }"\n---\nbody\n`,
  oversized: `---\nname: oversized\ndescription: Far too big to load.\n---\n${"x".repeat(1024 * 1024 + 10)}\n`,
  "not-utf8": Buffer.concat([Buffer.from("---\nname: not-utf8\ndescription: Bad bytes "), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from("\n---\nbody\n")]),
  unclosed: "---\nname: unclosed\ndescription: The frontmatter never ends.\n",
  "duplicate-keys": "---\nname: duplicate-keys\ndescription: one\ndescription: two\n---\nbody\n",
};
for (const [name, content] of Object.entries(BAD)) writeRaw(name, content);
writeSkillDir(skills, "good");
writeSkillDir(skills, "deploy", {
  description: "Deploys with a token from the environment.",
  frontmatter: `metadata:\n  requirements:\n    env: ${SECRET_NAME}`,
  body: "# deploy\n\nRun the deploy with the token.",
});

let runtime: SkillRuntime;
let server: StdioServer;

before(async () => {
  runtime = await withinBound(
    createSkillRuntime({ sources: [{ path: skills, origin: "global" }], cwd: root, home, env: { [SECRET_NAME]: SECRET_VALUE } }),
    "loading a tree of hostile skills",
  );
  server = await startStdioServer(["--root", skills, "--no-log"], root, childEnv(home, { [SECRET_NAME]: SECRET_VALUE }));
});

after(async () => {
  await runtime?.close();
  await server?.close();
});

test("the good skills load; every hostile file is left out with an error diagnostic naming it", () => {
  assert.deepEqual(runtime.registry().list().map((s) => s.name).sort(), ["deploy", "good"]);
  const errors = runtime.diagnostics().filter((d) => d.severity === "error");
  for (const name of Object.keys(BAD)) {
    const dir = path.join(skills, name);
    assert.ok(
      errors.some((d) => d.path === dir || d.path.startsWith(`${dir}${path.sep}`)),
      `no error diagnostic for ${name}: ${JSON.stringify(runtime.diagnostics().map((d) => [d.path, d.code]))}`,
    );
  }
  for (const d of errors) assert.ok(d.message.length > 0 && d.code.length > 0, "each diagnostic says what is wrong");
});

test("no skill file ran code: neither `---js` front matter nor a js tag", () => {
  assert.equal(fs.existsSync(marker), false);
});

test("the billion-laughs description fails with a message about aliases, not a memory blow-up", () => {
  const bomb = runtime.diagnostics().find((d) => d.path.startsWith(path.join(skills, "bomb")) && d.severity === "error");
  assert.ok(bomb, "a diagnostic for the bomb");
  assert.match(bomb.message, /alias/i);
});

test("the MCP server lists only the good skills and answers for the bad ones as missing", async () => {
  const list = await server.call({});
  assertEnvelope(list.envelope);
  const names = (list.envelope.data as ListData).skill_groups.flatMap((g) => g.skills.map((s) => s.name)).sort();
  assert.deepEqual(names, ["deploy", "good"]);
  for (const name of Object.keys(BAD)) {
    const { envelope } = await server.call({ name });
    assertEnvelope(envelope, name);
    assert.equal(envelope.ok, false);
    assert.equal(envelope.error!.code, "skill_not_found", name);
  }
  assert.equal(fs.existsSync(marker), false);
});

test("an env grant gives the session the secret, and the model sees the name only", async () => {
  const session = runtime.session({ log: false });
  try {
    assert.deepEqual(session.envFor([SECRET_NAME]), {}, "nothing before activation");
    const invocation = await session.invoke({ name: "deploy" });
    assertEnvelope(invocation.envelope);
    const data = invocation.envelope.data as LoadedData;
    assert.equal(data.status, "loaded");
    assert.deepEqual(data.environment_access?.names, [SECRET_NAME]);
    assert.ok(!JSON.stringify(invocation.envelope).includes(SECRET_VALUE), "the envelope holds no value");
    assert.ok(!invocation.text.includes(SECRET_VALUE), "the model-facing text holds no value");
    assert.ok(!session.catalogText().includes(SECRET_VALUE));
    assert.deepEqual(session.envFor([SECRET_NAME, "HOME", "PATH"]), { [SECRET_NAME]: SECRET_VALUE }, "only granted names get values");
    assert.ok(!JSON.stringify(session.history()).includes(SECRET_VALUE), "the session log holds no value");
  } finally {
    session.close();
  }
});

test("over MCP, the activation of an env skill names the variable and never shows its value", async () => {
  const { envelope, text } = await server.call({ name: "deploy" });
  assertEnvelope(envelope);
  assert.equal((envelope.data as LoadedData).status, "loaded");
  assert.deepEqual((envelope.data as LoadedData).environment_access?.names, [SECRET_NAME]);
  assert.ok(!JSON.stringify(envelope).includes(SECRET_VALUE));
  assert.ok(!text.includes(SECRET_VALUE));
  const { tools } = await server.client.listTools();
  assert.ok(!JSON.stringify(tools).includes(SECRET_VALUE), "the tool description (catalog) holds no value");
});
