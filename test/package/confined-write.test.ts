// The write lock of a skill (src/package/confined-write.ts): whoever finds it can always tell who
// holds it. A lock seen empty names no process, so it could only be broken by age, and a writer
// killed at that moment would lock every other writer out for 30 s.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { TSX_LOADER } from "../cli/cli-process.js";
import { readSkillText } from "../../src/package/confined-write.js";
import { realTempDir } from "../support/tmp.js";

const MODULE = path.resolve(import.meta.dirname, "../../src/package/confined-write.ts");

test("a skill's write lock is never seen without its holder in it, however often it is taken", { timeout: 120_000 }, async () => {
  const root = realTempDir("skillport-lock");
  const skillDir = path.join(root, "notes");
  fs.mkdirSync(skillDir);
  const lockFile = path.join(root, ".notes.skillport-lock");
  // Another process takes and releases the lock as fast as it can, 20,000 times.
  const script = `
    const { withSkillWriteLock } = await import(${JSON.stringify(MODULE)});
    for (let i = 0; i < 20000; i++) withSkillWriteLock(${JSON.stringify(skillDir)}, () => null);
  `;
  const child = spawn(process.execPath, ["--import", TSX_LOADER, "--input-type=module", "-e", script], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  let done = false;
  void exited.then(() => (done = true));
  let seen = 0;
  const empty: number[] = [];
  while (!done) {
    let text: string | null = null;
    try {
      text = fs.readFileSync(lockFile, "utf8");
    } catch {
      // Not held at this moment.
    }
    if (text !== null) {
      seen += 1;
      if (!/^\d+ \S+ \d+ [0-9a-f]{12}\n$/.test(text)) empty.push(seen);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.equal(await exited, 0, stderr);
  assert.ok(seen > 0, "the lock was never seen held; the test proves nothing");
  assert.deepEqual(empty, [], `the lock was seen without its holder ${empty.length} times in ${seen}`);
});

test("a file of exactly 1 MiB is read for a change; one byte more is too_large to change", () => {
  const dir = realTempDir("big-change");
  fs.writeFileSync(path.join(dir, "SKILL.md"), "---\nname: big\ndescription: d\n---\n");
  fs.writeFileSync(path.join(dir, "at.md"), "a".repeat(1024 * 1024));
  fs.writeFileSync(path.join(dir, "over.md"), "a".repeat(1024 * 1024 + 1));
  const atLimit = readSkillText(dir, "at.md");
  assert.ok(atLimit.ok);
  assert.equal(atLimit.text.length, 1024 * 1024);
  const over = readSkillText(dir, "over.md");
  assert.ok(!over.ok);
  assert.equal(over.reason, "too_large");
});

test("a skill folder swapped for a link after loading is neither written, removed from, deleted nor read through", async () => {
  const { writeSkillFile, removeSkillFile, deleteSkillFolder } = await import("../../src/package/confined-write.js");
  const { readConfinedBytes } = await import("../../src/package/confined-read.js");
  const root = realTempDir("swapped-skill");
  // The folder loading registered (a real path), and a shared skill elsewhere it is swapped for.
  const mine = path.join(root, "authored", "mine");
  const shared = path.join(root, "shared", "pool-skill");
  for (const dir of [mine, shared]) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "SKILL.md"), "---\nname: x\ndescription: y\n---\n");
    fs.writeFileSync(path.join(dir, "keep.md"), `kept in ${path.basename(dir)}\n`);
  }
  assert.equal(writeSkillFile(mine, "notes.md", "mine\n").ok, true, "the registered folder itself is written");
  fs.renameSync(mine, `${mine}.away`);
  fs.symlinkSync(shared, mine);

  const written = writeSkillFile(mine, "scripts/evil.sh", "echo hi\n");
  assert.equal(written.ok, false);
  assert.equal(fs.existsSync(path.join(shared, "scripts")), false, "nothing written into the shared skill");
  assert.equal(removeSkillFile(mine, "keep.md").ok, false);
  assert.equal(fs.readFileSync(path.join(shared, "keep.md"), "utf8"), "kept in pool-skill\n");
  assert.equal(deleteSkillFolder(mine).ok, false);
  assert.ok(fs.existsSync(path.join(shared, "SKILL.md")));
  const read = await readConfinedBytes(mine, "keep.md", { maxBytes: 1024 });
  assert.deepEqual([read.ok, read.ok ? "" : read.reason], [false, "illegal_path"], "the shared skill's file is not read under this skill's name");
  // A folder above it swapped the same way is refused as well.
  fs.rmSync(mine);
  fs.renameSync(`${mine}.away`, mine);
  fs.renameSync(path.join(root, "authored"), path.join(root, "authored.away"));
  fs.symlinkSync(path.join(root, "shared"), path.join(root, "authored"));
  fs.renameSync(shared, path.join(root, "shared", "mine"));
  assert.equal(writeSkillFile(mine, "notes.md", "again\n").ok, false);
  assert.equal(fs.existsSync(path.join(root, "shared", "mine", "notes.md")), false);
});

test("writers that find one abandoned skill write lock at once never both hold it, and none removes a lock that is no longer its own", { timeout: 300_000 }, async () => {
  const { hostname } = await import("node:os");
  const { spawnSync } = await import("node:child_process");
  const root = realTempDir("skillport-lock-break");
  const deadPid = Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);
  for (let trial = 0; trial < 8; trial++) {
    const skillDir = path.join(root, `skill-${trial}`);
    fs.mkdirSync(skillDir);
    const lockFile = path.join(root, `.skill-${trial}.skillport-lock`);
    // Left by a writer that was killed: its holder no longer runs.
    fs.writeFileSync(lockFile, `${deadPid} ${hostname()} ${Date.now()} 000000000000\n`);
    const inside = path.join(root, `inside-${trial}`);
    const go = path.join(root, `go-${trial}`);
    // Each writer, once let go, takes the lock and holds it a moment; entering while another is inside is an overlap.
    const script = `
      const fs = await import("node:fs");
      const { withSkillWriteLock } = await import(${JSON.stringify(MODULE)});
      while (!fs.existsSync(${JSON.stringify(go)})) {}
      const result = withSkillWriteLock(${JSON.stringify(skillDir)}, () => {
        try { fs.closeSync(fs.openSync(${JSON.stringify(inside)}, "wx")); } catch { return "overlap"; }
        const until = Date.now() + 40; while (Date.now() < until) {}
        fs.rmSync(${JSON.stringify(inside)});
        return "held";
      });
      process.stdout.write(result.ok ? result.value : "busy");
    `;
    const runs = Array.from({ length: 6 }, () => {
      const child = spawn(process.execPath, ["--import", TSX_LOADER, "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
      const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      return new Promise<string>((resolve) => child.once("exit", () => { clearTimeout(timer); resolve(out); }));
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    fs.writeFileSync(go, "");
    const outcomes = await Promise.all(runs);
    assert.ok(!outcomes.includes("overlap"), `trial ${trial}: two writers held the lock at once (${outcomes.join(" ")})`);
    assert.ok(outcomes.includes("held"), `trial ${trial}: the abandoned lock was broken (${outcomes.join(" ")})`);
    assert.equal(fs.existsSync(lockFile), false, `trial ${trial}: the lock is gone once every writer ended`);
  }
});
