/**
 * A session log survives its process being killed (SPEC §5.6, §8): a child runs a real runtime
 * and session making real tool calls, and is SIGKILLed mid-stream. Every call it had finished is
 * in the log, the log reads back with at most a torn last line, and a session restored from it
 * has the same dedup state and statistics and keeps appending cleanly.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { createSkillRuntime } from "../../src/runtime.js";
import { readSessionLog } from "../../src/session/log.js";
import type { CallRecord } from "../../src/session/records.js";
import { TSX_LOADER } from "../cli/cli-process.js";
import { realTempDir } from "../support/tmp.js";
import { assertEnvelope, withinBound, writeSkillDir } from "./support.js";

const SKILLS = 8;
const CALLS_BEFORE_KILL = 60;

function buildTree(root: string): string {
  const skills = path.join(root, "skills");
  for (let i = 0; i < SKILLS; i++) {
    const dir = writeSkillDir(skills, `task-${i}`, { body: `# task ${i}\n\n${"Do this step carefully. ".repeat(200)}` });
    fs.mkdirSync(path.join(dir, "references"));
    // Large records: each read puts ~200 KB into one log line, so a kill is likely mid-stream.
    fs.writeFileSync(path.join(dir, "references", "big.md"), `${i}`.repeat(200 * 1024));
  }
  return skills;
}

interface Reported {
  seq: number;
  status: string;
  name: string;
}

/** Runs the writer until it reports `count` finished calls, then SIGKILLs it. */
async function runAndKill(skills: string, logFile: string, count: number): Promise<Reported[]> {
  const child = spawn(process.execPath, ["--import", TSX_LOADER, path.join(import.meta.dirname, "fixtures", "session-writer.ts"), skills, logFile], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const reported: Reported[] = [];
  let pending = "";
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
  await withinBound(
    new Promise<void>((resolve, reject) => {
      child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
        pending += chunk;
        const lines = pending.split("\n");
        pending = lines.pop()!;
        for (const line of lines) {
          const [seq, status, name] = line.split(" ");
          reported.push({ seq: Number(seq), status: status!, name: name! });
        }
        if (reported.length >= count && child.exitCode === null) {
          child.kill("SIGKILL");
          resolve();
        }
      });
      child.once("exit", (code) => {
        if (reported.length < count) reject(new Error(`writer exited early (${code}):\n${stderr}`));
      });
    }),
    "the writer reaching its calls",
  );
  assert.equal(await exited, "SIGKILL");
  return reported;
}

test("SIGKILL while a session writes: every finished call is in the log and a restore resumes it", async (t) => {
  const root = realTempDir("skillport-session-crash");
  const skills = buildTree(root);
  const logFile = path.join(root, "logs", "crash-test.jsonl");
  const reported = await runAndKill(skills, logFile, CALLS_BEFORE_KILL);

  const read = readSessionLog(logFile);
  assert.ok(read.diagnostics.length <= 1, `at most the last line is torn: ${JSON.stringify(read.diagnostics)}`);
  const calls = read.records.filter((r): r is CallRecord => r.type === "call");
  const bySeq = new Map(calls.map((c) => [c.seq, c]));
  for (const done of reported) {
    const record = bySeq.get(done.seq);
    assert.ok(record, `finished call ${done.seq} is missing from the log`);
    assert.equal(record.toolCallId, `call-${done.seq}`);
    const status = record.envelope.ok ? ((record.envelope.data as { status?: string }).status ?? "list") : record.envelope.error.code;
    assert.equal(status, done.status, `call ${done.seq} logged as it was answered`);
  }
  assert.deepEqual(
    calls.map((c) => c.seq),
    calls.map((_, i) => i),
    "the logged calls are a gapless prefix of the stream",
  );

  const runtime = await createSkillRuntime({ sources: [{ path: skills, origin: "global" }], cwd: root, home: root, env: {} });
  t.after(() => runtime.close());
  const loadedBefore = [...new Set(calls.filter((c) => (c.envelope.data as { status?: string } | null)?.status === "loaded").map((c) => (c.args as { name: string }).name))];
  assert.ok(loadedBefore.length > 0);
  const restored = runtime.session({ log: logFile, restore: true });
  t.after(() => restored.close());
  assert.equal(restored.id, "crash-test");
  assert.deepEqual(restored.loaded(), loadedBefore, "the restored session has the same skills active, in the same order");
  const activations = restored.stats().reduce((n, s) => n + s.activations, 0);
  assert.equal(activations, loadedBefore.length, "statistics are rebuilt from the log");
  const again = await withinBound(restored.call({ name: loadedBefore[0]! }), "a call on the restored session");
  assertEnvelope(again);
  assert.equal((again.data as { status: string }).status, "already_active", "dedup survives the crash");

  const reread = readSessionLog(logFile);
  const last = reread.records.at(-1) as CallRecord;
  assert.equal(last.type, "call");
  assert.equal(last.seq, calls.length, "the restored session continues the sequence");
  assert.ok(reread.diagnostics.length <= read.diagnostics.length, "appending after a crash does not damage the log");
});

test("a kill that tears the last record: every complete record is restored and the torn one is reported", async (t) => {
  const root = realTempDir("skillport-session-torn");
  const skills = buildTree(root);
  const logFile = path.join(root, "logs", "crash-test.jsonl");
  await runAndKill(skills, logFile, 12);

  // A write cut short by the kill leaves the start of a record with no newline: make it so.
  const text = fs.readFileSync(logFile, "utf8").trimEnd();
  const lines = text.split("\n");
  const tornLength = Math.floor(lines.at(-1)!.length / 2);
  fs.writeFileSync(logFile, `${lines.slice(0, -1).join("\n")}\n${lines.at(-1)!.slice(0, tornLength)}`);
  const complete = lines.length - 1;

  const read = readSessionLog(logFile);
  assert.equal(read.records.length, complete, "every complete record is kept");
  assert.equal(read.diagnostics.length, 1);
  assert.equal(read.diagnostics[0]!.code, "session_log_torn_line");

  const runtime = await createSkillRuntime({ sources: [{ path: skills, origin: "global" }], cwd: root, home: root, env: {} });
  t.after(() => runtime.close());
  const restored = runtime.session({ log: logFile, restore: true });
  t.after(() => restored.close());
  assert.ok(restored.diagnostics().some((d) => d.code === "session_log_torn_line"), "the restore reports the torn line");
  assertEnvelope(await restored.call({ name: "task-7" }));
  const after = readSessionLog(logFile);
  assert.equal(after.records.length, complete + 1, "the next record starts on its own line, after the torn one");
  assert.equal(after.diagnostics.length, 1, "still only the torn line is skipped");
});
