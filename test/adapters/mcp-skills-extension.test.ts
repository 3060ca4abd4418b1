/**
 * The MCP Skills Extension (SEP-2640) against code nobody here wrote: the official TypeScript
 * SDK 2.4.0 `SkillsClient`, which checks every entry with the SDK's own validators and verifies
 * every file it reads against the entry's SHA-256 digest and size (and SKILL.md's frontmatter
 * against the entry's), over stdio and over Streamable HTTP.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdioTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { McpError } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod/v4";
import { eventually } from "../support/eventually.js";
import { serverCommand, startHttpServer, type HttpServer } from "../support/mcp-server.js";
import { makeSkill } from "../support/skill-spec.js";
import { CORPUS, EXAMPLES, realTempDir } from "../support/tmp.js";

type Entry = { uri: string; frontmatter: Record<string, unknown>; resources: Array<{ uri: string; digest: string; size: number }> };
const EXTENSION = "io.modelcontextprotocol/skills";
const anyResult = z.looseObject({});

function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return { ...env, ...extra };
}

async function stdioClient(args: string[], env = baseEnv(), capabilities: Record<string, unknown> = {}): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ ...serverCommand([...args, "--no-log"]), env, stderr: "pipe" });
  let stderr = "";
  transport.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "sdk-2.4-host", version: "1.0.0" }, { capabilities });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** Lists every skill, reads every file of each (verified), and walks every folder; returns what was read. */
async function readEverything(skills: SkillsClient): Promise<Map<string, Entry>> {
  const { skills: entries, invalid } = await skills.list();
  assert.deepEqual(invalid, []);
  const read = new Map<string, Entry>();
  for (const entry of entries as Entry[]) {
    const manifest = await skills.read(entry as never);
    assert.equal(manifest.verified, true, `${entry.uri} verified`);
    assert.deepEqual((manifest as { frontmatter?: unknown }).frontmatter, entry.frontmatter);
    for (const resource of entry.resources) {
      const file = await skills.read(entry as never, resource.uri);
      assert.equal(file.verified, true, `${resource.uri} verified`);
      assert.equal(file.bytes.byteLength, resource.size);
    }
    const root = entry.uri.slice(0, -"/SKILL.md".length);
    const seen: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const child of (await skills.readDirectory(dir)).resources as Array<{ uri: string; mimeType?: string; size?: number }>) {
        assert.ok(!child.uri.endsWith("/"), `${child.uri}: no trailing slash`);
        if (child.mimeType === "inode/directory") await walk(child.uri);
        else seen.push(child.uri);
      }
    };
    await walk(root);
    assert.deepEqual(seen.sort(), entry.resources.map((r) => r.uri).sort(), `${root}: the folders hold exactly the listed files`);
    read.set(entry.frontmatter["name"] as string, entry);
  }
  return read;
}

function expectedFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else out.push(child);
    }
  };
  walk("");
  return out.sort();
}

test("the SDK 2.4.0 SkillsClient lists and reads every example skill over stdio, every file verified by digest and size; a skill whose metadata holds a map is published with that value left out of its entry and its SKILL.md", async () => {
  const { client, stderr } = await stdioClient(["--root", EXAMPLES], baseEnv({ SMOKE_BASE_URL: "http://127.0.0.1:1" }));
  try {
    const skills = new SkillsClient(client);
    assert.equal(skills.supported, true);
    assert.equal(skills.directoryRead, true);
    const read = await readEverything(skills);
    // http-smoke-test keeps its requirements under `metadata`, whose values the extension requires
    // to be strings: it is published without them, and the SKILL.md served reads back as its entry.
    assert.deepEqual([...read.keys()].sort(), ["commit-message", "http-smoke-test", "release-notes"]);
    const smoke = read.get("http-smoke-test")!;
    assert.equal(Object.hasOwn(smoke.frontmatter, "metadata"), false);
    assert.match(String(smoke.frontmatter["description"]), /^Smoke-test an HTTP API after a deploy/);
    const served = await skills.read(smoke as never);
    assert.match((served as { text?: string }).text ?? "", /# HTTP smoke test\n\n1\. Request `\$SMOKE_BASE_URL\/health`/, "the body is served whole");
    await eventually(() => /http-smoke-test \(.*\) is served without metadata\.requirements: the extension carries only text in metadata/.test(stderr()), "the note on stderr");
    assert.doesNotMatch(stderr(), /http-smoke-test .* is not served/);
    for (const [name, entry] of read) {
      const files = expectedFiles(path.join(EXAMPLES, name));
      assert.deepEqual(entry.resources.map((r) => r.uri).sort(), files.map((f) => `skill://${name}/${f}`).sort(), `${name}: every file, SKILL.md included`);
    }
    const got = await skills.get("skill://release-notes/SKILL.md");
    assert.deepEqual(got.skill, read.get("release-notes"));
  } finally {
    await client.close();
  }
});

test("the Anthropic skills are served the same way; one whose description is over 1,024 characters is left out with a diagnostic", async () => {
  const { client, stderr } = await stdioClient(["--root", CORPUS]);
  try {
    const read = await readEverything(new SkillsClient(client));
    const names = fs.readdirSync(CORPUS).filter((n) => fs.existsSync(path.join(CORPUS, n, "SKILL.md"))).sort();
    assert.deepEqual([...read.keys()].sort(), names.filter((n) => n !== "claude-api"));
    assert.match(stderr(), /claude-api \(.*\) is not served: frontmatter description must be a string of 1-1024 characters/);
  } finally {
    await client.close();
  }
});

let server: HttpServer;
before(async () => {
    server = await startHttpServer(["--root", EXAMPLES, "--no-log", "--hide-tool-from-extension-clients"], {
      cwd: process.cwd(),
      env: baseEnv({ SMOKE_BASE_URL: "http://127.0.0.1:1" }),
    });
});
after(async () => server?.stop());

  test("over Streamable HTTP the SkillsClient reads every example skill, and a client that declares the extension is not offered the tool", async () => {
    const host = new Client({ name: "sdk-2.4-host", version: "1.0.0" }, { capabilities: { extensions: { [EXTENSION]: {} } } });
    await host.connect(new StreamableHTTPClientTransport(server.url));
    const plain = new LegacyClient({ name: "plain", version: "1.0.0" });
    const { StreamableHTTPClientTransport: LegacyHttp } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    await plain.connect(new LegacyHttp(server.url));
    try {
      const read = await readEverything(new SkillsClient(host));
      assert.deepEqual([...read.keys()].sort(), ["commit-message", "http-smoke-test", "release-notes"]);
      assert.deepEqual((await host.listTools()).tools, [], "withheld from a client that loads skills itself");
      await assert.rejects(host.callTool({ name: "skill", arguments: {} }), /Unknown tool/);
      assert.deepEqual((await plain.listTools()).tools.map((t) => t.name), ["skill"], "still offered to a client without the extension");
    } finally {
      await host.close();
      await plain.close();
    }
  });

test("the 2026-07-28 stateless wire: server/discover, and results with resultType and caching fields, with no session", async () => {
  const post = async (method: string, params: Record<string, unknown> = {}, capabilities: Record<string, unknown> = {}): Promise<Record<string, unknown>> => {
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method,
        params: { ...params, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": capabilities } },
      }),
    });
    assert.equal(response.headers.get("mcp-session-id"), null, "no session is opened");
    return (await response.json()) as Record<string, unknown>;
  };
  const discover = (await post("server/discover"))["result"] as Record<string, unknown>;
  assert.deepEqual(discover["supportedVersions"], ["2026-07-28"]);
  assert.deepEqual((discover["capabilities"] as Record<string, unknown>)["extensions"], { [EXTENSION]: { directoryRead: true } });
  assert.equal(discover["resultType"], "complete");
  const list = (await post("skills/list"))["result"] as { skills: Entry[]; resultType: string; ttlMs: number; cacheScope: string };
  assert.deepEqual(list.skills.map((e) => e.uri), ["skill://commit-message/SKILL.md", "skill://http-smoke-test/SKILL.md", "skill://release-notes/SKILL.md"]);
  assert.deepEqual([list.resultType, list.ttlMs, list.cacheScope], ["complete", 0, "private"]);
  const read = (await post("resources/read", { uri: "skill://commit-message/references/examples.md" }))["result"] as Record<string, unknown>;
  assert.equal(read["resultType"], "complete");
  assert.equal(read["ttlMs"], 0);
  const missing = (await post("skills/get", { uri: "skill://nope/SKILL.md" }))["error"] as { code: number };
  assert.equal(missing.code, -32602);
  const toolsFor = async (capabilities: Record<string, unknown>) => ((await post("tools/list", {}, capabilities))["result"] as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
  assert.deepEqual(await toolsFor({ extensions: { [EXTENSION]: {} } }), [], "a stateless client declaring the extension in _meta is not offered the tool");
  assert.deepEqual(await toolsFor({}), ["skill"]);
});

test("one connection's scope decides what it sees; unknown and not-allowed URIs answer -32602; results say complete with caching fields", async () => {
  const root = realTempDir("skillport-ext-scope");
  makeSkill(root, "allowed-one", { files: { "references/guide.md": "guide\n" } });
  makeSkill(root, "other-one");
  const config = path.join(root, "..", `${path.basename(root)}.config.json`);
  fs.writeFileSync(config, JSON.stringify({ sources: [root], agents: { a: { allowedSkills: ["allowed-one"] } } }));
  const transport = new LegacyStdioTransport({ ...serverCommand(["--config", config, "--agent", "a", "--no-log"]), env: baseEnv(), stderr: "pipe" });
  const client = new LegacyClient({ name: "raw", version: "1.0.0" });
  await client.connect(transport);
  const request = (method: string, params: Record<string, unknown>) => client.request({ method, params }, anyResult) as Promise<Record<string, unknown>>;
  const code = async (method: string, params: Record<string, unknown>): Promise<number> => {
    try {
      await request(method, params);
    } catch (error) {
      return (error as McpError).code;
    }
    return 0;
  };
  try {
    const list = await request("skills/list", {});
    assert.deepEqual((list["skills"] as Entry[]).map((e) => e.uri), ["skill://allowed-one/SKILL.md"]);
    assert.equal(list["resultType"], "complete");
    assert.equal(list["ttlMs"], 0);
    assert.equal(list["cacheScope"], "private");
    assert.equal(list["nextCursor"], undefined);
    const got = await request("skills/get", { uri: "skill://allowed-one/SKILL.md" });
    assert.equal(got["resultType"], "complete");
    assert.equal(got["nextCursor"], undefined);

    for (const [method, uri] of [
      ["skills/get", "skill://other-one/SKILL.md"],
      ["skills/get", "skill://nobody/SKILL.md"],
      ["skills/get", "skill://allowed-one/references/guide.md"],
      ["resources/read", "skill://other-one/SKILL.md"],
      ["resources/read", "skill://allowed-one/missing.md"],
      ["resources/read", "skill://allowed-one/references/../../other-one/SKILL.md"],
      ["resources/read", "skill://allowed-one/%2E%2E/other-one/SKILL.md"],
      ["resources/read", "skill://allowed-one/references"],
      ["resources/read", "skill://allowed-one/SKILL.md?x"],
      ["resources/read", "skill://allowed-one/SKILL.md?"],
      ["resources/read", "skill://allowed-one/SKILL.md#x"],
      ["skills/get", "skill://allowed-one/SKILL.md?x"],
      ["resources/directory/read", "skill://allowed-one?x"],
      ["resources/read", "file:///etc/passwd"],
      ["resources/directory/read", "skill://allowed-one/SKILL.md"],
      ["resources/directory/read", "skill://other-one"],
    ] as const) {
      assert.equal(await code(method, { uri }), -32602, `${method} ${uri}`);
    }
    assert.equal(await code("skills/list", { cursor: "not-a-cursor" }), -32602);

    const listed = await client.listResources();
    assert.deepEqual(listed.resources, [
      { uri: "skill://allowed-one/SKILL.md", name: "allowed-one", description: "Does allowed-one things.", mimeType: "text/markdown", size: fs.statSync(path.join(root, "allowed-one", "SKILL.md")).size },
    ]);
    const templates = await client.listResourceTemplates();
    assert.equal(templates.resourceTemplates[0]!.uriTemplate, "skill://{+path}");
    const rootDir = await request("resources/directory/read", { uri: "skill://allowed-one" });
    assert.deepEqual(rootDir["resources"], [
      { uri: "skill://allowed-one/SKILL.md", name: "SKILL.md", mimeType: "text/markdown", size: fs.statSync(path.join(root, "allowed-one", "SKILL.md")).size },
      { uri: "skill://allowed-one/references", name: "references", mimeType: "inode/directory" },
    ]);
  } finally {
    await client.close();
  }
});

test("skills/list pages hold 100 entries, never split one, skip a skill the validators reject, and with --watch a new skill sends resources/list_changed and prompts/list_changed", async () => {
  const root = realTempDir("skillport-ext-pages");
  for (let i = 0; i < 99; i++) makeSkill(root, `s${String(i).padStart(3, "0")}`);
  // A compatibility over 500 characters: loadable (a warning), but the extension's validators refuse it.
  makeSkill(root, "bad-compatibility", { frontmatter: `compatibility: ${"c".repeat(501)}` });
  makeSkill(root, "with-binary", { files: { "assets/logo.png": Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00, 0xfe]), "references/deep/a.md": "deep\n" } });
  const transport = new StdioClientTransport({ ...serverCommand(["--root", root, "--no-log", "--watch"]), env: baseEnv(), stderr: "pipe" });
  let stderr = "";
  transport.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "sdk-2.4-host", version: "1.0.0" });
  await client.connect(transport);
  let changed = 0;
  let promptsChanged = 0;
  client.setNotificationHandler("notifications/resources/list_changed", () => void (changed += 1));
  client.setNotificationHandler("notifications/prompts/list_changed", () => void (promptsChanged += 1));
  const page = (cursor?: string) =>
    client.request({ method: "skills/list", params: cursor ? { cursor } : {} }, anyResult) as Promise<{ skills: Entry[]; nextCursor?: string }>;
  try {
    const skills = new SkillsClient(client);
    const first = await page();
    assert.equal(first.skills.length, 100, "exactly one full page");
    assert.equal(first.nextCursor, undefined, "100 entries: no second page");
    assert.ok(!first.skills.some((e) => e.uri === "skill://bad-compatibility/SKILL.md"));
    await eventually(() => /bad-compatibility \(.*\) is not served: frontmatter compatibility must be a string of 1-500 characters/.test(stderr), "the diagnostic");

    const binary = first.skills.find((e) => e.uri === "skill://with-binary/SKILL.md")!;
    const logo = await skills.read(binary as never, "assets/logo.png");
    assert.equal(logo.verified, true);
    assert.deepEqual([...logo.bytes], [0x89, 0x50, 0x4e, 0x47, 0xff, 0x00, 0xfe]);
    assert.equal((await skills.read(binary as never, "references/deep/a.md")).text, "deep\n");

    makeSkill(root, "s099");
    await eventually(() => changed > 0 && promptsChanged > 0, "resources/list_changed and prompts/list_changed");
    const again = await page();
    assert.equal(again.skills.length, 100);
    assert.ok(again.nextCursor, "101 entries: a second page");
    const second = await page(again.nextCursor);
    assert.equal(second.skills.length, 1);
    assert.equal(second.nextCursor, undefined);
    const uris = [...again.skills, ...second.skills].map((e) => e.uri);
    assert.equal(new Set(uris).size, 101, "no entry on two pages");
    assert.equal((await skills.list()).skills.length, 101, "the SDK client walks both pages");
  } finally {
    await client.close();
  }
});

test("a skill named with 64 characters is listed and one of 65 is left out with a diagnostic, so the SDK client's listing stays whole", { timeout: 60_000 }, async () => {
  const root = realTempDir("skillport-ext-names");
  const at = `n${"a".repeat(63)}`;
  const past = `n${"a".repeat(64)}`;
  makeSkill(root, at);
  makeSkill(root, past);
  makeSkill(root, "plain-one");
  const { client, stderr } = await stdioClient(["--root", root]);
  try {
    // The SDK client refuses a whole listing that holds one entry its validator rejects.
    const read = await readEverything(new SkillsClient(client));
    assert.deepEqual([...read.keys()].sort(), [at, "plain-one"]);
    await eventually(() => stderr().includes(`${past} (`) && /is not served: frontmatter name ".*" must be 1-64 lowercase letters/.test(stderr()), "the diagnostic");
  } finally {
    await client.close();
  }
});

test("resources/directory/read pages hold 100 children: a folder of 100 is one page, one of 101 is 100 and then 1, never a child twice", { timeout: 60_000 }, async () => {
  const root = realTempDir("skillport-ext-dir-pages");
  const files: Record<string, string> = {};
  for (let i = 0; i < 100; i++) files[`references/r${String(i).padStart(3, "0")}.md`] = `${i}\n`;
  for (let i = 0; i < 101; i++) files[`assets/a${String(i).padStart(3, "0")}.txt`] = `${i}\n`;
  makeSkill(root, "wide", { files });
  const { client } = await stdioClient(["--root", root]);
  type Page = { resources: Array<{ uri: string }>; nextCursor?: string };
  const page = (uri: string, cursor?: string) =>
    client.request({ method: "resources/directory/read", params: cursor ? { uri, cursor } : { uri } }, anyResult) as Promise<Page>;
  try {
    const full = await page("skill://wide/references");
    assert.equal(full.resources.length, 100, "exactly one full page");
    assert.equal(full.nextCursor, undefined, "100 children: no second page");

    const first = await page("skill://wide/assets");
    assert.equal(first.resources.length, 100);
    assert.ok(first.nextCursor, "101 children: a second page");
    const second = await page("skill://wide/assets", first.nextCursor);
    assert.deepEqual(second.resources.map((r) => r.uri), ["skill://wide/assets/a100.txt"]);
    assert.equal(second.nextCursor, undefined);
    const uris = [...first.resources, ...second.resources].map((r) => r.uri);
    assert.equal(new Set(uris).size, 101, "no child on two pages");

    const walked = await new SkillsClient(client).readDirectory("skill://wide/assets");
    assert.deepEqual(walked.resources.map((r) => r.uri), uris, "the SDK client walks both pages, in order");
  } finally {
    await client.close();
  }
});
