import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { fileLog, logFileStem, readSessionLog, resolveLogPath } from "../../src/session/log.js";
import type { SessionRecord } from "../../src/session/records.js";
import { restoreSession } from "../../src/session/session.js";
import { realTempDir } from "../support/tmp.js";
import { hostOf, runtimeOver } from "./host.js";

const FIXTURE = path.join(import.meta.dirname, "fixtures", "append-forever.ts");
const REPO = path.resolve(import.meta.dirname, "..", "..");

function clearRecord(time: string): SessionRecord {
  return { type: "clear", time };
}

describe("log location", () => {
  it("keeps records in memory unless the host names a log, and writes nothing in the working directory", async () => {
    assert.equal(resolveLogPath("/w", "abc", undefined), null);
    const { runtime, cwd } = await runtimeOver({ alpha: {} });
    const session = runtime.session({ id: "s" });
    assert.equal(session.logPath, null);
    await session.call({ name: "alpha" });
    session.beginCompaction().commit();
    session.close();
    assert.deepEqual(fs.readdirSync(cwd), []);
  });

  it("takes a .jsonl path as the file and anything else as a directory, and false as memory", () => {
    assert.equal(resolveLogPath("/w", "abc", "logs/one.jsonl"), path.resolve("/w/logs/one.jsonl"));
    assert.equal(resolveLogPath("/w", "abc", "/var/logs"), path.resolve("/var/logs/abc.jsonl"));
    assert.equal(resolveLogPath("/w", "abc", false), null);
  });

  it("allows one live session per log however its directory is reached", async () => {
    const dir = realTempDir("skillport-log");
    fs.mkdirSync(path.join(dir, "logs"));
    fs.symlinkSync(path.join(dir, "logs"), path.join(dir, "alias"));
    const { runtime } = await runtimeOver({ alpha: {} });
    const first = runtime.session({ id: "s", log: path.join(dir, "logs", "s.jsonl") });
    assert.throws(() => runtime.session({ id: "s", log: path.join(dir, "alias", "s.jsonl") }), /in use by a live session/);
    first.close();
    runtime.session({ id: "s", log: path.join(dir, "alias", "s.jsonl") }).close();
  });

  it("takes a path ending in a separator as a directory, whatever its name", () => {
    assert.equal(resolveLogPath("/w", "s1", "logs.jsonl/"), path.resolve("/w/logs.jsonl/s1.jsonl"));
    assert.equal(resolveLogPath("/w", "s1", "logs.jsonl"), path.resolve("/w/logs.jsonl"));
  });

  it("never lets a session id climb out of the log directory", () => {
    for (const id of ["../../etc/passwd", "a/b", "..", ".hidden", "x".repeat(200)]) {
      const stem = logFileStem(id);
      assert.match(stem, /^session-[0-9a-f]{32}$/, id);
      assert.equal(path.dirname(resolveLogPath("/w", id, "/logs") ?? ""), path.resolve("/logs"));
    }
    assert.equal(logFileStem("chat-42_v1.2"), "chat-42_v1.2");
  });
});

describe("reading and appending", () => {
  it("round-trips records, one per line", () => {
    const file = path.join(realTempDir("skillport-log"), "s.jsonl");
    const log = fileLog(file);
    assert.equal(fs.existsSync(file), false, "opened lazily");
    log.append(clearRecord("2024-01-01T00:00:00.000Z"));
    log.append(clearRecord("2024-01-01T00:00:01.000Z"), { sync: true });
    log.close();
    assert.equal(fs.readFileSync(file, "utf8").split("\n").length, 3);
    const read = readSessionLog(file);
    assert.deepEqual(read.diagnostics, []);
    assert.deepEqual(read.records.map((record) => record.time), ["2024-01-01T00:00:00.000Z", "2024-01-01T00:00:01.000Z"]);
  });

  it("skips a torn last line with a diagnostic, and a bad middle line too, keeping everything else", () => {
    const file = path.join(realTempDir("skillport-log"), "s.jsonl");
    const good = JSON.stringify(clearRecord("2024-01-01T00:00:00.000Z"));
    fs.writeFileSync(file, `${good}\nnot json\n${good}\n{"type":"clear","ti`);
    const read = readSessionLog(file);
    assert.equal(read.records.length, 2);
    assert.deepEqual(
      read.diagnostics.map((entry) => [entry.code, entry.severity]),
      [
        ["session_log_bad_line", "warning"],
        ["session_log_torn_line", "warning"],
      ],
    );
  });

  it("starts the next record on a fresh line after a torn one", () => {
    const file = path.join(realTempDir("skillport-log"), "s.jsonl");
    fs.writeFileSync(file, '{"type":"cle');
    const log = fileLog(file);
    log.append(clearRecord("2024-01-01T00:00:00.000Z"));
    log.close();
    const read = readSessionLog(file);
    assert.equal(read.records.length, 1);
    assert.equal(read.diagnostics.length, 1);
  });

  it("leaves no file for a session that only asked for its catalog; the first call writes header, catalog and call", async () => {
    const dir = realTempDir("skillport-log");
    const { runtime } = await runtimeOver({ alpha: {} });
    const idle = runtime.session({ id: "idle", log: dir });
    assert.match(idle.catalogText(), /alpha/);
    idle.close();
    assert.deepEqual(fs.readdirSync(dir), []);

    const used = runtime.session({ id: "used", log: dir });
    const catalog = used.catalogText();
    await used.call({ name: "alpha" });
    used.close();
    const { records } = readSessionLog(path.join(dir, "used.jsonl"));
    assert.deepEqual(records.map((r) => r.type), ["session", "catalog", "call"]);
    const restored = runtime.session({ id: "used", log: dir, restore: true });
    assert.equal(restored.catalogText(), catalog, "the pinned catalog came back from the file");
    restored.close();
  });

  it("keeps the start of oversized arguments, not megabytes per call", async () => {
    const dir = realTempDir("skillport-log");
    const { runtime } = await runtimeOver({ alpha: {} });
    const session = runtime.session({ id: "big", log: dir });
    const envelope = await session.call({ name: "x".repeat(1_000_000) });
    assert.equal(envelope.ok, false);
    session.close();
    assert.ok(fs.statSync(path.join(dir, "big.jsonl")).size < 20_000);
    const call = readSessionLog(path.join(dir, "big.jsonl")).records.find((r) => r.type === "call");
    assert.ok(call?.type === "call");
    assert.deepEqual(Object.keys(call.args as object), ["truncated", "chars"]);
    assert.equal((call.args as { chars: number }).chars, JSON.stringify({ name: "x".repeat(1_000_000) }).length);
  });

  it("reads a missing file as an empty log", () => {
    assert.deepEqual(readSessionLog(path.join(realTempDir("skillport-log"), "none.jsonl")), { records: [], diagnostics: [] });
  });

  it("reports a failed write as a diagnostic and keeps the session working in memory", async () => {
    const dir = realTempDir("skillport-log");
    const blocker = path.join(dir, "not-a-dir");
    fs.writeFileSync(blocker, "");
    const { runtime } = await runtimeOver({ alpha: {} });
    const session = runtime.session({ log: path.join(blocker, "s.jsonl") });
    const envelope = await session.call({ name: "alpha" });
    assert.equal(envelope.ok, true);
    assert.deepEqual(session.loaded(), ["alpha"]);
    assert.ok(session.diagnostics().some((entry) => entry.code === "session_log_write_failed"));
    await session.call({});
    await session.call({ name: "alpha" });
    assert.equal(session.diagnostics().filter((entry) => entry.code === "session_log_write_failed").length, 1, "reported once, not per record");
  });

  it("a FIFO at the log's path is refused at once: reading, restoring and writing never block", { skip: process.platform === "win32" }, async () => {
    const fifo = path.join(realTempDir("skillport-log"), "s.jsonl");
    const made = spawnSync("mkfifo", [fifo]);
    assert.equal(made.status, 0, String(made.stderr));
    const read = readSessionLog(fifo);
    assert.deepEqual(read.records, []);
    assert.match(read.diagnostics[0]?.message ?? "", /not a regular file/);
    const { runtime } = await runtimeOver({ alpha: {} });
    const restored = runtime.session({ log: fifo, restore: true });
    assert.deepEqual(restored.loaded(), []);
    restored.close();
    const session = runtime.session({ log: fifo });
    // More than a pipe's 64 KiB of records: a blocking write would have stopped here.
    for (let i = 0; i < 300; i++) assert.equal((await session.call({})).ok, true);
    assert.equal(session.diagnostics().filter((entry) => entry.code === "session_log_write_failed").length, 1);
  });
});

function waitForRecords(child: ReturnType<typeof spawn>, count: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = 0;
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout?.on("data", (chunk: Buffer) => {
      for (const line of chunk.toString().split("\n")) if (/^\d+$/.test(line)) seen = Number(line);
      if (seen >= count) resolve();
    });
    child.on("exit", (code) => reject(new Error(`writer exited early (${code}): ${stderr}`)));
  });
}

describe("a writer killed mid-write", () => {
  it("restores every complete record and skips only the torn tail", { timeout: 25_000 }, async () => {
    const dir = realTempDir("skillport-kill");
    const file = path.join(dir, "killed.jsonl");
    const child = spawn(process.execPath, ["--import", "tsx", FIXTURE, file], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
    try {
      await waitForRecords(child, 300);
    } finally {
      child.kill("SIGKILL");
    }
    await new Promise((resolve) => child.once("close", resolve));

    const written = fs.readFileSync(file, "utf8");
    const completeLines = written.split("\n").length - 1;
    fs.appendFileSync(file, '{"type":"call","time":"2024-01-01T00:00:00.000Z","seq":999999,"toolCall');

    const read = readSessionLog(file);
    assert.ok(completeLines >= 300);
    // Every newline-terminated line is a record; only the tail (the writer's, then ours) is torn.
    const expected = completeLines;
    assert.equal(read.records.length, expected);
    assert.deepEqual(
      read.records.map((record) => (record.type === "call" ? record.seq : -1)),
      Array.from({ length: expected }, (_, index) => index),
    );
    assert.equal(read.diagnostics.at(-1)?.code, "session_log_torn_line");

    const { runtime, cwd } = await runtimeOver({});
    const restored = restoreSession(hostOf(runtime, cwd), file, { id: "killed" });
    assert.equal(restored.history().length, expected);
    const activations = restored.stats().reduce((sum, stats) => sum + stats.activations, 0);
    assert.equal(activations, expected);
    restored.close();
  });
});
