/**
 * Out of file descriptors (EMFILE) is reported as what it is (SPEC §4 codes: `skill_read_error`,
 * reason `io`), not as a skill that changed or vanished. Run in a real child process whose
 * descriptor limit `ulimit -n` lowers (to 1024: the module loader opens many of the ~250 source
 * files at once while the child starts, and 64 was too few for it), which then opens files until
 * none is left.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import type { Envelope } from "../../src/tool/envelope.js";
import { TSX_LOADER } from "../cli/cli-process.js";
import { realTempDir, writeSkill } from "../support/tmp.js";

const FIXTURE = path.join(import.meta.dirname, "fixtures", "calls-out-of-descriptors.ts");

test("with no file descriptor left, reads and activations say 'too many open files', and work again once descriptors are free", (t) => {
  const bash = spawnSync("bash", ["-c", "ulimit -n 1024 && echo ok"], { encoding: "utf8" });
  if (bash.stdout.trim() !== "ok") {
    t.skip("no bash with ulimit here");
    return;
  }
  const root = realTempDir("skillport-emfile");
  const dir = writeSkill(root, "alpha", "name: alpha\ndescription: Alpha does it.");
  fs.mkdirSync(path.join(dir, "references"));
  fs.writeFileSync(path.join(dir, "references", "guide.md"), "guide\n");
  const calls = [{ name: "alpha", file_path: "references/guide.md" }, { name: "alpha" }];
  const quote = (s: string): string => `'${s.replace(/'/g, "'\\''")}'`;
  const command = `ulimit -n 1024 && exec ${[process.execPath, "--import", TSX_LOADER, FIXTURE, root, JSON.stringify(calls)].map(quote).join(" ")}`;
  const child = spawnSync("bash", ["-c", command], { encoding: "utf8", timeout: 60_000 });
  assert.equal(child.status, 0, child.stderr);
  const report = JSON.parse(child.stdout) as { exhausted: string; starved: Envelope[]; recovered: Envelope[] };
  assert.equal(report.exhausted, "EMFILE");
  for (const envelope of report.starved) {
    assert.equal(envelope.ok, false);
    assert.equal(envelope.error?.code, "skill_read_error");
    assert.equal(envelope.error?.reason, "io");
    assert.match(envelope.error!.message, /too many open files \(EMFILE\)/);
    assert.doesNotMatch(envelope.error!.message, /changed or removed/);
    assert.ok(!envelope.error!.message.includes(root), "no absolute path in the message");
  }
  assert.deepEqual(
    report.recovered.map((e) => (e.ok ? (e.data as { status: string }).status : e.error.code)),
    ["file_loaded", "loaded"],
  );
});
