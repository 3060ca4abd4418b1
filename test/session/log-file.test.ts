import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { fileLog, readSessionLog } from "../../src/session/log.js";
import { openLogFileSync, splitAtTrustedBase, stateHome } from "../../src/session/log-file.js";
import type { SessionRecord } from "../../src/session/records.js";
import { realTempDir } from "../support/tmp.js";

const RECORD: SessionRecord = { type: "clear", time: "t" };

function modeOf(file: string): number {
  return fs.lstatSync(file).mode & 0o777;
}

/** The files this process holds open, by the path each descriptor names. */
function openFiles(): string[] {
  const dir = "/proc/self/fd";
  if (!fs.existsSync(dir)) return [];
  const names: string[] = [];
  for (const fd of fs.readdirSync(dir)) {
    try {
      names.push(fs.readlinkSync(path.join(dir, fd)));
    } catch {
      // closed while listing (the listing's own descriptor)
    }
  }
  return names;
}

describe("where a log may be opened", () => {
  it("takes $XDG_STATE_HOME when absolute, else ~/.local/state", () => {
    assert.equal(stateHome({ XDG_STATE_HOME: "/s", HOME: "/h" }), "/s");
    assert.equal(stateHome({ XDG_STATE_HOME: "rel", HOME: "/h" }), "/h/.local/state");
    assert.equal(stateHome({ HOME: "/h" }), "/h/.local/state");
  });

  it("trusts the home or state directory as named and checks every component below it", () => {
    const env = { HOME: "/h", XDG_STATE_HOME: "/h/state" };
    assert.deepEqual(splitAtTrustedBase("/h/state/skillport/sessions", env), { base: "/h/state", below: ["skillport", "sessions"] });
    assert.deepEqual(splitAtTrustedBase("/h/src/repo/.skillport", env), { base: "/h", below: ["src", "repo", ".skillport"] });
    assert.deepEqual(splitAtTrustedBase("/hx/logs", env), { base: "/", below: ["hx", "logs"] });
    assert.deepEqual(splitAtTrustedBase("/var/logs", { HOME: "/h" }), { base: "/", below: ["var", "logs"] });
  });

  it("refuses a symlink at every component of the path and at the file, for appending and reading", () => {
    const top = realTempDir("skillport-logfile");
    const elsewhere = path.join(top, "elsewhere");
    fs.mkdirSync(elsewhere);
    fs.writeFileSync(path.join(elsewhere, "s.jsonl"), `${JSON.stringify(RECORD)}\n`);
    const parts = ["a", "b", "c"];
    for (let linkAt = 0; linkAt <= parts.length; linkAt++) {
      const root = path.join(top, `case-${linkAt}`);
      const real = [root, ...parts.slice(0, linkAt)].join(path.sep);
      fs.mkdirSync(real, { recursive: true });
      const link = linkAt < parts.length ? path.join(real, parts[linkAt]!) : path.join(real, "s.jsonl");
      fs.symlinkSync(linkAt < parts.length ? elsewhere : path.join(elsewhere, "s.jsonl"), link);
      const file = path.join(root, ...parts, "s.jsonl");
      assert.throws(() => openLogFileSync(file, "append"), (error: Error) => error.message === `${link} is a symlink; session logs are never written or read through one (name the real directory instead)`);
      assert.throws(() => openLogFileSync(file, "read"), /is a symlink/);
      const log = fileLog(file);
      const problem = log.append(RECORD);
      assert.equal(problem?.code, "session_log_write_failed");
      assert.match(problem!.message, /is a symlink/);
      log.close();
      const read = readSessionLog(file);
      assert.deepEqual(read.records, [], "nothing is read through the link");
      assert.equal(read.diagnostics[0]?.code, "session_log_unreadable");
    }
    assert.deepEqual(fs.readdirSync(elsewhere), ["s.jsonl"]);
    assert.equal(fs.readFileSync(path.join(elsewhere, "s.jsonl"), "utf8"), `${JSON.stringify(RECORD)}\n`, "the target was never written");
  });

  it("creates missing directories 0700 and the file 0600", () => {
    const top = realTempDir("skillport-logfile");
    const file = path.join(top, "x", "y", "s.jsonl");
    const log = fileLog(file);
    assert.equal(log.append(RECORD), null);
    log.close();
    assert.equal(modeOf(path.join(top, "x")), 0o700);
    assert.equal(modeOf(path.join(top, "x", "y")), 0o700);
    assert.equal(modeOf(file), 0o600);
    assert.deepEqual(readSessionLog(file).records, [RECORD]);
  });

  it("holds no descriptor between records, so idle sessions cost none", { skip: !fs.existsSync("/proc/self/fd") && "no /proc/self/fd here" }, () => {
    const file = path.join(realTempDir("skillport-logfile"), "s.jsonl");
    const log = fileLog(file);
    assert.equal(log.append(RECORD), null);
    assert.equal(log.append(RECORD, { sync: true }), null);
    assert.ok(!openFiles().includes(file), "the log is closed after each record");
    assert.equal(log.sync(), null);
    assert.ok(!openFiles().includes(file));
    log.close();
    assert.equal(readSessionLog(file).records.length, 2);
  });
});
