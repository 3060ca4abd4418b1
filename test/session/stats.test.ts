import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { readStatsDir, statsFromRecords } from "../../src/session/stats.js";
import { realTempDir } from "../support/tmp.js";
import { runtimeOver } from "./host.js";

describe("statistics", () => {
  it("counts activations, refused re-activations, file reads and last use per skill", async () => {
    const { root, runtime } = await runtimeOver({ alpha: {}, beta: {} });
    fs.mkdirSync(path.join(root, "beta", "assets"));
    fs.writeFileSync(path.join(root, "beta", "assets", "t.txt"), "template");
    const session = runtime.session({ log: false });
    await session.call({ name: "alpha" });
    await session.call({ name: "alpha" });
    await session.call({ name: "beta", file_path: "assets/t.txt" });
    await session.call({ name: "beta", file_path: "assets/missing.txt" });
    await session.call({ name: "gamma" });
    await session.call({});
    const stats = session.stats();
    assert.deepEqual(
      stats.map(({ name, activations, refusedReactivations, fileReads }) => ({ name, activations, refusedReactivations, fileReads })),
      [
        { name: "alpha", activations: 1, refusedReactivations: 1, fileReads: 0 },
        { name: "beta", activations: 0, refusedReactivations: 0, fileReads: 1 },
      ],
    );
    const lastCallTime = session.history().filter((record) => record.type === "call")[1]?.time;
    assert.equal(stats[0]?.lastUse, lastCallTime);
    assert.deepEqual(statsFromRecords(session.history()), stats);
  });

  it("sums a directory of session logs and reports torn lines", async () => {
    const { runtime } = await runtimeOver({ alpha: {} });
    const dir = realTempDir("skillport-stats");
    for (const id of ["one", "two"]) {
      const session = runtime.session({ id, log: dir });
      await session.call({ name: "alpha" });
      await session.call({ name: "alpha" });
      session.close();
    }
    fs.appendFileSync(path.join(dir, "two.jsonl"), '{"type":"ca');
    fs.writeFileSync(path.join(dir, "notes.txt"), "not a log");
    const result = readStatsDir(dir);
    assert.equal(result.sessions, 2);
    assert.deepEqual(
      result.skills.map(({ name, activations, refusedReactivations }) => [name, activations, refusedReactivations]),
      [["alpha", 2, 2]],
    );
    assert.deepEqual(result.diagnostics.map((entry) => entry.code), ["session_log_torn_line"]);
  });

  it("treats a missing directory as no sessions", () => {
    assert.deepEqual(readStatsDir(path.join(realTempDir("skillport-stats"), "absent")), { skills: [], sessions: 0, diagnostics: [] });
  });
});
