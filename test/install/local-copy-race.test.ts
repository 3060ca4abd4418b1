/**
 * `add` from a local folder whose owner swaps files while it is copied: only the regular files
 * that were checked are ever copied (same device and inode), a link to a secret swapped in is
 * refused, and a FIFO swapped in never hangs the copy.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { folderTarget, installSkills } from "../../src/index.js";
import { tempDir } from "../support/tmp.js";

const SECRET = "api-key=do-not-ship\n";

function localSkill(base: string): { source: string; notes: string; secret: string } {
  const source = path.join(base, "source", "swapped");
  fs.mkdirSync(path.join(source, "references"), { recursive: true });
  fs.writeFileSync(path.join(source, "SKILL.md"), "---\nname: swapped\ndescription: A skill whose owner swaps a file.\n---\n\nRead references/notes.md.\n");
  const notes = path.join(source, "references", "notes.md");
  fs.writeFileSync(notes, "# Notes\n");
  const secret = path.join(base, "secret.txt");
  fs.writeFileSync(secret, SECRET);
  return { source, notes, secret };
}

function targetIn(base: string, name: string): ReturnType<typeof folderTarget> {
  return folderTarget(path.join(base, name, "skills"), path.join(base, name, "skills-lock.json"));
}

test("a file swapped for a link to a secret after it was checked is never copied: the skill is refused and nothing is installed", { timeout: 30_000 }, async () => {
  const base = tempDir("skillport-race-");
  const { source, notes, secret } = localSkill(base);
  const target = targetIn(base, "project");
  // SKILL.md is copied first; before references/notes.md is read, it becomes a link to the secret.
  const report = await installSkills(source, {
    target,
    onCopy: ({ file }) => {
      if (file !== "SKILL.md") return;
      fs.rmSync(notes);
      fs.symlinkSync(secret, notes);
    },
  });
  assert.deepEqual(report.skills.map((s) => s.status), ["refused"]);
  assert.match(report.skills[0]!.messages.join("; "), /references\/notes\.md changed while it was being copied/);
  assert.equal(fs.existsSync(path.join(target.dir, "swapped")), false);
  assert.deepEqual(fs.readdirSync(target.dir), [], "no staging folder is left either");
});

test("a file swapped for a FIFO after it was checked never hangs the copy: the skill is refused", { timeout: 30_000 }, async () => {
  const base = tempDir("skillport-race-");
  const { source, notes } = localSkill(base);
  const target = targetIn(base, "project");
  const report = await installSkills(source, {
    target,
    onCopy: ({ file }) => {
      if (file !== "SKILL.md") return;
      fs.rmSync(notes);
      // Node has no call of its own to make a FIFO.
      spawnSyncOk("mkfifo", [notes]);
    },
  });
  assert.deepEqual(report.skills.map((s) => s.status), ["refused"]);
  assert.equal(fs.existsSync(path.join(target.dir, "swapped")), false);
});

function spawnSyncOk(command: string, args: string[]): void {
  assert.equal(spawnSync(command, args, { stdio: "ignore" }).status, 0, `${command} failed`);
}

test("with a process swapping a file and a link to a secret as fast as it can, 40 installs never copy the secret", { timeout: 120_000 }, async () => {
  const base = tempDir("skillport-race-");
  const { source, notes, secret } = localSkill(base);
  // The source's owner: swaps references/notes.md between a file and a link by rename, in a loop.
  const swapper = spawn(
    process.execPath,
    [
      "-e",
      `const fs = require("fs");
       const [notes, secret] = process.argv.slice(1);
       const end = Date.now() + 110000;
       for (let i = 0; Date.now() < end; i++) {
         const tmp = notes + ".swap";
         try { fs.rmSync(tmp, { force: true }); if (i % 2) fs.symlinkSync(secret, tmp); else fs.writeFileSync(tmp, "# Notes\\n"); fs.renameSync(tmp, notes); } catch {}
       }`,
      notes,
      secret,
    ],
    { stdio: "ignore" },
  );
  try {
    let installed = 0;
    for (let run = 0; run < 40; run++) {
      const target = targetIn(base, `project-${run}`);
      const report = await installSkills(source, { target });
      const copied = path.join(target.dir, "swapped", "references", "notes.md");
      if (report.skills[0]!.status === "installed") {
        installed += 1;
        assert.equal(fs.readFileSync(copied, "utf8"), "# Notes\n", `run ${run}: the copy holds only the checked file`);
        assert.ok(fs.lstatSync(copied).isFile());
      } else {
        assert.equal(fs.existsSync(path.join(target.dir, "swapped")), false, `run ${run}: a refused skill leaves nothing`);
      }
    }
    // Reported for the record; the rule is the assertion above, whatever the scheduling.
    process.stdout.write(`# ${installed} of 40 installs copied the skill; the rest were refused\n`);
  } finally {
    swapper.kill("SIGKILL");
  }
});
