/**
 * Load in one process: 200 tool calls from several sessions at once, mixed with refreshes and
 * with skills appearing on disk meanwhile. Every call must come back as a well-formed envelope,
 * each session must keep its own dedup (one fresh load per skill, never one caused by another
 * session), and nothing may reject unhandled.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { seededRandom } from "../../bench/seeded-random.js";
import { createSkillRuntime } from "../../src/runtime.js";
import { readSessionLog } from "../../src/session/log.js";
import type { Envelope } from "../../src/tool/envelope.js";
import { realTempDir } from "../support/tmp.js";
import { assertEnvelope, recordUnhandledRejections, withinBound, writeSkillDir } from "./support.js";

const unhandled = recordUnhandledRejections();

test("200 concurrent calls from 5 sessions, mixed with refreshes: every answer well-formed, no state crossing", async (t) => {
  const root = realTempDir("skillport-concurrent");
  const skills = path.join(root, "skills");
  const names = Array.from({ length: 24 }, (_, i) => `skill-${String(i).padStart(2, "0")}`);
  for (const name of names) {
    const dir = writeSkillDir(skills, name, { body: `# ${name}\n\nSteps for ${name}. {baseDir}/scripts/run.sh` });
    fs.mkdirSync(path.join(dir, "references"));
    fs.writeFileSync(path.join(dir, "references", "guide.md"), `guide of ${name}\n`);
  }
  writeSkillDir(skills, "gated", { frontmatter: "metadata:\n  requirements:\n    env: SKILLPORT_NEVER_SET_ANYWHERE" });
  const runtime = await createSkillRuntime({ sources: [{ path: skills, origin: "global" }], cwd: root, home: root, env: {} });
  t.after(() => runtime.close());
  const logs = path.join(root, "logs");
  const sessions = Array.from({ length: 5 }, (_, i) => runtime.session({ id: `load-${i}`, log: logs }));
  t.after(() => sessions.forEach((s) => s.close()));

  // Seeded: the same call mix on every run.
  const rand = seededRandom(7);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  type Planned = { session: number; args: Record<string, unknown> };
  const planned: Planned[] = [];
  for (let i = 0; i < 200; i++) {
    const roll = rand();
    const args: Record<string, unknown> =
      roll < 0.45
        ? { name: pick(names) }
        : roll < 0.65
          ? { name: pick(names), file_path: pick(["references/guide.md", "SKILL.md", "../escape", "references/none.md"]) }
          : roll < 0.75
            ? {}
            : roll < 0.82
              ? { name: `late-${i % 6}` }
              : roll < 0.88
                ? { name: "gated" }
                : roll < 0.94
                  ? { name: "no-such-skill" }
                  : pick([{ bogus: 1 }, { file_path: "SKILL.md" }, { name: 42 }, { name: "   " }]);
    planned.push({ session: Math.floor(rand() * sessions.length), args });
  }

  const refreshes: Promise<unknown>[] = [];
  const calls = planned.map(async (plan, i) => {
    if (i % 10 === 0) refreshes.push(runtime.refresh());
    // Skills appear on disk while calls are in flight; a call may or may not find them.
    if (i % 33 === 0) writeSkillDir(skills, `late-${(i / 33) % 6}`);
    return sessions[plan.session]!.call(plan.args);
  });
  const envelopes = await withinBound(Promise.all(calls), "200 concurrent calls");
  await withinBound(Promise.all(refreshes), "the refreshes");

  const freshLoads = sessions.map(() => new Map<string, number>());
  envelopes.forEach((envelope: Envelope, i) => {
    assertEnvelope(envelope, `call ${i} ${JSON.stringify(planned[i]!.args)}`);
    const data = envelope.data as { status?: string; name?: string } | null;
    if (data?.status === "loaded") {
      const seen = freshLoads[planned[i]!.session]!;
      seen.set(data.name!, (seen.get(data.name!) ?? 0) + 1);
    }
  });

  sessions.forEach((session, index) => {
    const loads = freshLoads[index]!;
    for (const [name, count] of loads) assert.equal(count, 1, `session ${index} loaded ${name} ${count} times`);
    assert.deepEqual([...session.loaded()].sort(), [...loads.keys()].sort(), `session ${index} remembers exactly its own loads`);
    const asked = new Set(planned.filter((p) => p.session === index && typeof p.args.name === "string" && !p.args.file_path).map((p) => p.args.name));
    for (const name of session.loaded()) assert.ok(asked.has(name), `session ${index} has ${name} active, which only another session asked for`);
  });

  for (const [index, session] of sessions.entries()) {
    const log = readSessionLog(session.logPath!);
    assert.deepEqual(log.diagnostics, [], `session ${index}'s log reads back whole`);
    const mine = planned.filter((p) => p.session === index).length;
    assert.equal(log.records.filter((r) => r.type === "call").length, mine, `session ${index}'s log holds its own ${mine} calls`);
  }

  const byStatus = new Map<string, number>();
  for (const envelope of envelopes) {
    const key = envelope.ok ? String((envelope.data as { status?: string }).status ?? "list") : String(envelope.error!.code);
    byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
  }
  for (const expected of ["loaded", "already_active", "file_loaded", "list", "invalid_arguments", "skill_not_found", "skill_read_error", "skill_unavailable"]) {
    assert.ok(byStatus.has(expected), `the mix exercised ${expected}: ${JSON.stringify([...byStatus])}`);
  }
  assert.deepEqual(unhandled, [], "no unhandled rejection");
});
