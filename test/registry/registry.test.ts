import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { loadSkillSync } from "../../src/package/load.js";
import { MAX_WORKERS } from "../../src/registry/parse-pool.js";
import { walkInWorker } from "../../src/registry/source-walk.js";
import { TimeSlicer } from "../../src/registry/time-slice.js";
import { DEFAULT_WALK_OPTIONS } from "../../src/registry/discover.js";
import { createRegistry, type RegistryOptions } from "../../src/registry/registry.js";
import { scanWorkersFor, WORKER_WALK_LIMIT } from "../../src/registry/walk-sources.js";
import type { SkillSource } from "../../src/registry/types.js";
import { memoryTempDir, names, tempDir, writeSkill } from "./skill-tree.js";
import { CORPUS } from "../support/tmp.js";
import { cannotSwitchUser, NOBODY, unprivilegedChild } from "../support/unprivileged.js";

const corpusRoot = CORPUS;

async function loaded(sources: SkillSource[], options: RegistryOptions = {}) {
  const registry = createRegistry(sources, options);
  const outcome = await registry.refresh();
  assert.equal(outcome.ok, true, outcome.ok ? "" : outcome.error);
  return { registry, snapshot: outcome.snapshot };
}

test("all twelve corpus skills load, with the over-long description warned", async () => {
  const { registry, snapshot } = await loaded([{ path: corpusRoot, origin: "bundled" }]);
  assert.equal(snapshot.skills.length, 12);
  assert.ok(names(snapshot.skills).includes("skill-creator"));
  for (const skill of snapshot.skills) {
    assert.equal(skill.origin, "bundled");
    assert.equal(skill.label, "Bundled");
    assert.equal(skill.sourceIndex, 0);
    assert.ok(skill.description.length > 0);
  }
  const warnings = snapshot.diagnostics.filter((d) => d.code === "description_too_long");
  assert.deepEqual(
    warnings.map((d) => path.basename(path.dirname(d.path))),
    ["claude-api"],
  );
  await registry.close();
});

test("snapshots list skills in precedence order: agent, project, global, bundled, then source order", async (t) => {
  const root = tempDir(t);
  const sources: SkillSource[] = [
    { path: path.join(root, "bundled"), origin: "bundled" },
    { path: path.join(root, "global-2"), origin: "global" },
    { path: path.join(root, "project"), origin: "project", projectId: "p" },
    { path: path.join(root, "agent"), origin: "agent", agentId: "a" },
    { path: path.join(root, "global-1"), origin: "global" },
  ];
  for (const source of sources) writeSkill(source.path, `from-${path.basename(source.path)}`);
  const { snapshot } = await loaded(sources);
  assert.deepEqual(names(snapshot.skills), ["from-agent", "from-project", "from-global-2", "from-global-1", "from-bundled"]);
  assert.deepEqual(
    snapshot.skills.map((s) => [s.origin, s.sourceIndex, s.projectId, s.agentId]),
    [
      ["agent", 3, undefined, "a"],
      ["project", 2, "p", undefined],
      ["global", 1, undefined, undefined],
      ["global", 4, undefined, undefined],
      ["bundled", 0, undefined, undefined],
    ],
  );
});

/**
 * Collisions of one name `x` between two sources: which copies stay in the snapshot (by source
 * number, in precedence order) and which `shadowed` diagnostics appear (loser -> winner).
 */
const collisions: { case: string; sources: [SkillSource, SkillSource]; kept: number[]; shadowed: [number, number][] }[] = [
  { case: "two global sources: first wins", sources: [{ path: "0", origin: "global" }, { path: "1", origin: "global" }], kept: [0], shadowed: [[1, 0]] },
  { case: "global beats bundled given first", sources: [{ path: "0", origin: "bundled" }, { path: "1", origin: "global" }], kept: [1], shadowed: [[0, 1]] },
  { case: "two bundled sources: first wins", sources: [{ path: "0", origin: "bundled" }, { path: "1", origin: "bundled" }], kept: [0], shadowed: [[1, 0]] },
  {
    case: "project over global (both kept: other scopes see the global one)",
    sources: [{ path: "0", origin: "global" }, { path: "1", origin: "project", projectId: "p" }],
    kept: [1, 0],
    shadowed: [[0, 1]],
  },
  {
    case: "agent over project",
    sources: [{ path: "0", origin: "project", projectId: "p" }, { path: "1", origin: "agent", agentId: "a" }],
    kept: [1, 0],
    shadowed: [[0, 1]],
  },
  {
    case: "agent over bundled",
    sources: [{ path: "0", origin: "bundled" }, { path: "1", origin: "agent", agentId: "a" }],
    kept: [1, 0],
    shadowed: [[0, 1]],
  },
  {
    case: "same project, two sources: first wins",
    sources: [{ path: "0", origin: "project", projectId: "p" }, { path: "1", origin: "project", projectId: "p" }],
    kept: [0],
    shadowed: [[1, 0]],
  },
  {
    case: "same agent, two sources: first wins",
    sources: [{ path: "0", origin: "agent", agentId: "a" }, { path: "1", origin: "agent", agentId: "a" }],
    kept: [0],
    shadowed: [[1, 0]],
  },
  {
    case: "private skills of different agents never collide",
    sources: [{ path: "0", origin: "agent", agentId: "a" }, { path: "1", origin: "agent", agentId: "b" }],
    kept: [0, 1],
    shadowed: [],
  },
  {
    case: "skills of different projects never collide",
    sources: [{ path: "0", origin: "project", projectId: "p" }, { path: "1", origin: "project", projectId: "q" }],
    kept: [0, 1],
    shadowed: [],
  },
];

for (const row of collisions) {
  test(`precedence: ${row.case}`, async (t) => {
    const root = tempDir(t);
    const sources = row.sources.map((s) => ({ ...s, path: path.join(root, s.path) }));
    const dirs = sources.map((s) => writeSkill(s.path, "x", { description: `Copy in ${path.basename(s.path)}.` }));
    const { snapshot } = await loaded(sources);
    assert.deepEqual(
      snapshot.skills.map((s) => s.dir),
      row.kept.map((i) => dirs[i]),
    );
    const shadowed = snapshot.diagnostics.filter((d) => d.code === "shadowed");
    assert.equal(shadowed.length, row.shadowed.length);
    for (const [[loser, winner], d] of row.shadowed.map((pair, i) => [pair, shadowed[i]!] as const)) {
      assert.equal(d.path, path.join(dirs[loser]!, "SKILL.md"));
      assert.equal(d.severity, "warning");
      assert.ok(d.message.includes(dirs[winner]!), `names the winner: ${d.message}`);
    }
  });
}

test("a skill shadowed by two higher origins names each winner", async (t) => {
  const root = tempDir(t);
  const sources: SkillSource[] = [
    { path: path.join(root, "bundled"), origin: "bundled" },
    { path: path.join(root, "global"), origin: "global" },
    { path: path.join(root, "agent"), origin: "agent", agentId: "a" },
  ];
  const [bundled, global, agent] = sources.map((s) => writeSkill(s.path, "x"));
  const { snapshot } = await loaded(sources);
  assert.deepEqual(snapshot.skills.map((s) => s.dir), [agent, global]);
  const shadowed = snapshot.diagnostics.filter((d) => d.code === "shadowed").map((d) => [d.path, d.message.includes(agent!) ? "agent" : "global"]);
  assert.deepEqual(shadowed, [
    [path.join(global!, "SKILL.md"), "agent"],
    [path.join(bundled!, "SKILL.md"), "global"],
  ]);
});

test("the same real skill directory in two sources is one skill, not a collision", async (t) => {
  const root = tempDir(t);
  const real = writeSkill(path.join(root, "store"), "shared-one");
  fs.mkdirSync(path.join(root, "second"));
  fs.symlinkSync(real, path.join(root, "second", "shared-one"));
  const { registry, snapshot } = await loaded([
    { path: path.join(root, "store"), origin: "global" },
    { path: path.join(root, "second"), origin: "global" },
  ]);
  assert.deepEqual(snapshot.skills.map((s) => s.dir), [real]);
  assert.deepEqual(snapshot.diagnostics, []);
  // Each source's walk reads what it finds (walks may run on different threads); the first
  // copy read serves, and a rescan reads neither again.
  assert.equal(registry.stats().reads, 2);
  await registry.refresh();
  assert.equal(registry.stats().reads, 2, "unchanged, read by neither walk");
});

test("one directory in a global and an agent source gives each its own record, owner and label", async (t) => {
  const root = tempDir(t);
  const real = writeSkill(path.join(root, "store"), "both-places");
  fs.mkdirSync(path.join(root, "agent-a"));
  fs.symlinkSync(real, path.join(root, "agent-a", "both-places"));
  // The agent's source comes first, so the global record is built after (and from) the agent's.
  const { snapshot } = await loaded([
    { path: path.join(root, "agent-a"), origin: "agent", agentId: "a", label: "Mine", followExternalLinks: true },
    { path: path.join(root, "store"), origin: "global" },
  ]);
  assert.deepEqual(
    snapshot.skills.map((s) => [s.origin, s.label, s.sourceIndex, s.agentId, s.dir]),
    [
      ["agent", "Mine", 0, "a", real],
      ["global", "Global", 1, undefined, real],
    ],
  );
  assert.ok(!("agentId" in snapshot.skills[1]!), "the global record carries no owner");
  assert.equal(snapshot.skills[0]!.manifest, snapshot.skills[1]!.manifest, "one parse serves both");
});

test("labels default per origin and a source's own label wins", async (t) => {
  const root = tempDir(t);
  writeSkill(path.join(root, "a"), "one");
  writeSkill(path.join(root, "b"), "two");
  const { snapshot } = await loaded([
    { path: path.join(root, "a"), origin: "global" },
    { path: path.join(root, "b"), origin: "global", label: "Team skills" },
  ]);
  assert.deepEqual(
    snapshot.skills.map((s) => s.label),
    ["Global", "Team skills"],
  );
});

test("an agent source without an agent id is refused with a diagnostic", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "orphan");
  const { snapshot } = await loaded([{ path: root, origin: "agent" }]);
  assert.deepEqual(snapshot.skills, []);
  assert.deepEqual(snapshot.diagnostics.map((d) => d.code), ["source_invalid"]);
});

test("after refresh: a dropped-in skill appears, an edited one changes, a deleted one goes", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "stays", { description: "Original text." });
  const doomed = writeSkill(root, "doomed");
  const { registry, snapshot: first } = await loaded([{ path: root, origin: "global" }]);
  assert.deepEqual(names(first.skills), ["doomed", "stays"]);

  writeSkill(root, "newcomer");
  writeSkill(root, "stays", { description: "Edited text, longer than before." });
  fs.rmSync(doomed, { recursive: true });
  const outcome = await registry.refresh();
  assert.ok(outcome.ok && outcome.changed);
  const second = registry.snapshot();
  assert.equal(second, outcome.snapshot);
  assert.equal(second.version, first.version + 1);
  assert.deepEqual(names(second.skills), ["newcomer", "stays"]);
  assert.equal(second.skills.find((s) => s.name === "stays")!.description, "Edited text, longer than before.");
  assert.deepEqual(names(first.skills), ["doomed", "stays"], "an old snapshot never changes");
  assert.equal(registry.stats().reads, 2 + 2, "only the new and the edited file were read again");
});

test("an edit that keeps the size but changes mtime is picked up", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "same-size", { description: "Version AAAA." });
  const { registry } = await loaded([{ path: root, origin: "global" }]);
  writeSkill(root, "same-size", { description: "Version BBBB." });
  const file = path.join(root, "same-size", "SKILL.md");
  const later = new Date(Date.now() + 5000);
  fs.utimesSync(file, later, later);
  await registry.refresh();
  assert.equal(registry.snapshot().skills[0]!.description, "Version BBBB.");
});

test("a rescan of an unchanged tree re-reads no SKILL.md and keeps the snapshot", async (t) => {
  const root = tempDir(t);
  for (const name of ["a", "b", "c"]) writeSkill(path.join(root, "cat"), `skill-${name}`);
  const { registry, snapshot } = await loaded([{ path: root, origin: "global" }]);
  const before = registry.stats();
  const outcome = await registry.refresh();
  assert.ok(outcome.ok);
  assert.equal(outcome.changed, false);
  assert.equal(outcome.snapshot, snapshot, "no swap: the same snapshot object serves");
  assert.equal(registry.stats().reads, before.reads);
  assert.equal(registry.stats().scans, before.scans + 1);
});

test("two concurrent refreshes share one scan", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "only");
  const { registry } = await loaded([{ path: root, origin: "global" }]);
  writeSkill(root, "added");
  const scansBefore = registry.stats().scans;
  const [a, b] = await Promise.all([registry.refresh(), registry.refresh()]);
  assert.equal(registry.stats().scans, scansBefore + 1);
  assert.equal(a, b);
  assert.deepEqual(names(registry.snapshot().skills), ["added", "only"]);
});

test("a refresh that meets a broken skill keeps every good one serving", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "good-one");
  writeSkill(root, "good-two");
  const turnsBad = writeSkill(root, "turns-bad");
  const { registry } = await loaded([{ path: root, origin: "global" }]);
  fs.writeFileSync(path.join(turnsBad, "SKILL.md"), "---\nname: turns-bad\ndescription: [unclosed\n");
  fs.mkdirSync(path.join(root, "garbage"));
  fs.writeFileSync(path.join(root, "garbage", "SKILL.md"), Buffer.from([0xff, 0xfe, 0x00, 0x80]));
  const outcome = await registry.refresh();
  assert.ok(outcome.ok);
  // The file that loaded before keeps its last good version serving (SPEC §2); the new one is left out.
  assert.deepEqual(names(registry.snapshot().skills), ["good-one", "good-two", "turns-bad"]);
  const errors = registry.snapshot().diagnostics.filter((d) => d.severity === "error");
  assert.deepEqual(errors.map((d) => [path.basename(path.dirname(d.path)), d.code]).sort(), [
    ["garbage", "skill_file_not_utf8"],
    ["turns-bad", "frontmatter_unclosed"],
    ["turns-bad", "last_good_version"],
  ]);
});

test("a SKILL.md truncated mid-write keeps its last good version serving with an error; fixed, the new version serves; deleted, it is gone", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "steady");
  const dir = writeSkill(root, "editing", { description: "First version." });
  const file = path.join(dir, "SKILL.md");
  const { registry, snapshot } = await loaded([{ path: root, origin: "global" }]);
  const good = snapshot.skills.find((s) => s.name === "editing")!;
  // Both later versions have the same length and are given the same mtime, so the fix has the
  // very stamp (size, mtime, inode) of the broken read: only a re-read can tell them apart.
  const fixed = "---\nname: editing\ndescription: Second version.\n---\n\n# editing\n";
  const truncated = fixed.slice(0, 30) + " ".repeat(fixed.length - 30);
  const sameTime = new Date(Date.now() - 60_000);
  fs.writeFileSync(file, truncated);
  fs.utimesSync(file, sameTime, sameTime);

  const broken = await registry.refresh();
  assert.ok(broken.ok && broken.changed, "the error is news");
  assert.equal(broken.snapshot.skills.find((s) => s.name === "editing"), good, "the last good version keeps serving");
  const errors = broken.snapshot.diagnostics.filter((d) => d.path === file);
  assert.deepEqual(errors.map((d) => [d.severity, d.code]), [["error", "frontmatter_unclosed"], ["error", "last_good_version"]]);
  assert.match(errors[1]!.message, /no longer loads .*last good version, 'editing', keeps serving until the file loads again or is removed/);

  const readsBefore = registry.stats().reads;
  const still = await registry.refresh();
  assert.ok(still.ok && !still.changed, "a file that stays broken changes nothing");
  assert.equal(registry.stats().reads, readsBefore + 1, "but it is read again at every scan until it loads");

  fs.writeFileSync(file, fixed);
  fs.utimesSync(file, sameTime, sameTime);
  const after = await registry.refresh();
  assert.ok(after.ok && after.changed);
  assert.equal(after.snapshot.skills.find((s) => s.name === "editing")!.description, "Second version.");
  assert.deepEqual(after.snapshot.diagnostics, []);

  fs.writeFileSync(file, "---\nname: editing\ndescription: [unclosed\n---\n");
  const badYaml = await registry.refresh();
  assert.equal(badYaml.snapshot.skills.find((s) => s.name === "editing")!.description, "Second version.", "bad YAML keeps the last good version too");
  fs.rmSync(file);
  const removed = await registry.refresh();
  assert.deepEqual(names(removed.snapshot.skills), ["steady"]);
  assert.deepEqual(removed.snapshot.diagnostics, [], "a removed file is simply gone");
  await registry.close();
});

test("a file that never loaded has no last good version: it is left out with its error", async (t) => {
  const root = tempDir(t);
  const { registry } = await loaded([{ path: root, origin: "global" }]);
  fs.mkdirSync(path.join(root, "never-good"));
  fs.writeFileSync(path.join(root, "never-good", "SKILL.md"), "---\nname: never-good\n");
  const outcome = await registry.refresh();
  assert.deepEqual(outcome.snapshot.skills, []);
  assert.deepEqual(outcome.snapshot.diagnostics.map((d) => d.code), ["frontmatter_unclosed"]);
  await registry.close();
});

test("10,000 skills in one flat folder load whole", async (t) => {
  const root = memoryTempDir(t);
  const count = 10_000;
  for (let i = 0; i < count; i++) {
    const name = `s-${String(i).padStart(5, "0")}`;
    fs.mkdirSync(path.join(root, name));
    fs.writeFileSync(path.join(root, name, "SKILL.md"), `---\nname: ${name}\ndescription: d\n---\n`);
  }
  const { registry, snapshot } = await loaded([{ path: root, origin: "global" }]);
  assert.equal(snapshot.skills.length, count);
  assert.deepEqual(snapshot.diagnostics, []);
  await registry.close();
});

test("a source's maxDirectories bounds its walk: exactly that many load; one more stops with a warning", async (t) => {
  const root = tempDir(t);
  for (let i = 0; i < 4; i++) writeSkill(root, `s-${i}`);
  const at = await loaded([{ path: root, origin: "global", maxDirectories: 4 }]);
  assert.equal(at.snapshot.skills.length, 4);
  assert.deepEqual(at.snapshot.diagnostics, []);
  await at.registry.close();
  const past = await loaded([{ path: root, origin: "global", maxDirectories: 3 }]);
  assert.deepEqual(names(past.snapshot.skills), ["s-0", "s-1", "s-2"]);
  assert.deepEqual(past.snapshot.diagnostics.map((d) => [d.code, d.path]), [["directory_limit", root]]);
  await past.registry.close();
  const bad = await loaded([{ path: root, origin: "global", maxDirectories: 0 }]);
  assert.deepEqual(bad.snapshot.diagnostics.map((d) => d.code), ["source_invalid"]);
  await bad.registry.close();
});

test("a source that becomes unreadable keeps its last good skills, with an error", async (t) => {
  // File modes do not bind root, so as root the scenario runs in a child as an unprivileged user,
  // bundled into a place that user can reach: the checkout itself may sit under a 0700 directory.
  const root = tempDir(t);
  const cat = path.join(root, "cat");
  writeSkill(cat, "behind-the-door");
  writeSkill(root, "in-the-open");
  const fixture = fileURLToPath(new URL("./fixtures/unreadable-source.ts", import.meta.url));
  let child: { status: number | null; stdout: string; stderr: string };
  if (process.getuid?.() === 0) {
    const cannot = cannotSwitchUser();
    if (cannot) {
      t.skip(`running as root and ${cannot}: file modes cannot be tested here`);
      return;
    }
    for (const dir of [root, cat, path.join(cat, "behind-the-door"), path.join(root, "in-the-open")]) {
      fs.chmodSync(dir, 0o755);
      fs.chownSync(dir, NOBODY, NOBODY);
    }
    // tempDir's parent is the system temp directory, which every user can enter.
    child = (await unprivilegedChild(fixture)).run([root, cat]);
  } else {
    child = spawnSync(process.execPath, ["--import", "tsx", fixture, root, cat], { encoding: "utf8", timeout: 60_000 });
  }
  assert.equal(child.status, 0, child.stderr);
  const result = JSON.parse(child.stdout.trim().split("\n").at(-1)!);
  assert.notEqual(result.uid, 0, "the scenario ran as a user file modes bind");
  assert.deepEqual(result.first, ["behind-the-door", "in-the-open"]);
  assert.deepEqual(result.second, ["behind-the-door", "in-the-open"]);
  assert.ok(result.codes.includes("directory_unreadable"), result.codes.join(", "));
});

/** Starts every pool worker and waits until each has run a walk, so the next scan finds them ready. */
async function warmWorkers(t: TestContext): Promise<void> {
  const dir = tempDir(t);
  writeSkill(dir, "warm-up");
  const runs = Array.from({ length: MAX_WORKERS }, () => {
    let picked = false;
    return walkInWorker(() => (picked ? null : ((picked = true), { source: dir, options: DEFAULT_WALK_OPTIONS, previous: [], stampOf: () => undefined, onLoad: () => {} })), new TimeSlicer()).result;
  });
  for (const run of runs) assert.ok(await run, "a worker ran the warm-up walk");
}

const needsWorkers = { skip: MAX_WORKERS === 0 ? "a single core runs no worker threads" : false };

test(`a tree of ${WORKER_WALK_LIMIT}+ skills in several sources is shared with worker threads, with the same records`, needsWorkers, async (t) => {
  const root = tempDir(t);
  const count = WORKER_WALK_LIMIT + 200;
  const groups = ["group-a", "group-b", "group-c", "group-d"].map((g) => path.join(root, g));
  for (let i = 0; i < count; i++) {
    writeSkill(groups[i % groups.length]!, `bulk-${String(i).padStart(4, "0")}`, {
      description: i % 2 ? `"Quoted: number ${i}."` : `>-\n  Folded\n  number ${i}.`,
      frontmatter: i % 3 === 0 ? "metadata:\n  owner: team\n  tier: \"2\"" : "",
    });
  }
  const sources: SkillSource[] = groups.map((g) => ({ path: g, origin: "global" }));
  // Workers whether or not they pay on this machine: this is about what they give back.
  const { registry, snapshot } = await loaded(sources, { parseWorkers: MAX_WORKERS });
  t.after(() => registry.close());
  assert.equal(snapshot.skills.length, count);
  assert.ok(!snapshot.diagnostics.some((d) => d.code === "worker_failed"));
  const byName = new Map(snapshot.skills.map((s) => [s.name, s]));
  const sample = byName.get("bulk-0003")!;
  assert.equal(sample.description, "Quoted: number 3.");
  assert.deepEqual(sample.manifest.metadata, { owner: "team", tier: "2" });
  assert.equal(byName.get("bulk-0004")!.description, "Folded number 4.");

  // With the tree known to be large and workers ready, they take the first sources at once and
  // the main thread the rest; every record is what loading the file here gives.
  await warmWorkers(t);
  writeSkill(groups[0]!, "bulk-0000", { description: `"Quoted: number 0 again."`, frontmatter: "metadata:\n  owner: team\n  tier: \"2\"" });
  writeSkill(groups[2]!, "bulk-0002", { description: `"Quoted: number 2 again."` });
  const inWorkersBefore = registry.stats().readsInWorkers;
  await registry.refresh();
  assert.equal(registry.stats().reads, count + 2, "only the two edited files were read again");
  // A ready worker takes the first source as the scan starts; who takes the others depends on
  // which thread is free first.
  assert.ok(registry.stats().readsInWorkers >= inWorkersBefore + 1, "the first source's edit was read in a worker");
  const after = new Map(registry.snapshot().skills.map((s) => [s.name, s]));
  assert.equal(after.get("bulk-0000")!.description, "Quoted: number 0 again.");
  assert.deepEqual(after.get("bulk-0000")!.manifest.metadata, sample.manifest.metadata);
  assert.equal(after.get("bulk-0002")!.description, "Quoted: number 2 again.");
  for (const name of ["bulk-0000", "bulk-0002", "bulk-0003"]) {
    const record = after.get(name)!;
    const direct = loadSkillSync(record.dir).skill!;
    assert.deepEqual({ ...record.manifest }, { ...direct.manifest }, name);
    assert.deepEqual(record.stamp, direct.stamp, name);
  }
});

test("the environment recorded in a snapshot is the one read at load", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "any");
  let env: Record<string, string> = { TOKEN: "one" };
  const registry = createRegistry([{ path: root, origin: "global" }], { env: () => env });
  await registry.refresh();
  const first = registry.snapshot();
  env = { TOKEN: "two" };
  assert.equal(first.env.TOKEN, "one");
  const outcome = await registry.refresh();
  assert.ok(outcome.ok && outcome.changed, "an environment change is a change");
  assert.equal(registry.snapshot().env.TOKEN, "two");
  assert.equal(first.env.TOKEN, "one");
});

test("change listeners hear every swap; a closed registry refuses to refresh and keeps its snapshot", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "first");
  const registry = createRegistry([{ path: root, origin: "global" }]);
  const versions: number[] = [];
  registry.onChange((snapshot) => versions.push(snapshot.version));
  await registry.refresh();
  await registry.refresh();
  writeSkill(root, "second");
  await registry.refresh();
  assert.deepEqual(versions, [1, 2]);
  await registry.close();
  const outcome = await registry.refresh();
  assert.equal(outcome.ok, false);
  assert.equal(outcome.snapshot.version, 2);
  assert.deepEqual(names(registry.snapshot().skills), ["first", "second"]);
});

test("within one source, the first skill of a name in walk order wins", async (t) => {
  const root = tempDir(t);
  const first = writeSkill(path.join(root, "a-category"), "dup");
  const second = writeSkill(path.join(root, "b-category"), "dup");
  const { snapshot } = await loaded([{ path: root, origin: "global" }]);
  assert.deepEqual(snapshot.skills.map((s) => s.dir), [first]);
  const [d] = snapshot.diagnostics;
  assert.equal(d?.code, "shadowed");
  assert.equal(d?.path, path.join(second, "SKILL.md"));
  assert.ok(d?.message.includes(first));
});

test("a refresh after a change scans again even when a scan is already running", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "early");
  const registry = createRegistry([{ path: root, origin: "global" }], { env: () => ({}) });
  await registry.refresh();
  const scans = registry.stats().scans;
  const running = registry.refresh();
  writeSkill(root, "late");
  const afterChange = registry.refreshAfterChange();
  const alsoAfterChange = registry.refreshAfterChange();
  const [, outcome, shared] = await Promise.all([running, afterChange, alsoAfterChange]);
  assert.equal(outcome, shared, "calls during one scan share the follow-up");
  assert.deepEqual(names(outcome.snapshot.skills), ["early", "late"]);
  assert.equal(registry.stats().scans, scans + 2);
});

test("records are frozen all the way down; a throwing change listener does not undo the swap", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "solid", { frontmatter: "metadata:\n  owner: team" });
  const registry = createRegistry([{ path: root, origin: "global" }], { env: () => ({}) });
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.message);
  process.on("warning", onWarning);
  t.after(() => process.off("warning", onWarning));
  registry.onChange(() => {
    throw new Error("listener bug");
  });
  const outcome = await registry.refresh();
  assert.ok(outcome.ok && outcome.changed);
  const skill = registry.snapshot().skills[0]!;
  assert.ok(Object.isFrozen(registry.snapshot()) && Object.isFrozen(registry.snapshot().skills));
  assert.ok(Object.isFrozen(skill) && Object.isFrozen(skill.manifest) && Object.isFrozen(skill.manifest.metadata));
  assert.throws(() => (skill.diagnostics as unknown[]).push("x"), TypeError);
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(warnings.some((w) => w.includes("listener bug")));
});

test("a refresh that fails keeps the last good snapshot serving and says why", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "kept");
  const registry = createRegistry([{ path: root, origin: "global" }], { env: () => ({}) });
  await registry.refresh();
  const good = registry.snapshot();
  assert.equal(registry.failure(), null);
  writeSkill(root, "never-seen");
  // Closing while the scan runs makes it fail before its swap.
  const running = registry.refresh();
  await registry.close();
  const outcome = await running;
  assert.equal(outcome.ok, false);
  assert.equal(outcome.snapshot, good);
  assert.equal(registry.snapshot(), good);
  assert.equal(registry.failure()?.code, "refresh_failed");
  assert.deepEqual(names(registry.snapshot().skills), ["kept"]);
});

test(`once ${WORKER_WALK_LIMIT} skills are known, sources are walked in workers and rescans there see every change`, needsWorkers, async (t) => {
  const root = tempDir(t);
  // Two halves, so the big part stays within the per-source directory bound.
  const big = path.join(root, "big");
  const bigB = path.join(root, "big-b");
  const bigCount = WORKER_WALK_LIMIT;
  const small = path.join(root, "small");
  for (let i = 0; i < bigCount; i++) writeSkill(i % 2 ? bigB : big, `big-${String(i).padStart(4, "0")}`);
  for (const name of ["stays", "edited", "deleted", "turns-bad"]) writeSkill(small, `small-${name}`);
  writeSkill(small, "small-lower", { lowercase: true });
  const { registry, snapshot } = await loaded(
    [
      { path: big, origin: "global" },
      { path: bigB, origin: "global" },
      { path: small, origin: "project", projectId: "p" },
    ],
    { parseWorkers: MAX_WORKERS },
  );
  t.after(() => registry.close());
  const total = bigCount + 5;
  assert.equal(snapshot.skills.length, total);
  assert.deepEqual(snapshot.diagnostics.map((d) => d.code), ["skill_file_lowercase"]);
  const lower = snapshot.skills.find((s) => s.name === "small-lower")!;
  assert.equal(path.basename(lower.skillFile), "skill.md");
  assert.equal(lower.projectId, "p");

  const unchanged = await registry.refresh();
  assert.ok(unchanged.ok && !unchanged.changed);
  assert.equal(unchanged.snapshot, snapshot);
  assert.equal(registry.stats().reads, total, "an unchanged rescan reads nothing");

  await warmWorkers(t);
  const inWorkersBefore = registry.stats().readsInWorkers;
  writeSkill(small, "small-edited", { description: "Edited, and longer than before." });
  writeSkill(small, "small-added");
  fs.rmSync(path.join(small, "small-deleted"), { recursive: true });
  fs.writeFileSync(path.join(small, "small-turns-bad", "SKILL.md"), "---\nname: small-turns-bad\ndescription: [unclosed\n");
  writeSkill(big, "big-0006", { description: "Edited in the big source." });
  const outcome = await registry.refresh();
  assert.ok(outcome.ok && outcome.changed);
  const after = outcome.snapshot;
  assert.equal(registry.stats().reads, total + 4, "only the edited, added and broken files were read");
  // A ready worker takes the first source as the scan starts.
  assert.ok(registry.stats().readsInWorkers >= inWorkersBefore + 1, "the big source's edit was read in a worker");
  assert.equal(after.skills.length, total);
  const byName = new Map(after.skills.map((s) => [s.name, s]));
  assert.equal(byName.get("small-edited")!.description, "Edited, and longer than before.");
  assert.equal(byName.get("big-0006")!.description, "Edited in the big source.");
  assert.ok(byName.has("small-added") && !byName.has("small-deleted"));
  assert.equal(byName.get("small-turns-bad"), snapshot.skills.find((s) => s.name === "small-turns-bad"), "a file that stopped loading keeps its last good version");
  assert.equal(byName.get("small-stays"), snapshot.skills.find((s) => s.name === "small-stays"), "unchanged records are reused");
  assert.deepEqual(after.diagnostics.map((d) => [d.code, path.basename(path.dirname(d.path))]).sort(), [
    ["frontmatter_unclosed", "small-turns-bad"],
    ["last_good_version", "small-turns-bad"],
    ["skill_file_lowercase", "small-lower"],
  ]);
});

test("a scan takes on parse workers only from three cores: none on one or two, one per core beyond two, at most the pool's", () => {
  assert.equal(scanWorkersFor(1), 0);
  assert.equal(scanWorkersFor(2), 0);
  assert.equal(scanWorkersFor(3), Math.min(1, MAX_WORKERS));
  assert.equal(scanWorkersFor(4), Math.min(2, MAX_WORKERS));
  assert.equal(scanWorkersFor(64), MAX_WORKERS);
});

test(`a tree of ${WORKER_WALK_LIMIT}+ skills loads on the main thread alone where workers do not pay, with the same records as with workers`, async (t) => {
  const root = tempDir(t);
  const groups = ["group-a", "group-b", "group-c"].map((g) => path.join(root, g));
  for (let i = 0; i < WORKER_WALK_LIMIT + 60; i++) {
    writeSkill(groups[i % groups.length]!, `many-${String(i).padStart(4, "0")}`, {
      description: i % 2 ? `"Quoted: number ${i}."` : `>-\n  Folded\n  number ${i}.`,
      frontmatter: i % 3 === 0 ? "metadata: {owner: team, tier: \"2\"}\ntags: [a, b]" : "",
    });
  }
  const sources: SkillSource[] = groups.map((g) => ({ path: g, origin: "global" }));
  const alone = await loaded(sources, { parseWorkers: 0 });
  t.after(() => alone.registry.close());
  assert.equal(alone.registry.stats().readsInWorkers, 0);
  await alone.registry.refresh();
  assert.equal(alone.registry.stats().readsInWorkers, 0, "a rescan of a tree known to be large stays on the main thread too");
  const shared = await loaded(sources, { parseWorkers: MAX_WORKERS });
  t.after(() => shared.registry.close());
  const plain = (snapshot: typeof alone.snapshot) => JSON.parse(JSON.stringify({ skills: snapshot.skills, diagnostics: snapshot.diagnostics }));
  assert.deepEqual(plain(alone.snapshot), plain(shared.snapshot));
  assert.equal(alone.snapshot.skills.length, WORKER_WALK_LIMIT + 60);
});
