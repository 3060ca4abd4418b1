import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import type { Envelope, FileLoadedData } from "../../src/tool/envelope.js";
import { makeSkill } from "../support/skill-spec.js";
import { CORPUS, realTempDir } from "../support/tmp.js";
import { globalSource, runtimeHarness } from "./harness.js";

const root = realTempDir("skillport-read");
const skills = path.join(root, "skills");
const outside = path.join(root, "outside");
fs.mkdirSync(outside, { recursive: true });
fs.writeFileSync(path.join(outside, "secret.txt"), "outside secret\n");
const dir = makeSkill(skills, "a", {
  body: "Read references/guide.md when asked.",
  files: {
    "references/guide.md": "# Guide\n",
    "references/%2e%2e/x": "percent-named directory\n",
    "scripts/run.sh": "#!/bin/sh\necho hi\n",
    "assets/template.txt": "template\n",
    "assets/binary.bin": Buffer.from([0xc3, 0x28, 0xff]),
    "references/big.md": "z".repeat(1024 * 1024),
    "notes/extra.md": "not in the package shape\n",
  },
});
makeSkill(skills, "a-evil", { files: { "references/secret.md": "sibling secret\n" } });
fs.symlinkSync(path.join(outside, "secret.txt"), path.join(dir, "references", "escape.md"));
fs.symlinkSync(outside, path.join(dir, "references", "outdir"));
fs.symlinkSync(path.join(skills, "a-evil"), path.join(dir, "references", "sibling"));
assert.equal(spawnSync("mkfifo", [path.join(dir, "references", "pipe")]).status, 0);

let hookCalls = 0;
const h = await runtimeHarness(globalSource(skills));
const tool = h.tool;
const ctx = {
  activateSkill: () => {
    hookCalls++;
    return true;
  },
};

async function read(filePath: string): Promise<Envelope> {
  return tool.call({ name: "a", file_path: filePath }, ctx);
}

const hostile: Array<[string, string, string]> = [
  ["../x", "parent segment", "illegal_path"],
  ["references/../../x", "parent inside", "illegal_path"],
  ["/etc/passwd", "absolute", "illegal_path"],
  ["C:\\x", "drive path", "illegal_path"],
  ["references\\..\\..\\x", "backslash parent", "illegal_path"],
  ["references/a\u0000b", "NUL", "illegal_path"],
  ["", "empty", "illegal_path"],
  ["./SKILL.md", "dot segment", "illegal_path"],
  ["references/escape.md", "file symlink leaving the skill", "illegal_path"],
  ["references/outdir/secret.txt", "directory symlink leaving the skill", "illegal_path"],
  ["references/sibling/references/secret.md", "sibling skill `a-evil`", "illegal_path"],
  ["references", "resource root itself", "unsupported_path"],
  ["notes/extra.md", "directory outside the package shape", "unsupported_path"],
  ["LICENSE.txt", "top-level file other than SKILL.md", "unsupported_path"],
  ["references/missing.md", "missing file", "not_found"],
  ["references/%2e%2e", "directory (percent name is literal)", "not_a_file"],
  ["references/pipe", "FIFO", "not_a_file"],
  ["assets/binary.bin", "non-UTF-8 file", "not_utf8"],
];

for (const [filePath, label, reason] of hostile) {
  test(`read of ${label} (${JSON.stringify(filePath)}) is refused as ${reason}`, async () => {
    const envelope = await read(filePath);
    assert.equal(envelope.ok, false, JSON.stringify(envelope));
    assert.equal(envelope.error!.code, "skill_read_error");
    assert.equal(envelope.error!.reason, reason);
    assert.ok(!envelope.error!.message.includes(root), "no absolute path in the message");
    assert.ok(!/outside secret|sibling secret/.test(JSON.stringify(envelope)), "nothing outside the skill leaks");
  });
}

test("a literal `%2e%2e` directory name is read as a name, never decoded", async () => {
  const data = (await read("references/%2e%2e/x")).data as FileLoadedData;
  assert.equal(data.content, "percent-named directory\n");
});

test("a 1 MiB file is cut at 256 KiB with a notice naming its full size", async () => {
  const data = (await read("references/big.md")).data as FileLoadedData;
  assert.equal(data.status, "file_loaded");
  assert.ok(data.content.startsWith("z".repeat(256 * 1024)));
  assert.ok(!data.content.startsWith("z".repeat(256 * 1024 + 1)));
  assert.match(data.content, /1048576 bytes/);
});

test("reading SKILL.md returns the whole file including frontmatter", async () => {
  const envelope = await read("SKILL.md");
  assert.deepEqual(envelope, {
    ok: true,
    error: null,
    data: { name: "a", status: "file_loaded", file_path: "SKILL.md", content: fs.readFileSync(path.join(dir, "SKILL.md"), "utf8") },
  });
  assert.ok((envelope.data as FileLoadedData).content.startsWith("---\nname: a\n"));
});

test("reads under each resource root return the normalised relative path and no absolute path", async () => {
  for (const [asked, normalised, content] of [
    ["references\\guide.md", "references/guide.md", "# Guide\n"],
    ["scripts//run.sh", "scripts/run.sh", "#!/bin/sh\necho hi\n"],
    ["assets/template.txt", "assets/template.txt", "template\n"],
  ] as const) {
    const envelope = await read(asked);
    assert.deepEqual(envelope.data, { name: "a", status: "file_loaded", file_path: normalised, content });
    assert.ok(!JSON.stringify(envelope).includes(root));
  }
});

test("reads never call the activation hook", () => {
  assert.equal(hookCalls, 0);
});

test("a skill whose file is lowercase skill.md is read as SKILL.md", async () => {
  const lower = path.join(skills, "lower");
  fs.mkdirSync(lower);
  fs.writeFileSync(path.join(lower, "skill.md"), "---\nname: lower\ndescription: Lowercase file.\n---\nBody\n");
  const envelope = await tool.call({ name: "lower", file_path: "SKILL.md" });
  assert.equal((envelope.data as FileLoadedData).file_path, "SKILL.md");
  assert.match((envelope.data as FileLoadedData).content, /Lowercase file/);
});

test("a read of a skill created after the registry was cached rescans once and succeeds", async () => {
  const before = h.refreshCalls();
  makeSkill(skills, "newcomer", { files: { "references/n.md": "new\n" } });
  const envelope = await tool.call({ name: "newcomer", file_path: "references/n.md" });
  assert.equal((envelope.data as FileLoadedData).content, "new\n");
  assert.equal(h.refreshCalls(), before + 1);
});

test("corpus: references/ reads work; mcp-builder's `reference/` directory is outside the readable shape", async () => {
  const corpusTool = (await runtimeHarness({ sources: [{ path: CORPUS, origin: "bundled" }] })).tool;
  const creatorRefs = fs.readdirSync(path.join(CORPUS, "skill-creator", "references"));
  const ok = await corpusTool.call({ name: "skill-creator", file_path: `references/${creatorRefs[0]}` });
  assert.equal(ok.ok, true, JSON.stringify(ok.error));
  const mcpRef = fs.readdirSync(path.join(CORPUS, "mcp-builder", "reference"))[0]!;
  const refused = await corpusTool.call({ name: "mcp-builder", file_path: `reference/${mcpRef}` });
  assert.equal(refused.error!.reason, "unsupported_path");
  assert.match(refused.error!.message, /references\//);
});
