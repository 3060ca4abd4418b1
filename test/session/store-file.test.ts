import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { fileStore, storeFilePath } from "../../src/session/store-file.js";
import { readSessionLog } from "../../src/session/log.js";
import { realTempDir } from "../support/tmp.js";
import { freshKey, storeContract } from "./store-contract.js";

const FIXTURE = path.join(import.meta.dirname, "fixtures", "store-file-append.ts");
const REPO = path.resolve(import.meta.dirname, "..", "..");

// One instance serves both writers: the file store is for one process, and a second instance
// in the same process refuses a file the first holds (one live writer per log file).
storeContract("file", async () => {
  const store = fileStore(realTempDir("skillport-store"));
  return { a: store, b: store, close: () => store.close() };
});

describe("file store on disk", () => {
  it("writes the file log's own lines: a session file of today's format, a principal in a directory of its own", async () => {
    const dir = realTempDir("skillport-store");
    const store = fileStore(dir);
    const plain = freshKey();
    const scoped = { principal: "agent:a/../../x", sessionId: plain.sessionId };
    await store.appendAt(plain, 0, [{ type: "clear", time: "t" }]);
    await store.appendAt(scoped, 0, [{ type: "clear", time: "u" }]);
    await store.close();
    assert.equal(storeFilePath(dir, plain), path.join(dir, `${plain.sessionId}.jsonl`));
    assert.equal(fs.readFileSync(path.join(dir, `${plain.sessionId}.jsonl`), "utf8"), '{"type":"clear","time":"t"}\n');
    const scopedFile = storeFilePath(dir, scoped);
    assert.equal(path.dirname(path.dirname(scopedFile)), path.join(dir, "principals"));
    assert.deepEqual(readSessionLog(scopedFile).records, [{ type: "clear", time: "u" }]);
  });

  it("skips torn and foreign lines without giving them a sequence, and appends after them on a fresh line", async () => {
    const dir = realTempDir("skillport-store");
    const key = freshKey();
    const file = storeFilePath(dir, key);
    fs.writeFileSync(file, '{"type":"clear","time":"a"}\n{"type":"nonsense"}\n{"type":"clear","time":"b"}\n{"type":"cle', { mode: 0o600 });
    const store = fileStore(dir);
    const read = await store.read(key);
    assert.deepEqual(read.records.map((r) => [r.seq, (r.record as { time: string }).time]), [[0, "a"], [1, "b"]]);
    assert.deepEqual(read.diagnostics.map((d) => d.code), ["session_log_bad_line", "session_log_torn_line"]);
    assert.equal((await store.appendAt(key, 1, [{ type: "clear", time: "c" }])).status, "conflict");
    assert.deepEqual(await store.appendAt(key, 2, [{ type: "clear", time: "c" }]), { status: "ok", nextSeq: 3 });
    await store.close();
    assert.deepEqual(readSessionLog(file).records.map((r) => (r as { time: string }).time), ["a", "b", "c"]);
  });

  it("notices a file another writer grew and answers conflict", async () => {
    const dir = realTempDir("skillport-store");
    const key = freshKey();
    const store = fileStore(dir);
    await store.appendAt(key, 0, [{ type: "clear", time: "a" }]);
    fs.appendFileSync(storeFilePath(dir, key), '{"type":"clear","time":"elsewhere"}\n');
    const result = await store.appendAt(key, 1, [{ type: "clear", time: "b" }]);
    assert.equal(result.status, "conflict");
    assert.deepEqual(result.status === "conflict" && result.records.map((r) => (r.record as { time: string }).time), ["elsewhere"]);
    await store.close();
  });

  const strace = spawnSync("strace", ["-V"]).status === 0 ? null : "strace is not installed";
  it("fsyncs a durable append and only a durable one", { skip: strace ?? false }, () => {
    const fsyncs = (mode: string): number => {
      const dir = realTempDir("skillport-store");
      const run = spawnSync("strace", ["-f", "-qq", "-e", "trace=fsync,fdatasync", process.execPath, "--import", "tsx", FIXTURE, dir, mode], {
        cwd: REPO,
        encoding: "utf8",
      });
      assert.equal(run.status, 0, run.stderr);
      return run.stderr.split("\n").filter((line) => /\bf(data)?sync\(/.test(line)).length;
    };
    const baseline = fsyncs("none");
    assert.equal(fsyncs("plain") - baseline, 0);
    assert.equal(fsyncs("durable") - baseline, 3);
  });
});
