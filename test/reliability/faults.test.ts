/**
 * Faults on disk while skillport runs (SPEC §2, §8): files and directories vanish, become
 * unreadable, are rewritten mid-refresh, loop, or hold far too many entries. Every call still
 * answers with a well-formed envelope, the registry keeps serving complete snapshots only, and
 * nothing throws past the API.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { createSkillRuntime, type SkillRuntime } from "../../src/runtime.js";
import type { Envelope, FileLoadedData, ListData, LoadedData } from "../../src/tool/envelope.js";
import { realTempDir } from "../support/tmp.js";
import { cannotSwitchUser, NOBODY, unprivilegedChild } from "../support/unprivileged.js";
import { assertEnvelope, withinBound, writeSkillDir } from "./support.js";

async function runtimeOver(sources: string[], home: string): Promise<SkillRuntime> {
  return withinBound(
    createSkillRuntime({ sources: sources.map((p) => ({ path: p, origin: "global" as const })), cwd: home, home, env: {} }),
    "creating the runtime",
  );
}

function listedNames(envelope: Envelope): string[] {
  assertEnvelope(envelope);
  assert.equal(envelope.ok, true);
  return (envelope.data as ListData).skill_groups.flatMap((g) => g.skills.map((s) => s.name)).sort();
}

test("a skill deleted between list and activate gets a clean error, then reads as missing after a rescan", async (t) => {
  const root = realTempDir("skillport-deleted");
  const skills = path.join(root, "skills");
  writeSkillDir(skills, "stays");
  const doomed = writeSkillDir(skills, "doomed");
  fs.mkdirSync(path.join(doomed, "references"));
  fs.writeFileSync(path.join(doomed, "references", "notes.md"), "notes\n");
  const runtime = await runtimeOver([skills], root);
  t.after(() => runtime.close());
  const session = runtime.session({ log: false });

  assert.deepEqual(listedNames(await session.call({})), ["doomed", "stays"]);
  fs.rmSync(doomed, { recursive: true });

  const activation = await withinBound(session.call({ name: "doomed" }), "activating a deleted skill");
  assertEnvelope(activation);
  assert.equal(activation.ok, false);
  assert.ok(["skill_not_found", "skill_read_error"].includes(activation.error!.code), activation.error!.code);
  if (activation.error!.code === "skill_read_error") assert.equal(activation.error!.reason, "not_found");
  const read = await withinBound(session.call({ name: "doomed", file_path: "references/notes.md" }), "reading from a deleted skill");
  assertEnvelope(read);
  assert.equal(read.ok, false);
  assert.deepEqual(session.loaded(), [], "a failed activation activates nothing");

  await runtime.refresh();
  assert.deepEqual(listedNames(await session.call({})), ["stays"]);
  const after = await session.call({ name: "doomed" });
  assertEnvelope(after);
  assert.equal(after.error?.code, "skill_not_found");
  assert.equal(((await session.call({ name: "stays" })).data as LoadedData).status, "loaded");
});

/** Whether this process can still read a file its mode forbids (root ignores file modes). */
function readsDespiteMode(file: string): boolean {
  try {
    fs.readFileSync(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Skills `open`, `locked` (its SKILL.md mode 000) and `guarded` (its `references/private.md`
 * mode 000) under `skills`; returns the `locked` skill directory.
 */
function writeLockedSkills(skills: string): string {
  writeSkillDir(skills, "open");
  const locked = writeSkillDir(skills, "locked");
  const guarded = writeSkillDir(skills, "guarded");
  fs.mkdirSync(path.join(guarded, "references"));
  fs.writeFileSync(path.join(guarded, "references", "private.md"), "private\n");
  fs.chmodSync(path.join(locked, "SKILL.md"), 0o000);
  fs.chmodSync(path.join(guarded, "references", "private.md"), 0o000);
  return locked;
}

test("an unreadable SKILL.md and an unreadable reference: the rest loads and every call answers", async (t) => {
  const root = realTempDir("skillport-unreadable");
  const skills = path.join(root, "skills");
  const locked = writeLockedSkills(skills);
  const blocked = !readsDespiteMode(path.join(locked, "SKILL.md"));

  const runtime = await runtimeOver([skills], root);
  t.after(() => runtime.close());
  const session = runtime.session({ log: false });
  const names = listedNames(await session.call({}));
  assert.ok(names.includes("open") && names.includes("guarded"), "readable skills load");
  const read = await withinBound(session.call({ name: "guarded", file_path: "references/private.md" }), "reading an unreadable file");
  assertEnvelope(read);
  if (blocked) {
    assert.ok(!names.includes("locked"), "an unreadable SKILL.md is not loaded");
    assert.ok(
      runtime.diagnostics().some((d) => d.severity === "error" && d.path.startsWith(locked)),
      `a diagnostic names the unreadable file: ${JSON.stringify(runtime.diagnostics())}`,
    );
    assert.equal(read.error?.code, "skill_read_error");
    assert.equal(read.error?.reason, "io");
  } else {
    // Running as root: file modes do not stop reads, so the files load and read like any other.
    t.diagnostic("this process reads files whatever their mode (root); the unprivileged case runs in the next test");
    assert.ok(names.includes("locked"));
    assert.equal((read.data as FileLoadedData).content, "private\n");
  }
});

test("as an unprivileged user, chmod 000 files are refused with diagnostics and io errors", async (t) => {
  if (process.getuid?.() !== 0) {
    t.skip("this process is not root: the previous test already ran with file modes enforced");
    return;
  }
  const cannot = cannotSwitchUser();
  if (cannot) {
    t.skip(`running as root and ${cannot}: file modes cannot be tested here`);
    return;
  }
  const root = realTempDir("skillport-unreadable-nobody");
  fs.chmodSync(root, 0o755);
  const skills = path.join(root, "skills");
  const locked = writeLockedSkills(skills);

  // Bundled into a directory the unprivileged user can reach: the checkout may sit under a 0700 one.
  const runner = await unprivilegedChild(path.join(import.meta.dirname, "fixtures", "load-and-call.ts"));
  const request = {
    sources: [{ path: skills, origin: "global" }],
    home: root,
    calls: [{ name: "locked" }, { name: "guarded", file_path: "references/private.md" }, { name: "open" }],
  };
  const child = runner.run([JSON.stringify(request)], { cwd: root });
  assert.equal(child.status, 0, `child failed: ${child.stderr}`);
  const report = JSON.parse(child.stdout) as {
    uid: number;
    names: string[];
    diagnostics: Array<{ path: string; code: string; severity: string }>;
    envelopes: Envelope[];
  };
  assert.equal(report.uid, NOBODY);
  assert.deepEqual(report.names.sort(), ["guarded", "open"]);
  assert.ok(
    report.diagnostics.some((d) => d.severity === "error" && d.path.startsWith(locked)),
    `a diagnostic names the unreadable SKILL.md: ${JSON.stringify(report.diagnostics)}`,
  );
  const [lockedCall, readCall, openCall] = report.envelopes;
  for (const envelope of report.envelopes) assertEnvelope(envelope);
  assert.equal(lockedCall!.error?.code, "skill_not_found");
  assert.equal(readCall!.error?.code, "skill_read_error");
  assert.equal(readCall!.error?.reason, "io");
  assert.equal((openCall!.data as LoadedData).status, "loaded");
});

test("a source directory removed mid-run: refreshes succeed, the other source keeps serving", async (t) => {
  const root = realTempDir("skillport-source-gone");
  const first = path.join(root, "first");
  const second = path.join(root, "second");
  for (let i = 0; i < 40; i++) writeSkillDir(first, `first-${i}`);
  writeSkillDir(second, "kept");
  const runtime = await runtimeOver([first, second], root);
  t.after(() => runtime.close());
  const session = runtime.session({ log: false });
  assert.equal(((await session.call({ name: "first-0" })).data as LoadedData).status, "loaded");

  // Removed while a refresh walks it: the walk may still have seen some of its skills, but every
  // skill in the snapshot is a complete record, and calls about the vanished ones still answer.
  const refreshing = runtime.refresh();
  fs.rmSync(first, { recursive: true });
  const outcome = await withinBound(refreshing, "a refresh racing the removal");
  assert.ok(outcome.snapshot.skills.some((s) => s.name === "kept"));
  for (const skill of outcome.snapshot.skills) assert.ok(skill.name && skill.description, "complete records only");
  const raced = outcome.snapshot.skills.find((s) => s.name.startsWith("first-") && s.name !== "first-0");
  if (raced) assertEnvelope(await withinBound(session.call({ name: raced.name }), "activating a skill seen mid-removal"));

  const settled = await runtime.refresh();
  assert.equal(settled.ok, true);
  assert.deepEqual(listedNames(await session.call({})), ["kept"]);
  const gone = await session.call({ name: "first-1" });
  assertEnvelope(gone);
  assert.equal(gone.error?.code, "skill_not_found");
  assert.equal(((await session.call({ name: "kept" })).data as LoadedData).status, "loaded");
  assert.deepEqual(session.loaded(), ["first-0", "kept"], "the session keeps what it loaded before the removal");
});

test("a SKILL.md rewritten during refreshes is never served half-written", async (t) => {
  const root = realTempDir("skillport-rewrite");
  const skills = path.join(root, "skills");
  writeSkillDir(skills, "steady");
  const churnDir = path.join(skills, "churn");
  fs.mkdirSync(churnDir);
  const file = path.join(churnDir, "SKILL.md");
  const description = (i: number) => `Version ${i} of the churning skill, complete and valid, with enough words to be cut in the middle.`;
  const versionText = (i: number) =>
    `---\nname: churn\ndescription: >-\n  ${description(i)}\nlicense: Apache-2.0\n---\n\n# churn v${i}\n\n${"Step text. ".repeat(400)}\n`;
  const VERSIONS = 30;
  fs.writeFileSync(file, versionText(0));
  const valid = new Set(Array.from({ length: VERSIONS }, (_, i) => description(i)));

  const runtime = await runtimeOver([skills], root);
  t.after(() => runtime.close());
  const session = runtime.session({ log: false });
  let absentAfterRefresh = 0;

  const check = (where: string, requireDiagnosticWhenAbsent: boolean) => {
    const list = runtime.registry().list();
    assert.ok(list.some((s) => s.name === "steady"), `${where}: the untouched skill is always served`);
    const churn = list.find((s) => s.name === "churn");
    if (churn) assert.ok(valid.has(churn.description), `${where}: served a description that was never complete: ${JSON.stringify(churn.description)}`);
    else if (requireDiagnosticWhenAbsent) {
      absentAfterRefresh++;
      assert.ok(runtime.diagnostics().some((d) => d.path.startsWith(churnDir)), `${where}: a skill left out has a diagnostic`);
    }
  };

  for (let i = 1; i < VERSIONS; i++) {
    const bytes = Buffer.from(versionText(i));
    // Cuts inside the frontmatter, right after it, and inside the body.
    const cut = [12, 40, 90, 130, 160, 600, 3000][i % 7]!;
    const refreshFirst = i % 2 === 0;
    let refreshing = refreshFirst ? runtime.refresh() : null;
    const fd = fs.openSync(file, "w");
    fs.writeSync(fd, bytes, 0, cut);
    refreshing ??= runtime.refresh();
    check(`version ${i} half-written, refresh in flight`, false);
    const activation = session.call({ name: "churn" });
    await new Promise((resolve) => setImmediate(resolve));
    fs.writeSync(fd, bytes, cut, bytes.length - cut);
    fs.closeSync(fd);
    const outcome = await withinBound(refreshing, `refresh during the rewrite to version ${i}`);
    assert.equal(outcome.ok, true, "the refresh itself succeeds");
    check(`after the refresh that raced version ${i}`, true);
    assertEnvelope(await withinBound(activation, "activation during a rewrite"), `activation during version ${i}`);
  }

  await runtime.refresh();
  const final = runtime.registry().list().find((s) => s.name === "churn");
  assert.equal(final?.description, description(VERSIONS - 1), "once the writes are done, the last version is served");
  t.diagnostic(`refreshes that caught the file mid-write and left the skill out until the next one: ${absentAfterRefresh} of ${VERSIONS - 1}`);
});

test("a SKILL.md truncated mid-write keeps its last good version: listed, and activated with the body that goes with it", async (t) => {
  const root = realTempDir("skillport-last-good");
  const skills = path.join(root, "skills");
  const dir = writeSkillDir(skills, "mid-save", { description: "The saved version.", body: "# mid-save\n\nThe saved steps." });
  const file = path.join(dir, "SKILL.md");
  // The fix below has the saved version's size and is given its mtime: the very same stamp.
  const savedAt = new Date(Date.now() - 60_000);
  fs.utimesSync(file, savedAt, savedAt);
  const runtime = await runtimeOver([skills], root);
  t.after(() => runtime.close());
  const first = await runtime.session({ log: false }).call({ name: "mid-save" });
  assert.match((first.data as LoadedData).content, /The saved steps/);

  // An editor caught mid-save: the file truncated, then only its first bytes written.
  const text = fs.readFileSync(file, "utf8").replaceAll("The saved", "The newer");
  fs.writeFileSync(file, text.slice(0, 25));
  await runtime.refresh();
  const listed = runtime.registry().list().find((s) => s.name === "mid-save");
  assert.equal(listed?.description, "The saved version.", "the last good version keeps serving");
  assert.ok(runtime.diagnostics().some((d) => d.severity === "error" && d.code === "last_good_version" && d.path === file));
  const during = await withinBound(runtime.session({ log: false }).call({ name: "mid-save" }), "activating a skill caught mid-save");
  assertEnvelope(during);
  assert.equal(during.ok, true, JSON.stringify(during.error));
  assert.match((during.data as LoadedData).content, /The saved steps/, "the body of the version the record describes");

  fs.writeFileSync(file, text);
  fs.utimesSync(file, savedAt, savedAt);
  await runtime.refresh();
  assert.equal(runtime.registry().list().find((s) => s.name === "mid-save")?.description, "The newer version.");
  assert.match(((await runtime.session({ log: false }).call({ name: "mid-save" })).data as LoadedData).content, /The newer steps/);
  assert.deepEqual(runtime.diagnostics(), []);

  fs.writeFileSync(file, text.slice(0, 25));
  await runtime.refresh();
  fs.rmSync(file);
  await runtime.refresh();
  assert.equal(runtime.registry().list().find((s) => s.name === "mid-save"), undefined, "removed, it is gone");
  assert.deepEqual(runtime.diagnostics(), []);
});

test("symlink loops end their branch with a diagnostic; loops inside a skill never hang a call", async (t) => {
  const root = realTempDir("skillport-loops");
  const skills = path.join(root, "skills");
  const good = writeSkillDir(skills, "good");
  fs.mkdirSync(path.join(good, "references"));
  fs.writeFileSync(path.join(good, "references", "guide.md"), "guide\n");
  fs.symlinkSync(skills, path.join(skills, "back-to-root"));
  fs.symlinkSync(path.join(skills, "ping"), path.join(skills, "pong"));
  fs.symlinkSync(path.join(skills, "pong"), path.join(skills, "ping"));
  fs.symlinkSync(path.join(good, "references"), path.join(good, "references", "self"));
  fs.symlinkSync(path.join(good, "references", "knot-b"), path.join(good, "references", "knot-a"));
  fs.symlinkSync(path.join(good, "references", "knot-a"), path.join(good, "references", "knot-b"));

  const runtime = await runtimeOver([skills], root);
  t.after(() => runtime.close());
  assert.deepEqual(runtime.registry().list().map((s) => s.name), ["good"]);
  const loops = runtime.diagnostics().filter((d) => d.code === "symlink_loop");
  assert.ok(loops.length >= 1, `loop diagnostics: ${JSON.stringify(runtime.diagnostics().map((d) => [d.code, d.path]))}`);

  const session = runtime.session({ log: false });
  const activation = await withinBound(session.call({ name: "good" }), "activating a skill whose references loop");
  assertEnvelope(activation);
  const files = (activation.data as LoadedData).resource_files?.files ?? [];
  assert.ok(files.includes("references/guide.md"));
  assert.ok(files.length <= 500, "the resource listing is bounded");

  const through = await withinBound(session.call({ name: "good", file_path: "references/self/self/self/guide.md" }), "a read through a loop");
  assertEnvelope(through);
  if (through.ok) assert.equal((through.data as FileLoadedData).content, "guide\n");
  const knot = await withinBound(session.call({ name: "good", file_path: "references/knot-a" }), "a read of a symlink cycle");
  assertEnvelope(knot);
  assert.equal(knot.ok, false);
  assert.equal(knot.error!.code, "skill_read_error");
});

test("10,000 files in one references/: the listing is bounded and says so, and calls still answer", async (t) => {
  const root = realTempDir("skillport-many-refs");
  const skills = path.join(root, "skills");
  const dir = writeSkillDir(skills, "crowded");
  const references = path.join(dir, "references");
  fs.mkdirSync(references);
  for (let i = 0; i < 10_000; i++) fs.writeFileSync(path.join(references, `note-${String(i).padStart(5, "0")}.md`), `note ${i}\n`);

  const runtime = await runtimeOver([skills], root);
  t.after(() => runtime.close());
  const session = runtime.session({ log: false });
  const activation = await withinBound(session.call({ name: "crowded" }), "activating a skill with 10,000 references");
  assertEnvelope(activation);
  const loaded = activation.data as LoadedData;
  assert.equal(loaded.status, "loaded");
  assert.ok(loaded.resource_files, "resources are listed");
  assert.ok(loaded.resource_files.files.length > 0 && loaded.resource_files.files.length <= 500, `${loaded.resource_files.files.length} listed`);
  assert.match(loaded.resource_files.guidance, /cut|more files/i, "the listing says it was cut");

  const last = await withinBound(session.call({ name: "crowded", file_path: "references/note-09999.md" }), "reading the last of 10,000");
  assertEnvelope(last);
  assert.equal((last.data as FileLoadedData).content, "note 9999\n", "a file beyond the listed ones is still readable");
  assert.deepEqual(listedNames(await session.call({})), ["crowded"]);
});

test("a SKILL.md swapped for a FIFO after load: calls answer at once, and the rescan the failed read starts drops the skill", { skip: process.platform === "win32" }, async (t) => {
  const root = realTempDir("skillport-fifo-swap");
  const skills = path.join(root, "skills");
  const dir = writeSkillDir(skills, "swapped");
  writeSkillDir(skills, "plain");
  const runtime = await runtimeOver([skills], root);
  t.after(() => runtime.close());
  fs.rmSync(path.join(dir, "SKILL.md"));
  assert.equal(spawnSync("mkfifo", [path.join(dir, "SKILL.md")]).status, 0);

  const session = runtime.session({ log: false });
  const read = await withinBound(session.call({ name: "swapped", file_path: "SKILL.md" }), "a read of a FIFO SKILL.md");
  assertEnvelope(read);
  assert.equal(read.error?.code, "skill_read_error");
  assert.equal(read.error?.reason, "not_a_file");
  // Activation reads SKILL.md too; failing, it rescans once, and the rescan refuses the FIFO.
  const activation = await withinBound(session.call({ name: "swapped" }), "activating a FIFO SKILL.md");
  assertEnvelope(activation);
  assert.equal(activation.error?.code, "skill_not_found");
  const outcome = await withinBound(runtime.refresh(), "a rescan meeting a FIFO SKILL.md");
  assert.equal(outcome.ok, true);
  assert.deepEqual(runtime.registry().list().map((s) => s.name), ["plain"]);
  assert.ok(runtime.diagnostics().some((d) => d.path.startsWith(dir)), "the FIFO is reported");
});

test("parse workers that cannot start cost no skill and never hold up a scan", async (t) => {
  // A real failed start: the built package copied with its worker entry removed, run by plain
  // Node in a child process, over a tree large enough for workers to be asked to join.
  const repo = path.resolve(import.meta.dirname, "../..");
  const built = path.join(repo, "dist", "src");
  if (!fs.existsSync(path.join(built, "registry", "parse-worker.js"))) {
    t.skip("needs the built package (`npm run build`, which CI runs before the tests)");
    return;
  }
  const work = realTempDir("skillport-no-workers");
  const pkg = path.join(work, "pkg");
  fs.cpSync(built, path.join(pkg, "dist", "src"), { recursive: true });
  fs.copyFileSync(path.join(repo, "package.json"), path.join(pkg, "package.json"));
  fs.symlinkSync(path.join(repo, "node_modules"), path.join(pkg, "node_modules"));
  fs.rmSync(path.join(pkg, "dist", "src", "registry", "parse-worker.js"));
  const groups = ["one", "two", "three"].map((g) => path.join(work, "tree", g));
  const perGroup = 400;
  for (const group of groups) {
    for (let i = 0; i < perGroup; i++) writeSkillDir(group, `${path.basename(group)}-${i}`);
  }
  const script = `
    const { createRegistry } = await import(${JSON.stringify(path.join(pkg, "dist", "src", "registry", "registry.js"))});
    const registry = createRegistry(${JSON.stringify(groups.map((g) => ({ path: g, origin: "global" })))}, { env: () => ({}), parseWorkers: 2 });
    const first = await registry.refresh();
    // Known to be large now: the rescan asks for workers from its start.
    const second = await registry.refresh();
    const codes = (o) => o.snapshot.diagnostics.map((d) => d.code);
    console.log(JSON.stringify({ ok: [first.ok, second.ok], counts: [first.snapshot.skills.length, second.snapshot.skills.length], codes: [codes(first), codes(second)], inWorkers: registry.stats().readsInWorkers }));
  `;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 60_000 });
  assert.equal(child.status, 0, child.stderr);
  const result = JSON.parse(child.stdout.trim().split("\n").at(-1)!);
  assert.deepEqual(result.ok, [true, true]);
  assert.deepEqual(result.counts, [groups.length * perGroup, groups.length * perGroup], "no skill lost");
  assert.equal(result.inWorkers, 0);
  // The main thread may finish every source before the failed start is even reported; when it
  // is reported, it is one warning, and nothing else is wrong.
  for (const codes of result.codes) assert.ok(codes.length === 0 || (codes.length === 1 && codes[0] === "worker_failed"), codes.join(", "));
});
