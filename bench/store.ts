/**
 * The session store: what a replica pays for keeping conversations in PostgreSQL.
 *
 * - `append`: one `appendAt` of a call record (an activation's envelope, ~1.5 KB) to PostgreSQL
 *   on loopback, plain (synchronous_commit off) and durable (on), one after another;
 * - `call`: a `tools/call` of `skill` through the MCP SDK client over HTTP, against the
 *   replicated server on PostgreSQL and against the single-process server with a file log, in
 *   one process, alternating, each on its own session (a repeat activation, `already_active`,
 *   so every call reads and appends the same way); wall time, and this process's CPU time per
 *   call (client and server both run here, so the difference is the servers');
 * - `replay`: opening a stored session of 1,000 records (header, catalog, 998 calls) from
 *   PostgreSQL and from the file store: read plus fold.
 *
 * Uses `SKILLPORT_TEST_DATABASE_URL` when set, else starts a throwaway server (as the tests do).
 * Standalone: `node --import tsx bench/store.ts [--samples N]`; `npm run bench` runs it once,
 * beside the per-size modules.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { serveMcpHttp } from "../src/adapters/http/live-sessions.js";
import { serveMcpHttpReplicated } from "../src/adapters/http/stored-sessions.js";
import { createSkillRuntime } from "../src/runtime.js";
import type { CallRecord, SessionRecord } from "../src/session/records.js";
import { fileStore } from "../src/session/store-file.js";
import { postgresStore } from "../src/session/store-postgres.js";
import type { SessionStore } from "../src/session/store.js";
import { freshDatabase } from "../test/support/postgres.js";
import { summarise, type Summary } from "./measure.js";

export interface StoreBench {
  appendPlain: Summary;
  appendDurable: Summary;
  callStore: Summary;
  callFileLog: Summary;
  /** This process's CPU time per call (user + system), ms: the client's share is the same on both sides. */
  cpuStore: Summary;
  cpuFileLog: Summary;
  replayPostgres: Summary;
  replayFile: Summary;
}

const SKILL_COUNT = 20;
const BODY = `# Procedure\n\n${"Follow this step carefully and check the result before going on. ".repeat(20)}\n`;

function writeSkills(root: string): void {
  for (let index = 0; index < SKILL_COUNT; index += 1) {
    const dir = path.join(root, `skill-${index}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "SKILL.md"), `---\nname: skill-${index}\ndescription: Does task number ${index} when asked.\n---\n\n${BODY}`);
  }
}

function callRecord(seq: number): CallRecord {
  const name = `skill-${seq % SKILL_COUNT}`;
  return {
    type: "call",
    time: new Date().toISOString(),
    seq,
    toolCallId: String(seq),
    args: { name },
    envelope: { ok: true, error: null, data: { name, status: "loaded", content: BODY } },
    activation: { tools: null, allowedTools: null, env: [] },
  };
}

async function timeEach(count: number, run: (index: number) => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const start = performance.now();
    await run(index);
    times.push(performance.now() - start);
  }
  return times;
}

/** A conversation of `records` records in `store`: header, catalog, calls. */
async function fillConversation(store: SessionStore, sessionId: string, records: number): Promise<void> {
  const key = { principal: "", sessionId };
  const all: SessionRecord[] = [
    { type: "session", v: 1, time: new Date().toISOString(), id: sessionId, compaction: "carry", carryBudgetBytes: 24000 },
    { type: "catalog", time: new Date().toISOString(), text: "<available_skills/>" },
  ];
  for (let seq = 0; all.length < records; seq += 1) all.push(callRecord(seq));
  for (let at = 0; at < all.length; at += 100) {
    const result = await store.appendAt(key, at, all.slice(at, at + 100));
    if (result.status !== "ok") throw new Error(`filling the conversation: ${result.status}`);
  }
}

export async function measureStore(samples = 300): Promise<StoreBench> {
  const db = await freshDatabase();
  if (!db.url) throw new Error(db.skip);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "skillport-bench-store-"));
  const root = path.join(work, "skills");
  writeSkills(root);
  const pg = await postgresStore(db.url);
  try {
    // Appends: one session each kind, record after record.
    const plainKey = { principal: "", sessionId: "bench-append-plain" };
    const durableKey = { principal: "", sessionId: "bench-append-durable" };
    for (let seq = 0; seq < 20; seq += 1) await pg.appendAt(plainKey, seq, [callRecord(seq)]);
    const appendPlain = await timeEach(samples, (index) => pg.appendAt(plainKey, 20 + index, [callRecord(20 + index)]));
    const appendDurable = await timeEach(Math.min(samples, 100), (index) => pg.appendAt(durableKey, index, [callRecord(index)], { durable: true }));

    // Replay: read and fold 1,000 records.
    const files = fileStore(path.join(work, "file-store"));
    await fillConversation(pg, "bench-replay", 1000);
    await fillConversation(files, "bench-replay", 1000);
    const replayRuntime = await createSkillRuntime({ sources: [{ path: root, origin: "global" }], env: {}, store: pg, cwd: work });
    const fileRuntime = await createSkillRuntime({ sources: [{ path: root, origin: "global" }], env: {}, store: files, cwd: work });
    const replayCount = Math.max(10, Math.round(samples / 10));
    for (let index = 0; index < 3; index += 1) await replayRuntime.openStoredSession("bench-replay");
    const replayPostgres = await timeEach(replayCount, () => replayRuntime.openStoredSession("bench-replay"));
    const replayFile = await timeEach(replayCount, () => fileRuntime.openStoredSession("bench-replay"));
    await replayRuntime.close();
    await fileRuntime.close();
    await files.close();

    // Calls through a replica with the store, and through the single-process server with a file log.
    const runtime = await createSkillRuntime({ sources: [{ path: root, origin: "global" }], env: {}, store: pg, cwd: work });
    // Per-connection dedup, so a repeat activation is the same small `already_active` answer it was measured as.
    const serverOptions = { version: "bench", log: () => {}, dedup: "connection" as const };
    const replica = await serveMcpHttpReplicated(runtime, { ...serverOptions, session: {} }, { port: 0, idleTimeoutMs: 0 });
    const single = await serveMcpHttp(runtime, { ...serverOptions, session: { log: path.join(work, "logs") + path.sep } }, { port: 0, idleTimeoutMs: 0 });
    const clients = await Promise.all(
      [replica.url, single.url].map(async (url) => {
        const client = new Client({ name: "bench", version: "1" });
        await client.connect(new StreamableHTTPClientTransport(new URL(url)));
        await client.callTool({ name: "skill", arguments: { name: "skill-1" } });
        return client;
      }),
    );
    const callStore: number[] = [];
    const callFileLog: number[] = [];
    const cpuStore: number[] = [];
    const cpuFileLog: number[] = [];
    for (let index = 0; index < samples + 20; index += 1) {
      for (const [which, client] of clients.entries()) {
        const start = performance.now();
        const cpu = process.cpuUsage();
        const result = await client.callTool({ name: "skill", arguments: { name: "skill-1" } });
        const used = process.cpuUsage(cpu);
        const ms = performance.now() - start;
        if ((result.structuredContent as { data?: { status?: string } }).data?.status !== "already_active") throw new Error("unexpected answer");
        if (index >= 20) {
          (which === 0 ? callStore : callFileLog).push(ms);
          (which === 0 ? cpuStore : cpuFileLog).push((used.user + used.system) / 1000);
        }
      }
    }
    await Promise.all(clients.map((client) => client.close()));
    await replica.close();
    await single.close();
    await runtime.close();
    return {
      appendPlain: summarise(appendPlain),
      appendDurable: summarise(appendDurable),
      callStore: summarise(callStore),
      callFileLog: summarise(callFileLog),
      cpuStore: summarise(cpuStore),
      cpuFileLog: summarise(cpuFileLog),
      replayPostgres: summarise(replayPostgres),
      replayFile: summarise(replayFile),
    };
  } finally {
    await pg.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

const f = (value: number): string => value.toFixed(2);

export function renderStoreSection(result: StoreBench | { error: string }): string {
  const lines = ["## Session store (PostgreSQL on loopback)", ""];
  if ("error" in result) return [...lines, `Not measured: ${result.error}`, ""].join("\n");
  const row = (what: string, s: Summary, target: string): string => `| ${what} | ${f(s.median)} | ${f(s.min)} | ${f(s.max)} | ${s.n} | ${target} |`;
  lines.push(
    "| measurement | median ms | min | max | n | target |",
    "|---|---|---|---|---|---|",
    row("append one call record (synchronous_commit off)", result.appendPlain, "≤ 1 ms"),
    row("append one call record, durable (synchronous_commit on)", result.appendDurable, "—"),
    row("tools/call through a replica with the store", result.callStore, `≤ 2× the file log (${f(result.callStore.median / result.callFileLog.median)}×)`),
    row("tools/call through the single-process server, file log", result.callFileLog, "—"),
    row("node CPU per tools/call, replica with the store (client + server)", result.cpuStore, `${f(result.cpuStore.median / result.cpuFileLog.median)}× the file log`),
    row("node CPU per tools/call, single process, file log (client + server)", result.cpuFileLog, "—"),
    row("replay 1,000 records from PostgreSQL (read + fold)", result.replayPostgres, "≤ 20 ms"),
    row("replay 1,000 records from the file store", result.replayFile, "—"),
    "",
  );
  return lines.join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf("--samples");
  const samples = at >= 0 ? Number(process.argv[at + 1]) : 300;
  const result = await measureStore(samples);
  process.stdout.write(renderStoreSection(result));
  // The throwaway server, if one was started, stops when the process exits.
  process.exit(0);
}
