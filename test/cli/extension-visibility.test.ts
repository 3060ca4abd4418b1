import assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";
import { writeSkill } from "../support/tmp.js";
import { jsonOf, runCli, sandbox } from "./cli-process.js";

function tree(): { cwd: string; env: Record<string, string>; root: string } {
  const box = sandbox();
  const root = path.join(box.cwd, "skills");
  writeSkill(root, "plain", "name: plain\ndescription: Nothing unusual.");
  writeSkill(root, "mapped", "name: mapped\ndescription: Keeps a map in metadata.\nmetadata:\n  author: ops\n  vbot:\n    requirements:\n      env: HOME");
  writeSkill(root, "wordy", `name: wordy\ndescription: ${"w".repeat(1025)}`);
  return { cwd: box.cwd, env: box.env, root };
}

interface ListJson {
  skills: Array<{ name: string; extension: { served: boolean; reason: string | null; leftOut: string[] } | null }>;
}

test("list says which skills a Skills Extension client will not see and why, and what an entry leaves out", { timeout: 120_000 }, async () => {
  const t = tree();
  const json = await runCli(["list", "--root", "skills", "--json"], { cwd: t.cwd, env: t.env });
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(
    jsonOf<ListJson>(json).skills.map((s) => [s.name, s.extension]),
    [
      ["mapped", { served: true, reason: null, leftOut: ["metadata.vbot"] }],
      ["plain", { served: true, reason: null, leftOut: [] }],
      ["wordy", { served: false, reason: "frontmatter description must be a string of 1-1024 characters", leftOut: [] }],
    ],
  );
  const text = await runCli(["list", "--root", "skills"], { cwd: t.cwd, env: t.env });
  assert.match(text.stdout, /^ {2}mapped +\[Skills Extension entry leaves out metadata\.vbot \(not text\)\] Keeps a map in metadata\.$/m);
  assert.match(text.stdout, /^ {2}plain +Nothing unusual\.$/m);
  assert.match(text.stdout, /^ {2}wordy +\[not served to Skills Extension clients: frontmatter description must be a string of 1-1024 characters\] w+…$/m);
});

test("doctor warns about skills Skills Extension clients will not see, and metadata their entries leave out", { timeout: 120_000 }, async () => {
  const t = tree();
  const run = await runCli(["doctor", "--root", "skills", "--json"], { cwd: t.cwd, env: t.env });
  const report = jsonOf<{ diagnostics: Array<{ path: string; severity: string; code: string; message: string }> }>(run);
  const about = report.diagnostics.filter((d) => d.code.startsWith("extension_")).map((d) => [path.relative(t.root, d.path), d.severity, d.code, d.message]);
  assert.deepEqual(about, [
    [
      path.join("mapped", "SKILL.md"),
      "warning",
      "extension_metadata_left_out",
      "skill 'mapped' is served to MCP Skills Extension clients without metadata.vbot: the extension carries only text in metadata",
    ],
    [
      path.join("wordy", "SKILL.md"),
      "warning",
      "extension_unserved",
      "skill 'wordy' is not served to MCP Skills Extension clients (the tool and prompts still serve it): frontmatter description must be a string of 1-1024 characters",
    ],
  ]);
});
