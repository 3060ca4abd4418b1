/**
 * The twelve Anthropic skills in test/fixtures, as their authors wrote them: every file each one
 * ships (`themes/`, `reference/`, `examples/`, `agents/`, `LICENSE.txt`, language folders) is
 * listed as a resource on activation and readable through the tool, from a library session and
 * from the `skillport mcp` server over stdio alike.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { createSkillRuntime, type SkillRuntime } from "../../src/runtime.js";
import type { Session } from "../../src/session/session.js";
import type { Envelope, FileLoadedData, LoadedData } from "../../src/tool/envelope.js";
import { CORPUS, realTempDir } from "../support/tmp.js";
import { childEnv, startStdioServer, type StdioServer } from "./support.js";

const root = realTempDir("skillport-anthropic");
const home = path.join(root, "home");
fs.mkdirSync(home);

/** Every file of a skill other than its SKILL.md, relative with `/`. */
function packageFiles(dir: string, rel = ""): string[] {
  return fs.readdirSync(path.join(dir, rel)).flatMap((name) => {
    const child = rel === "" ? name : `${rel}/${name}`;
    if (child === "SKILL.md") return [];
    return fs.statSync(path.join(dir, child)).isDirectory() ? packageFiles(dir, child) : [child];
  });
}

const SKILLS = fs.readdirSync(CORPUS).sort();

function checkActivation(envelope: Envelope, name: string): void {
  assert.equal(envelope.ok, true, JSON.stringify(envelope.error));
  const data = envelope.data as LoadedData;
  assert.equal(data.status, "loaded");
  const expected = packageFiles(path.join(CORPUS, name)).sort();
  assert.deepEqual([...data.resource_files!.files].sort(), expected, name);
  assert.doesNotMatch(data.resource_files!.guidance, /cut short/);
}

function checkRead(envelope: Envelope, name: string, file: string): void {
  assert.equal(envelope.ok, true, `${name}/${file}: ${JSON.stringify(envelope.error)}`);
  const data = envelope.data as FileLoadedData;
  assert.equal(data.file_path, file);
  assert.equal(data.content, fs.readFileSync(path.join(CORPUS, name, file), "utf8"), `${name}/${file}`);
}

test("the fixture holds twelve skills with files outside scripts/, references/, assets/", () => {
  assert.equal(SKILLS.length, 12);
  const others = SKILLS.flatMap((name) => packageFiles(path.join(CORPUS, name)).filter((f) => !/^(scripts|references|assets)\//.test(f)));
  assert.ok(others.includes("LICENSE.txt") && others.some((f) => f.startsWith("themes/")) && others.some((f) => f.startsWith("reference/")));
});

describe("through a library session", () => {
  let runtime: SkillRuntime;
  let session: Session;
  before(async () => {
    runtime = await createSkillRuntime({ sources: [{ path: CORPUS, origin: "bundled" }], cwd: root, home, env: {} });
    session = runtime.session({ log: false });
  });
  after(async () => {
    session?.close();
    await runtime?.close();
  });

  for (const name of SKILLS) {
    test(`${name}: every file is listed on activation and reads as it is on disk`, async () => {
      checkActivation(await session.call({ name }), name);
      for (const file of packageFiles(path.join(CORPUS, name))) checkRead(await session.call({ name, file_path: file }), name, file);
    });
  }
});

describe("through the MCP server over stdio", () => {
  let server: StdioServer;
  before(async () => {
    server = await startStdioServer(["--root", CORPUS, "--no-log"], root, childEnv(home));
  });
  after(async () => {
    await server?.close();
  });

  for (const name of SKILLS) {
    test(`${name}: every file is listed on activation and reads as it is on disk`, async () => {
      const activation = await server.call({ name });
      checkActivation(activation.envelope, name);
      for (const file of packageFiles(path.join(CORPUS, name))) {
        const { envelope, text, isError } = await server.call({ name, file_path: file });
        assert.equal(isError, false);
        checkRead(envelope, name, file);
        assert.equal(text, (envelope.data as FileLoadedData).content);
      }
    });
  }
});
