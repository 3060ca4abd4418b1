import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { createSkillRuntime } from "../../src/runtime.js";
import { jsonOf, runCli } from "./cli-process.js";
import { cliTree } from "./skill-fixtures.js";

const tree = cliTree();
const opts = { cwd: tree.cwd, env: tree.env };
const logDir = path.join(tree.cwd, "logs");

interface StatsJson {
  sessions: number;
  skills: Array<{ name: string; activations: number; refusedReactivations: number; fileReads: number; lastUse: string | null }>;
}

async function recordSessions(): Promise<void> {
  const runtime = await createSkillRuntime({ sources: [{ path: tree.root, origin: "global" }], cwd: tree.cwd });
  try {
    for (let i = 0; i < 2; i++) {
      const session = runtime.session({ log: logDir });
      await session.call({ name: "alpha" });
      await session.call({ name: "alpha" });
      await session.call({ name: "alpha", file_path: "references/guide.md" });
      session.close();
    }
  } finally {
    await runtime.close();
  }
}

test("stats sums session logs per skill", async () => {
  await recordSessions();
  const run = await runCli(["stats", "--log-dir", logDir], opts);
  assert.equal(run.code, 0, run.stderr);
  const [header, row] = run.stdout.split("\n");
  assert.match(header!, /^skill +activations +already active +file reads +last use$/);
  assert.match(row!, /^alpha +2 +2 +2 +\d{4}-\d\d-\d\dT/);
  assert.match(run.stdout, /^2 session logs in /m);

  const json = jsonOf<StatsJson>(await runCli(["stats", "--log-dir", logDir, "--json"], opts));
  assert.equal(json.sessions, 2);
  assert.deepEqual(json.skills.map(({ lastUse, ...rest }) => ({ ...rest, used: lastUse !== null })), [
    { name: "alpha", activations: 2, refusedReactivations: 2, fileReads: 2, used: true },
  ]);
});

test("stats with no logs yet says so and exits 0; a --log-dir that does not exist is exit 2", async () => {
  const none = await runCli(["stats"], opts);
  assert.equal(none.code, 0);
  assert.equal(none.stdout, "");
  assert.match(none.stderr, /No session logs in .*\/\.local\/state\/skillport\/sessions yet/);
  const missing = await runCli(["stats", "--log-dir", "nowhere"], opts);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--log-dir nowhere: directory does not exist/);
});

test("stats writes names from a log escaped, one row each: a planted log cannot redraw the terminal or forge rows", async () => {
  const dir = path.join(tree.cwd, "planted-logs");
  const runtime = await createSkillRuntime({ sources: [{ path: tree.root, origin: "global" }], cwd: tree.cwd });
  try {
    const session = runtime.session({ id: "real", log: dir });
    await session.call({ name: "alpha" });
    session.close();
  } finally {
    await runtime.close();
  }
  // Rewrite the loaded skill's name as a hostile log would carry it.
  const file = path.join(dir, "real.jsonl");
  const hostile = "evil\u001b]0;PWNED\u0007\u001b[2J\nforged-skill   99   0   0";
  fs.writeFileSync(file, fs.readFileSync(file, "utf8").replaceAll('"alpha"', JSON.stringify(hostile)));
  const run = await runCli(["stats", "--log-dir", dir], opts);
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotMatch(run.stdout, /\u001b|\u0007/);
  assert.doesNotMatch(run.stdout, /^forged-skill/m);
  assert.match(run.stdout, /^evil\\u\{1b\}\]0;PWNED\\u\{7\}\\u\{1b\}\[2J\\u\{a\}forged-skill/m);
});
