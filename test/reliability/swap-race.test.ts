/**
 * A local attacker racing the confined read (SECURITY.md): a directory inside a skill renamed
 * away and replaced by a link to a directory outside, and back, over and over, while reads run.
 * The real path is checked before the open, so a swap between that check and the open used to
 * serve the outside file; the opened descriptor is now proved to lie inside the skill before a
 * byte is read. The swapper is a real child process running flat out on another core.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { readConfinedFile } from "../../src/package/confined-read.js";
import { writeSkillFile } from "../../src/package/confined-write.js";
import { createSkillRuntime } from "../../src/runtime.js";
import { realTempDir, writeSkill } from "../support/tmp.js";
import { assertEnvelope } from "./support.js";

const INSIDE = "inside the skill\n";
const OUTSIDE = "OUTSIDE-SECRET-5d1e\n";
const LIBRARY_READS = 30_000;
const TOOL_READS = 6_000;

/**
 * Swaps `docs` for a link to `target` and back until killed: rename the real folder away, put
 * the link in its place, remove the link, rename the folder back. Counts its rounds on stdout
 * every 1,000, so the test knows the race is really running.
 */
const SWAPPER = `
const fs = require("node:fs");
const [docs, away, target] = process.argv.slice(1);
for (let round = 1; ; round++) {
  try { fs.renameSync(docs, away); } catch {}
  try { fs.symlinkSync(target, docs); } catch {}
  try { fs.unlinkSync(docs); } catch {}
  try { fs.renameSync(away, docs); } catch {}
  if (round % 1000 === 0) fs.writeSync(1, "r");
}
`;

test("a folder swapped for a link out of the skill while thousands of reads run serves no outside byte, through the library or the tool", { timeout: 300_000 }, async (t) => {
  const root = realTempDir("skillport-swap-race");
  const skills = path.join(root, "skills");
  const skill = writeSkill(skills, "racy", "name: racy\ndescription: A skill whose folder is swapped while it is read.");
  fs.mkdirSync(path.join(skill, "docs"));
  fs.writeFileSync(path.join(skill, "docs", "x.md"), INSIDE);
  const outsideDocs = path.join(root, "outside", "docs");
  fs.mkdirSync(outsideDocs, { recursive: true });
  fs.writeFileSync(path.join(outsideDocs, "x.md"), OUTSIDE);

  const runtime = await createSkillRuntime({ sources: [{ path: skills, origin: "global" }], cwd: root, home: root, env: {} });
  t.after(() => runtime.close());
  const session = runtime.session({ log: false });

  const swapper = spawn(process.execPath, ["-e", SWAPPER, path.join(skill, "docs"), path.join(skill, "docs-away"), outsideDocs], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => swapper.once("exit", resolve));
  t.after(async () => {
    if (swapper.exitCode === null && swapper.signalCode === null) swapper.kill("SIGKILL");
    await exited;
  });
  let rounds = 0;
  swapper.stdout!.setEncoding("utf8").on("data", (chunk: string) => (rounds += chunk.length * 1000));
  // The race runs once the swapper has made its first thousand rounds.
  await new Promise<void>((resolve) => swapper.stdout!.once("data", () => resolve()));

  let leaks = 0;
  let served = 0;
  let refused = 0;
  // A read never leaves the microtask queue, so the swapper's reports are taken in now and then.
  const takeReports = () => new Promise((resolve) => setImmediate(resolve));
  for (let i = 0; i < LIBRARY_READS; i++) {
    if (i % 1000 === 0) await takeReports();
    const read = await readConfinedFile(skill, "docs/x.md");
    if (read.ok) {
      served++;
      if (read.content !== INSIDE) leaks++;
    } else refused++;
  }
  for (let i = 0; i < TOOL_READS; i++) {
    if (i % 1000 === 0) await takeReports();
    const envelope = await session.call({ name: "racy", file_path: "docs/x.md" });
    assertEnvelope(envelope);
    if (envelope.ok) {
      served++;
      if ((envelope.data as { content: string }).content !== INSIDE) leaks++;
    } else refused++;
  }
  await takeReports();
  const roundsDuring = rounds;
  swapper.kill("SIGKILL");
  await exited;

  // Not a timing assertion: both counts only show that reads and swaps really interleaved.
  assert.ok(roundsDuring > 1000, `the swapper kept running (${roundsDuring} rounds)`);
  assert.ok(served > 0 && refused > 0, `reads met both states of the folder (served ${served}, refused ${refused})`);
  assert.equal(leaks, 0, `${leaks} reads served the outside file (${served} served, ${refused} refused of ${LIBRARY_READS + TOOL_READS}, over ${roundsDuring} swaps)`);
});

/**
 * Exchanges `docs` and a link to a folder outside in one step (renameat2 RENAME_EXCHANGE), flat
 * out: the folder is always either the real one or the link, the tightest race a writer meets.
 * Reports on stdout once running.
 */
const EXCHANGER = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = (p.encode() for p in sys.argv[1:3])
libc.renameat2(-100, a, -100, b, 2)
libc.renameat2(-100, a, -100, b, 2)
sys.stdout.write("r"); sys.stdout.flush()
while True:
    libc.renameat2(-100, a, -100, b, 2)
`;

function hasPython(): boolean {
  try {
    return spawnSync("python3", ["-c", "import ctypes"], { stdio: "ignore" }).status === 0;
  } catch {
    return false;
  }
}

test("a folder exchanged for a link out of the skill while thousands of writes run gets no file written outside", { timeout: 300_000, skip: process.platform !== "linux" || !hasPython() ? "needs Linux renameat2 (through python3)" : false }, async (t) => {
  const root = realTempDir("skillport-write-race");
  const skill = writeSkill(root, "racy", "name: racy\ndescription: A skill whose folder is swapped while it is written.");
  fs.mkdirSync(path.join(skill, "docs"));
  const outside = path.join(root, "outside");
  fs.mkdirSync(outside);
  fs.symlinkSync(outside, path.join(skill, "docs-link"));
  const exchanger = spawn("python3", ["-c", EXCHANGER, path.join(skill, "docs"), path.join(skill, "docs-link")], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise((resolve) => exchanger.once("exit", resolve));
  t.after(async () => {
    if (exchanger.exitCode === null && exchanger.signalCode === null) exchanger.kill("SIGKILL");
    await exited;
  });
  await new Promise<void>((resolve) => exchanger.stdout!.once("data", () => resolve()));
  let written = 0;
  let refused = 0;
  for (let i = 0; i < 20_000; i++) {
    const outcome = writeSkillFile(skill, "docs/x.md", `write ${i}\n`);
    if (outcome.ok) written++;
    else refused++;
  }
  exchanger.kill("SIGKILL");
  await exited;
  assert.ok(refused > 0, "the race ran: some writes met the link");
  assert.ok(written > 0, "the race ran: some writes met the folder");
  assert.deepEqual(fs.readdirSync(outside), [], `${written} written, ${refused} refused`);
});
