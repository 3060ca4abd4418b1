import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import type { ExtensionVisibility } from "../../src/adapters/skill-entry.js";
import { extensionReport, reportingOnPackages } from "../../src/cli/extension-report.js";
import { createSkillRuntime } from "../../src/runtime.js";
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

/** The extension verdicts of a runtime over the global source `root`, loaded here; `afterLoad` runs between the load and the report. */
async function verdictsOf(root: string, box: { cwd: string; home: string }, afterLoad: () => void = () => {}): Promise<Map<string, ExtensionVisibility>> {
  const runtime = await createSkillRuntime({ sources: [{ path: root, origin: "global" }], cwd: box.cwd, home: box.home, env: {} });
  try {
    afterLoad();
    const registry = runtime.registry();
    return await extensionReport(registry, [...registry.all()]);
  } finally {
    await runtime.close();
  }
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

test("the verdicts of a run that reuses discovery's listings are those of a run that lists every package itself", { timeout: 120_000 }, async () => {
  const box = sandbox();
  const root = path.join(box.cwd, "skills");
  writeSkill(root, "plain", "name: plain\ndescription: Nothing unusual.");
  writeSkill(root, "with-files", "name: with-files\ndescription: Ships files.");
  fs.mkdirSync(path.join(root, "with-files", "references"));
  fs.writeFileSync(path.join(root, "with-files", "references", "guide.md"), "# Guide\n");
  fs.writeFileSync(path.join(root, "with-files", "forms.md"), "form\n");
  fs.writeFileSync(path.join(root, "with-files", ".env"), "SECRET=1\n");
  // A nested skill: its files are not the outer package's.
  writeSkill(root, "outer", "name: outer\ndescription: Holds a nested skill.");
  writeSkill(path.join(root, "outer", "examples"), "inner", "name: inner\ndescription: Nested.");
  // A linked SKILL.md, a linked folder, a lowercase skill.md.
  writeSkill(root, "linked", "name: linked\ndescription: Its manifest is a link.");
  fs.renameSync(path.join(root, "linked", "SKILL.md"), path.join(root, "linked", "real.md"));
  fs.symlinkSync("real.md", path.join(root, "linked", "SKILL.md"));
  writeSkill(root, "folder-link", "name: folder-link\ndescription: Links a folder.");
  fs.symlinkSync(path.join(root, "with-files", "references"), path.join(root, "folder-link", "references"));
  fs.mkdirSync(path.join(root, "lower"));
  fs.writeFileSync(path.join(root, "lower", "skill.md"), "---\nname: lower\ndescription: Lowercase manifest.\n---\n");
  // A folder of more entries than one batch, and a package over the extension's 16 MiB.
  writeSkill(root, "wide", "name: wide\ndescription: Many files at its root.");
  for (let i = 0; i < 140; i++) fs.writeFileSync(path.join(root, "wide", `f${String(i).padStart(3, "0")}.md`), "x");
  writeSkill(root, "heavy", "name: heavy\ndescription: Ships a large file.");
  fs.writeFileSync(path.join(root, "heavy", "data.bin"), "");
  fs.truncateSync(path.join(root, "heavy", "data.bin"), 17 * 1024 * 1024);

  // A file whose name is not UTF-8: no listing can name it, so the package is served without it.
  writeSkill(root, "odd-bytes", "name: odd-bytes\ndescription: Ships a file whose name is not UTF-8.");
  fs.writeFileSync(Buffer.concat([Buffer.from(path.join(root, "odd-bytes", "bad")), Buffer.from([0xff]), Buffer.from(".md")]), "x");

  const verdicts = async () => [...(await verdictsOf(root, box)).entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  const listedAgain = await verdicts();
  const reused = await reportingOnPackages(verdicts);
  assert.deepEqual(reused, listedAgain);
  assert.equal(reused.length, 10);
  assert.deepEqual(Object.fromEntries(reused.map(([name, v]) => [name, v.served])), {
    "folder-link": true,
    heavy: false,
    inner: true,
    linked: true,
    lower: false,
    "odd-bytes": true,
    outer: true,
    plain: true,
    wide: true,
    "with-files": true,
  });
});

test("while discovery's listings are kept, a verdict takes SKILL.md as loading read it; without them it is checked again", { timeout: 120_000 }, async () => {
  const box = sandbox();
  const root = path.join(box.cwd, "skills");
  const manifest = path.join(writeSkill(root, "grows", "name: grows\ndescription: Rewritten after loading."), "SKILL.md");
  const original = fs.readFileSync(manifest);
  // Loads the skill, then rewrites its SKILL.md with a description the extension refuses.
  const verdictAfterRewrite = async () => {
    fs.writeFileSync(manifest, original);
    const rewrite = () => fs.writeFileSync(manifest, `---\nname: grows\ndescription: ${"w".repeat(1025)}\n---\n`);
    return (await verdictsOf(root, box, rewrite)).get("grows");
  };
  assert.deepEqual(await reportingOnPackages(verdictAfterRewrite), { served: true, reason: null, leftOut: [] }, "as of loading: the listing said a regular file, loading stamped it");
  const checkedAgain = await verdictAfterRewrite();
  assert.deepEqual(checkedAgain, { served: false, reason: "frontmatter description must be a string of 1-1024 characters", leftOut: [] }, "no kept listing: SKILL.md is stamped again and read as it is now");
});
