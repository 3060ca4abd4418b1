/**
 * The hostile-path table (SPEC §4 Read) through both surfaces a model reaches: a library
 * session and the `skillport mcp` server over stdio. Each row must be refused or cut with the
 * right reason, leak nothing from outside the skill, name no absolute path, answer without
 * hanging, and give the same envelope on both surfaces.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { createSkillRuntime, type SkillRuntime } from "../../src/runtime.js";
import type { Session } from "../../src/session/session.js";
import type { Envelope, FileLoadedData } from "../../src/tool/envelope.js";
import { realTempDir } from "../support/tmp.js";
import { assertEnvelope, childEnv, startStdioServer, withinBound, writeSkillDir, type StdioServer } from "./support.js";

const root = realTempDir("skillport-hostile");
const skills = path.join(root, "skills");
const outside = path.join(root, "outside");
const home = path.join(root, "home");
fs.mkdirSync(outside, { recursive: true });
fs.mkdirSync(home);
fs.writeFileSync(path.join(outside, "secret.txt"), "OUTSIDE-SECRET\n");
fs.mkdirSync(path.join(outside, "dir"));
fs.writeFileSync(path.join(outside, "dir", "secret.txt"), "OUTSIDE-SECRET\n");

const skillDir = writeSkillDir(skills, "a", { body: "# a\n\nRead references/guide.md when asked." });
const files: Record<string, string | Buffer> = {
  "references/guide.md": "# Guide\n",
  "references/%2e%2e/x": "literal percent name\n",
  "assets/binary.bin": Buffer.from([0x66, 0x6f, 0xc3, 0x28, 0xff]),
  "references/big.md": "é".repeat(512 * 1024),
};
for (const [rel, content] of Object.entries(files)) {
  fs.mkdirSync(path.dirname(path.join(skillDir, rel)), { recursive: true });
  fs.writeFileSync(path.join(skillDir, rel), content);
}
const sibling = writeSkillDir(skills, "a-evil");
fs.mkdirSync(path.join(sibling, "references"));
fs.writeFileSync(path.join(sibling, "references", "secret.md"), "SIBLING-SECRET\n");
fs.symlinkSync(path.join(outside, "secret.txt"), path.join(skillDir, "references", "escape.md"));
fs.symlinkSync(path.join(outside, "dir"), path.join(skillDir, "references", "outdir"));
fs.symlinkSync(sibling, path.join(skillDir, "references", "sibling"));
fs.mkdirSync(path.join(skillDir, "references", "sub"));
const fifoMade = spawnSync("mkfifo", [path.join(skillDir, "references", "pipe")]).status === 0;

type Expectation = { reason: string } | { check(data: FileLoadedData): void };

/** The §4 / issue 4 table: every row a model could send in `file_path`. */
const TABLE: Array<{ filePath: string; label: string; expect: Expectation }> = [
  { filePath: "../x", label: "parent segment", expect: { reason: "illegal_path" } },
  { filePath: "references/../../x", label: "parent segment inside", expect: { reason: "illegal_path" } },
  { filePath: "/etc/passwd", label: "absolute path", expect: { reason: "illegal_path" } },
  { filePath: "C:\\x", label: "drive path", expect: { reason: "illegal_path" } },
  { filePath: "references\\..\\..\\x", label: "backslash parent segments", expect: { reason: "illegal_path" } },
  { filePath: "references/a\u0000b", label: "NUL byte", expect: { reason: "illegal_path" } },
  { filePath: "", label: "empty path", expect: { reason: "illegal_path" } },
  {
    filePath: "references/./guide.md",
    label: "dot segment (dropped)",
    expect: { check: (data) => assert.deepEqual([data.file_path, data.content], ["references/guide.md", "# Guide\n"]) },
  },
  { filePath: "./..", label: "a dot segment then a parent segment", expect: { reason: "illegal_path" } },
  { filePath: "notes/./../../x", label: "parent segments behind a dot segment", expect: { reason: "illegal_path" } },
  { filePath: ".env", label: "a dot-entry (not part of the package)", expect: { reason: "unsupported_path" } },
  { filePath: "node_modules/x.js", label: "node_modules (not part of the package)", expect: { reason: "unsupported_path" } },
  { filePath: "references/escape.md", label: "file symlink leaving the skill", expect: { reason: "illegal_path" } },
  { filePath: "references/outdir/secret.txt", label: "directory symlink leaving the skill", expect: { reason: "illegal_path" } },
  { filePath: "references/sibling/references/secret.md", label: "symlink into sibling `a-evil`", expect: { reason: "illegal_path" } },
  {
    filePath: "references/%2e%2e/x",
    label: "percent-encoded dots (a literal name, never decoded)",
    expect: { check: (data) => assert.equal(data.content, "literal percent name\n") },
  },
  { filePath: "references/sub", label: "a directory", expect: { reason: "not_a_file" } },
  ...(fifoMade ? [{ filePath: "references/pipe", label: "a FIFO", expect: { reason: "not_a_file" } }] : []),
  { filePath: "assets/binary.bin", label: "a non-UTF-8 file", expect: { reason: "not_utf8" } },
  {
    filePath: "references/big.md",
    label: "a 1 MiB file",
    expect: {
      check(data) {
        assert.ok(Buffer.byteLength(data.content, "utf8") < 1024 * 1024, "cut");
        assert.ok(data.content.startsWith("é".repeat(1000)), "cut on a character boundary, never mid-character");
        assert.ok(!data.content.includes("\ufffd"), "no broken character");
        assert.match(data.content, /1048576/, "the notice names the full size");
      },
    },
  },
  { filePath: "references/missing.md", label: "a missing file", expect: { reason: "not_found" } },
];

function checkRow(envelope: Envelope, row: (typeof TABLE)[number]): void {
  assertEnvelope(envelope, row.label);
  const text = JSON.stringify(envelope);
  assert.ok(!text.includes("OUTSIDE-SECRET") && !text.includes("SIBLING-SECRET"), `nothing from outside the skill leaks (${row.label})`);
  assert.ok(!text.includes(root), `no absolute path in the result (${row.label})`);
  if ("reason" in row.expect) {
    assert.equal(envelope.ok, false, `${row.label} must be refused: ${text.slice(0, 200)}`);
    assert.equal(envelope.error!.code, "skill_read_error");
    assert.equal(envelope.error!.reason, row.expect.reason, `${row.label}: ${envelope.error!.message}`);
  } else {
    assert.equal(envelope.ok, true, `${row.label} must be read: ${text.slice(0, 200)}`);
    const data = envelope.data as FileLoadedData;
    assert.equal(data.status, "file_loaded");
    row.expect.check(data);
  }
}

let runtime: SkillRuntime;
let session: Session;
let server: StdioServer;
const libraryEnvelopes = new Map<string, Envelope>();

before(async () => {
  runtime = await createSkillRuntime({ sources: [{ path: skills, origin: "global" }], cwd: root, home, env: {} });
  session = runtime.session({ log: false });
  server = await startStdioServer(["--root", skills, "--no-log"], root, childEnv(home));
});

after(async () => {
  session?.close();
  await runtime?.close();
  await server?.close();
});

describe("through a library session", () => {
  for (const row of TABLE) {
    test(`${row.label}: ${JSON.stringify(row.filePath)}`, async () => {
      const envelope = await withinBound(session.call({ name: "a", file_path: row.filePath }), row.label);
      checkRow(envelope, row);
      libraryEnvelopes.set(row.filePath, envelope);
    });
  }

  test("no hostile read activated the skill", () => {
    assert.deepEqual(session.loaded(), []);
  });
});

describe("through the MCP server over stdio", () => {
  for (const row of TABLE) {
    test(`${row.label}: ${JSON.stringify(row.filePath)}`, async () => {
      const { envelope, text, isError } = await server.call({ name: "a", file_path: row.filePath });
      checkRow(envelope, row);
      assert.equal(isError, !envelope.ok, "isError mirrors the envelope");
      assert.ok(!text.includes(root), "the model-facing text names no absolute path");
      assert.ok(!text.includes("OUTSIDE-SECRET") && !text.includes("SIBLING-SECRET"), "the model-facing text leaks nothing");
      const library = libraryEnvelopes.get(row.filePath);
      assert.ok(library, "the library suite answered this row first");
      assert.deepEqual(envelope, library, "the MCP envelope is the library envelope");
    });
  }

  test("the server is still serving after the whole table", async () => {
    const { envelope } = await server.call({ name: "a", file_path: "references/guide.md" });
    assert.equal(envelope.ok, true);
    assert.equal((envelope.data as FileLoadedData).content, "# Guide\n");
  });
});
