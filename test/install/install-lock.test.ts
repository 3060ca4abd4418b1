/**
 * The install lock beside `skills-lock.json` under real concurrent processes: only one run holds
 * it at a time, even when several find the same abandoned lock and break it at once, so every
 * skill that lands in the folder lands in the lockfile too.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { TSX_LOADER } from "../cli/cli-process.js";
import { folderTarget, installSkills, InstallError, readSkillsLock } from "../../src/index.js";
import { tempDir } from "../support/tmp.js";

const CHILD = path.resolve(import.meta.dirname, "install-lock-child.ts");
const RUNS = 4;
const TRIALS = 8;

/** A pid that ran and is gone: what a run killed mid-install leaves in its lock. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);
}

function localSkill(root: string, name: string): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: The ${name} skill.\n---\n\nDo it.\n`);
  for (let i = 0; i < 3; i++) fs.writeFileSync(path.join(dir, `part-${i}.md`), `${name} ${i}\n`);
  return dir;
}

function runChild(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", TSX_LOADER, CHILD, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`child exited ${code}: ${err}`));
      resolve((JSON.parse(out.trim()) as { outcome: string }).outcome);
    });
  });
}

test("runs that find one abandoned install lock at once never both hold it: every skill in the folder is in the lockfile", { timeout: 300_000 }, async () => {
  const base = tempDir("skillport-lock-race-");
  for (let trial = 0; trial < TRIALS; trial++) {
    const project = path.join(base, `trial-${trial}`);
    const dir = path.join(project, "skills");
    const lockfile = path.join(project, "skills-lock.json");
    fs.mkdirSync(project, { recursive: true });
    // Left by a run that was killed: its holder is a process that no longer runs.
    fs.writeFileSync(path.join(project, ".skills-lock.json.lock"), `${deadPid()} ${os.hostname()} ${Date.now()} 000000000000\n`);
    const go = path.join(project, "go");
    const sources = Array.from({ length: RUNS }, (_, i) => localSkill(path.join(base, `sources-${trial}`), `skill-${i}`));
    const outcomes = sources.map((source) => runChild([source, dir, lockfile, go]));
    // Every child is started and waiting before any is let go.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    fs.writeFileSync(go, "");
    const results = await Promise.all(outcomes);
    const installedDirs = fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => !name.startsWith(".")).sort() : [];
    const recorded = [...(readSkillsLock(lockfile).get("skills")?.keys() ?? [])].sort();
    assert.deepEqual(recorded, installedDirs, `trial ${trial}: outcomes ${results.join(" ")}`);
    assert.ok(results.includes("installed"), `trial ${trial}: one run takes the abandoned lock (${results.join(" ")})`);
    assert.equal(fs.existsSync(path.join(project, ".skills-lock.json.lock")), false, `trial ${trial}: the lock is gone once every run ended`);
  }
});

test("a run never removes an install lock that is no longer its own", { timeout: 60_000 }, async () => {
  const base = tempDir("skillport-lock-own-");
  const source = localSkill(path.join(base, "sources"), "one");
  const target = folderTarget(path.join(base, "project", "skills"), path.join(base, "project", "skills-lock.json"));
  const lock = path.join(base, "project", ".skills-lock.json.lock");
  const other = `${process.ppid} ${os.hostname()} ${Date.now()} ffffffffffff\n`;
  // While this run copies, its lock is broken and another (live) run's lock stands in its place.
  await installSkills(source, {
    target,
    onCopy: ({ file }) => {
      if (file !== "SKILL.md") return;
      fs.rmSync(lock);
      fs.writeFileSync(lock, other);
    },
  });
  assert.equal(fs.readFileSync(lock, "utf8"), other, "the other run's lock is left in place");
  await assert.rejects(installSkills(source, { target, force: true }), (error: unknown) => error instanceof InstallError && /is changing these skills/.test(error.message));
});

test("an install lock without its holder in it is not taken for abandoned until it is old", { timeout: 60_000 }, async () => {
  const base = tempDir("skillport-lock-empty-");
  const source = localSkill(path.join(base, "sources"), "one");
  const target = folderTarget(path.join(base, "project", "skills"), path.join(base, "project", "skills-lock.json"));
  const lock = path.join(base, "project", ".skills-lock.json.lock");
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  // A run that has created its lock and not yet written into it (an older skillport could).
  fs.writeFileSync(lock, "");
  await assert.rejects(installSkills(source, { target }), (error: unknown) => error instanceof InstallError && /is changing these skills/.test(error.message));
  const old = new Date(Date.now() - 10 * 60_000);
  fs.utimesSync(lock, old, old);
  const report = await installSkills(source, { target });
  assert.deepEqual(report.skills.map((s) => s.status), ["installed"]);
});
