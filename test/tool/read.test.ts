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
    "notes/extra.md": "in a folder the standard does not name\n",
    "LICENSE.txt": "licence\n",
    ".env": "TOKEN=dot-secret\n",
    ".git/config": "dot-secret config\n",
    "node_modules/pkg/index.js": "installed\n",
  },
});
makeSkill(skills, "a-evil", { files: { "references/secret.md": "sibling secret\n" } });
fs.symlinkSync(path.join(outside, "secret.txt"), path.join(dir, "references", "escape.md"));
fs.symlinkSync(outside, path.join(dir, "references", "outdir"));
fs.symlinkSync(path.join(skills, "a-evil"), path.join(dir, "references", "sibling"));
fs.symlinkSync(path.join(dir, ".env"), path.join(dir, "references", "dotlink.md"));
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
  [".", "only a dot segment", "illegal_path"],
  ["./", "a dot segment and a slash", "illegal_path"],
  ["references/escape.md", "file symlink leaving the skill", "illegal_path"],
  ["references/outdir/secret.txt", "directory symlink leaving the skill", "illegal_path"],
  ["references/sibling/references/secret.md", "sibling skill `a-evil`", "illegal_path"],
  ["references", "a folder", "not_a_file"],
  [".env", "a dot-entry at the root", "unsupported_path"],
  [".git/config", "a file in a dot-folder", "unsupported_path"],
  ["notes/./.env", "a dot-entry after a dot segment", "unsupported_path"],
  ["node_modules/pkg/index.js", "a file in node_modules", "unsupported_path"],
  ["references/dotlink.md", "a link inside the skill to a dot-entry", "unsupported_path"],
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
    assert.ok(!/outside secret|sibling secret|dot-secret|installed/.test(JSON.stringify(envelope)), "nothing outside the package leaks");
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

test("any file of the package reads, by its normalised relative path, with no absolute path in the result", async () => {
  for (const [asked, normalised, content] of [
    ["references\\guide.md", "references/guide.md", "# Guide\n"],
    ["scripts//run.sh", "scripts/run.sh", "#!/bin/sh\necho hi\n"],
    ["assets/template.txt", "assets/template.txt", "template\n"],
    ["notes/extra.md", "notes/extra.md", "in a folder the standard does not name\n"],
    ["./notes/extra.md", "notes/extra.md", "in a folder the standard does not name\n"],
    ["notes/./extra.md", "notes/extra.md", "in a folder the standard does not name\n"],
    [".\\notes\\extra.md", "notes/extra.md", "in a folder the standard does not name\n"],
    ["LICENSE.txt", "LICENSE.txt", "licence\n"],
    ["./LICENSE.txt", "LICENSE.txt", "licence\n"],
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

test("`./SKILL.md` is SKILL.md: the dot segment is dropped", async () => {
  const envelope = await read("./SKILL.md");
  assert.equal((envelope.data as FileLoadedData).file_path, "SKILL.md");
  assert.ok((envelope.data as FileLoadedData).content.startsWith("---\nname: a\n"));
});

test("corpus: files outside scripts/, references/, assets/ read, as the skills link them", async () => {
  const corpusTool = (await runtimeHarness({ sources: [{ path: CORPUS, origin: "bundled" }] })).tool;
  for (const [name, filePath] of [
    ["theme-factory", "themes/arctic-frost.md"],
    ["mcp-builder", "./reference/mcp_best_practices.md"],
    ["internal-comms", "examples/faq-answers.md"],
    ["skill-creator", "agents/grader.md"],
  ] as const) {
    const envelope = await corpusTool.call({ name, file_path: filePath });
    assert.equal(envelope.ok, true, JSON.stringify(envelope.error));
    const data = envelope.data as FileLoadedData;
    assert.equal(data.file_path, filePath.replace(/^\.\//, ""));
    assert.equal(data.content, fs.readFileSync(path.join(CORPUS, name, filePath), "utf8"));
  }
});
