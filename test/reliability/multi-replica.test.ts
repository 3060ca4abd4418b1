/**
 * Any replica serves any conversation (SPEC §9), with a replica killed mid-run.
 *
 * Three `skillport mcp --http PORT --store postgres://…` processes share one real PostgreSQL;
 * a real HAProxy deals requests round robin (no stickiness), retrying a request whose connection
 * failed or that got no response on another replica. Fifty MCP SDK clients hold conversations
 * of 36 tool calls each (listings, activations, repeated activations, file reads), and each
 * conversation is compacted twice through the library, which appends the checkpoint to the same
 * store. When 40% of the calls have been answered, one replica is killed with SIGKILL; for the
 * answers just before that, a relay drops its responses, so requests it stored but never answered
 * are retried by HAProxy on the others.
 *
 * Afterwards, read straight from the store: every call a client got an answer to is stored once
 * with the answer it got, in order; sequences have no gap; per conversation and compaction epoch
 * each skill was `loaded` exactly once however many replicas served its activations; a skill added
 * on disk reaches every client as `tools/list_changed` (only one replica watches the folder, so the
 * others learn it from the store's notifications); and a conversation restored from the store
 * decides the next activations exactly as the live servers do.
 *
 * Runs when PostgreSQL (see test/support/postgres.ts) and HAProxy are available; skips saying why
 * otherwise, unless SKILLPORT_REQUIRE_POSTGRES=1, which makes their absence a failure.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Envelope } from "../../src/tool/envelope.js";
import { homeEnv, runCli } from "../cli/cli-process.js";
import { startTcpRelay } from "../support/tcp-relay.js";
import { haproxyMissing, startHaproxy, type Haproxy } from "../support/haproxy.js";
import { startHttpServer, type HttpServer } from "../support/mcp-server.js";
import { freshDatabase } from "../support/postgres.js";
import { realTempDir } from "../support/tmp.js";
import { assertEnvelope, childEnv, writeSkillDir } from "./support.js";
import { closeShared, compactThroughLibrary, probeRestored, readConversation, type StoredConversation } from "./multi-replica-store.js";

const REPLICAS = 3;
const CONVERSATIONS = 50;
const CALLS_PER_CONVERSATION = 36;
/** Compactions happen after these many calls of each conversation. */
const COMPACT_AFTER = [12, 24];
const KILL_AT_FRACTION = 0.4;
const KILLED = 1;
/**
 * For this many answers before the kill, the killed replica's answers are held back (it acts on
 * requests and stores them, but its responses never leave): the kill then lands where idempotency
 * keys matter, between a stored call and its answer, which a bare SIGKILL almost never hits.
 */
const HELD_BEFORE_KILL = 20;
/** The one replica that watches the skills folder; the others hear of changes through the store. */
const WATCHER = 0;
/** The whole run, start to checks; past it the test fails saying where it stood. */
const OVERALL_BOUND_MS = 6 * 60_000;
/** How often a client tries a call the network lost before the test gives up on it. */
const CLIENT_ATTEMPTS = 5;

const SKILLS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"] as const;

type Op = { kind: "call"; args: Record<string, string> } | { kind: "compact" };

/** A small deterministic generator, so a failing plan can be replayed. */
function generator(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

/** One conversation: listings, activations (each skill asked for again and again), reads; two compactions. */
function plan(index: number): Op[] {
  const random = generator(0x5eed + index * 7919);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const ops: Op[] = [{ kind: "call", args: {} }];
  for (let calls = 1; calls < CALLS_PER_CONVERSATION; calls += 1) {
    if (COMPACT_AFTER.includes(calls)) ops.push({ kind: "compact" });
    const roll = random();
    const name = pick(SKILLS);
    if (roll < 0.55) ops.push({ kind: "call", args: { name } });
    else if (roll < 0.85) ops.push({ kind: "call", args: { name, file_path: pick(["SKILL.md", "references/guide.md"]) } });
    else ops.push({ kind: "call", args: {} });
  }
  return ops;
}

/** Every `Skillport-Registry-Digest` a response carried, from any replica. */
const digestsSeen = new Set<string>();

interface Acknowledged {
  args: Record<string, string>;
  envelope: Envelope;
}

interface ConversationRun {
  index: number;
  sessionId: string;
  client: Client;
  acknowledged: Acknowledged[];
  /** Attempts that got no answer (the network or a replica failed) and were tried again. */
  lostAttempts: number;
  listChanged: number;
  /** Times of the latest successful GET (event stream opened) and of the latest stream loss. */
  streamOpenedAt: number;
  streamLostAt: number;
}

const unavailable = haproxyMissing();
const database = await freshDatabase();
const skip = database.skip ?? unavailable ?? undefined;
if (skip !== undefined && process.env.SKILLPORT_REQUIRE_POSTGRES === "1") {
  throw new Error(`SKILLPORT_REQUIRE_POSTGRES=1, but ${skip}`);
}

const children: Array<{ stop(): Promise<void> }> = [];
after(async () => {
  for (const child of children.reverse()) await child.stop();
  await closeShared();
});

test("three replicas behind HAProxy, one killed mid-run: every answered call stored once, no gap, one load per epoch, list_changed for all, restore = live", { skip, timeout: OVERALL_BOUND_MS + 30_000 }, async () => {
  const storeUrl = database.url!;
  const root = realTempDir("skillport-multi-replica");
  const skillsDir = path.join(root, "skills");
  for (const name of SKILLS) {
    const dir = writeSkillDir(skillsDir, name, { body: `# ${name}\n\nFollow the ${name} steps, in order.` });
    fs.mkdirSync(path.join(dir, "references"));
    fs.writeFileSync(path.join(dir, "references", "guide.md"), `The ${name} guide.\n`);
  }
  const started = Date.now();
  const phase = { now: "starting replicas" };
  const deadline = setTimeout(() => {
    process.stderr.write(`multi-replica: over ${OVERALL_BOUND_MS} ms while ${phase.now}\n`);
  }, OVERALL_BOUND_MS);
  deadline.unref();
  const bounded = <T>(work: Promise<T>, what: string): Promise<T> => {
    const left = OVERALL_BOUND_MS - (Date.now() - started);
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the run exceeded ${OVERALL_BOUND_MS / 1000} s while ${what}`)), Math.max(left, 0));
      }),
    ]).finally(() => clearTimeout(timer));
  };

  // Replicas, then the proxy in front of them.
  const replicas: HttpServer[] = [];
  for (let index = 0; index < REPLICAS; index += 1) {
    const args = ["--root", skillsDir, "--store", storeUrl, "--dedup", "connection", ...(index === WATCHER ? ["--watch"] : [])];
    const replica = await bounded(startHttpServer(args, { cwd: root, env: childEnv(root) }), `starting replica ${index}`);
    replicas.push(replica);
    children.push(replica);
  }
  phase.now = "starting haproxy";
  const relay = await startTcpRelay(Number(replicas[KILLED]!.url.port));
  children.push({ stop: () => relay.cut() });
  const proxy: Haproxy = await bounded(
    startHaproxy(replicas.map((replica, index) => ({ name: `r${index}`, address: `127.0.0.1:${index === KILLED ? relay.port : replica.url.port}` }))),
    "starting haproxy",
  );
  children.push(proxy);

  // Conversations.
  phase.now = "running conversations";
  const totalCalls = CONVERSATIONS * CALLS_PER_CONVERSATION;
  const killAt = Math.floor(totalCalls * KILL_AT_FRACTION);
  let answered = 0;
  let killedAfter: number | null = null;
  const onAnswered = (): void => {
    answered += 1;
    if (answered === killAt - HELD_BEFORE_KILL) relay.hold();
    if (answered === killAt && killedAfter === null) {
      killedAfter = answered;
      replicas[KILLED]!.child.kill("SIGKILL");
      void relay.cut();
    }
  };

  const runs = await bounded(
    Promise.all(Array.from({ length: CONVERSATIONS }, (_, index) => converse(index, proxy.url, storeUrl, skillsDir, onAnswered))),
    "running the conversations",
  );
  assert.equal(killedAfter, killAt, "the replica was killed at 40% of the calls");
  assert.notEqual(replicas[KILLED]!.child.signalCode, null, "the killed replica is gone");
  assert.ok(relay.heldBytes() > 0, "the killed replica answered requests whose answers never left");

  // Every replica said, on every response, that it serves one tree; the store's heartbeats agree.
  phase.now = "asking doctor about the replicas";
  assert.equal(digestsSeen.size, 1, `replicas answered with digests ${[...digestsSeen].join(", ")}`);
  const [servedDigest] = [...digestsSeen] as [string];
  const agreeing = await bounded(doctorReplicas(root, skillsDir, storeUrl), phase.now);
  assert.equal(agreeing.code, 0, agreeing.output);
  // The killed replica's last beat counts for 3 minutes, so it may or may not be listed; the live two are.
  assert.deepEqual(agreeing.report.replicas.digests.map((d) => d.registryDigest), [servedDigest]);
  assert.ok(agreeing.report.replicas.digests[0]!.replicas.length >= REPLICAS - 1, agreeing.output);
  assert.equal(agreeing.report.registryDigest, servedDigest, "doctor computes the digest the replicas report");

  // A change on disk, seen by the watching replica only, reaches every client.
  phase.now = "waiting for every event stream to be open again";
  await bounded(waitFor(() => runs.every((run) => run.streamOpenedAt > run.streamLostAt), "every client's event stream to be open"), phase.now);
  // A resumed stream is told the lists may have changed (its replica may have died holding news):
  // let those arrive before counting, so only the change below can satisfy the check.
  await bounded(quiet(() => runs.reduce((sum, run) => sum + run.listChanged, 0), 1000), phase.now);
  const before = runs.map((run) => run.listChanged);
  phase.now = "waiting for tools/list_changed";
  writeSkillDir(skillsDir, "late-arrival", { body: "# late\n\nAdded while the replicas ran." });
  await bounded(
    waitFor(
      () => runs.every((run, index) => run.listChanged > before[index]!),
      () => `tools/list_changed at clients ${runs.filter((run, index) => run.listChanged <= before[index]!).map((run) => run.index).join(", ")}`,
    ),
    phase.now,
  );

  // The watcher now serves another tree than the others, and said so before telling anyone.
  phase.now = "asking doctor about the replicas after the change";
  const diverging = await bounded(doctorReplicas(root, skillsDir, storeUrl), phase.now);
  assert.equal(diverging.code, 1, diverging.output);
  const split = diverging.report.diagnostics.find((d) => d.code === "replicas_diverge");
  assert.ok(split, diverging.output);
  const named = [...split.message.matchAll(/loaded-sha256-[0-9a-f]{64}/g)].map((match) => match[0]);
  assert.equal(new Set(named).size, 2, split.message);
  assert.ok(named.includes(servedDigest), split.message);

  // The store, read directly.
  phase.now = "checking the store";
  let storedCalls = 0;
  for (const run of runs) {
    const stored = await bounded(readConversation(storeUrl, skillsDir, run.sessionId), `reading conversation ${run.index}`);
    storedCalls += checkConversation(run, stored);
    const header = stored.records[0]?.record;
    assert.ok(header?.type === "session", `conversation ${run.index} starts with its header`);
    assert.equal(header.registryDigest, servedDigest, `conversation ${run.index}: the header keeps the digest it started on`);
  }

  // Restored from the store, a conversation decides the next activations as the live replicas do.
  phase.now = "comparing restored conversations with the live ones";
  for (const run of runs) {
    const restored = await bounded(probeRestored(storeUrl, skillsDir, run.sessionId, SKILLS), `restoring conversation ${run.index}`);
    const live: string[] = [];
    for (const name of SKILLS) live.push(statusOf(await callOnce(run.client, { name })));
    assert.deepEqual(live, restored, `conversation ${run.index} (${run.sessionId}): live answers vs restored state`);
  }

  for (const run of runs) await run.client.close();
  if (process.env.SKILLPORT_TEST_HAPROXY_LOG) fs.writeFileSync(process.env.SKILLPORT_TEST_HAPROXY_LOG, proxy.output());
  const retries = [...proxy.output().matchAll(/ retries=\+?(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0);
  const lost = runs.reduce((sum, run) => sum + run.lostAttempts, 0);
  process.stderr.write(
    `multi-replica: ${totalCalls} calls (${storedCalls} stored) in ${CONVERSATIONS} conversations over ${REPLICAS} replicas, ` +
      `replica ${KILLED} killed after ${killedAfter} answers (${relay.heldBytes()} bytes of its answers lost); haproxy retries ${retries}, client retries ${lost}; ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  clearTimeout(deadline);
});

/** One conversation through the proxy, answering `onAnswered` after each call; retries a call the network lost. */
async function converse(index: number, url: URL, storeUrl: string, skillsDir: string, onAnswered: () => void): Promise<ConversationRun> {
  const run: ConversationRun = {
    index,
    sessionId: "",
    client: new Client({ name: `replica-client-${index}`, version: "1.0.0" }),
    acknowledged: [],
    lostAttempts: 0,
    listChanged: 0,
    streamOpenedAt: 0,
    streamLostAt: 0,
  };
  const observe: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if ((init?.method ?? "GET") === "GET" && response.ok) run.streamOpenedAt = performance.now();
    const digest = response.headers.get("skillport-registry-digest");
    if (digest !== null) digestsSeen.add(digest);
    return response;
  };
  const transport = new StreamableHTTPClientTransport(url, {
    fetch: observe,
    // A stream lost with its replica comes back through the proxy, on another one.
    reconnectionOptions: { initialReconnectionDelay: 100, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1.5, maxRetries: 20 },
  });
  run.client.onerror = (error) => {
    if (/SSE stream disconnected|Failed to reconnect/.test(String(error))) run.streamLostAt = performance.now();
  };
  run.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    run.listChanged += 1;
  });
  await run.client.connect(transport);
  run.sessionId = transport.sessionId ?? "";
  assert.notEqual(run.sessionId, "", `client ${index} got no Mcp-Session-Id`);

  for (const op of plan(index)) {
    if (op.kind === "compact") {
      await compactThroughLibrary(storeUrl, skillsDir, run.sessionId);
      continue;
    }
    for (let attempt = 1; ; attempt += 1) {
      try {
        const envelope = await callOnce(run.client, op.args);
        run.acknowledged.push({ args: op.args, envelope });
        onAnswered();
        break;
      } catch (error) {
        if (attempt >= CLIENT_ATTEMPTS) throw new Error(`client ${index}: ${JSON.stringify(op.args)} failed ${attempt} times: ${(error as Error).message}`);
        run.lostAttempts += 1;
      }
    }
  }
  return run;
}

async function callOnce(client: Client, args: Record<string, string>): Promise<Envelope> {
  const result = await client.callTool({ name: "skill", arguments: args }, undefined, { timeout: 30_000 });
  const envelope = result.structuredContent as unknown;
  assertEnvelope(envelope, JSON.stringify(args));
  return envelope;
}

function statusOf(envelope: Envelope): string {
  return envelope.ok ? ((envelope.data as { status?: string }).status ?? "list") : envelope.error!.code;
}

/**
 * The checks on one stored conversation; returns how many call records it holds. Calls are
 * sequential within a conversation, so the stored calls in order are the answered calls in
 * order, with at most one more per attempt the client lost (a replica may have stored a call
 * whose answer never arrived).
 */
function checkConversation(run: ConversationRun, stored: StoredConversation): number {
  const where = `conversation ${run.index} (${run.sessionId})`;
  assert.deepEqual(stored.diagnostics, [], `${where}: the store reads cleanly`);
  stored.records.forEach((entry, position) => assert.equal(entry.seq, position, `${where}: sequence gap at ${position}`));
  assert.equal(stored.nextSeq, stored.records.length, `${where}: next sequence`);

  const calls = stored.records.filter((entry) => entry.record.type === "call").map((entry) => entry.record as { args: unknown; envelope: Envelope });
  let next = 0;
  let extras = 0;
  for (const call of calls) {
    const expected = run.acknowledged[next];
    if (expected && isDeepStrictEqual(call.args, expected.args) && isDeepStrictEqual(call.envelope, expected.envelope)) next += 1;
    else extras += 1;
  }
  assert.equal(next, run.acknowledged.length, `${where}: answered call ${next} (${JSON.stringify(run.acknowledged[next]?.args)}) is not stored as answered`);
  assert.ok(extras <= run.lostAttempts, `${where}: ${extras} stored calls no client answer accounts for (${run.lostAttempts} lost attempts): a call stored twice`);

  // One fresh load per skill per epoch, whichever replica answered: a skill asked for in an epoch
  // is loaded exactly once in it, unless a compaction carried it in (then never).
  let carried = new Set<string>();
  let asked = new Set<string>();
  let loads = new Map<string, number>();
  let epochs = 0;
  const closeEpoch = (): void => {
    for (const name of asked) {
      const expected = carried.has(name) ? 0 : 1;
      assert.equal(loads.get(name) ?? 0, expected, `${where}: '${name}' loaded ${loads.get(name) ?? 0} times in epoch ${epochs}${carried.has(name) ? " (carried in)" : ""}`);
    }
    epochs += 1;
    asked = new Set();
    loads = new Map();
  };
  for (const { record } of stored.records) {
    if (record.type === "checkpoint" && record.phase === "commit") {
      closeEpoch();
      carried = new Set(record.kept);
    } else if (record.type === "clear") {
      closeEpoch();
      carried = new Set();
    } else if (record.type === "call") {
      const args = record.args as { name?: string; file_path?: string };
      const data = record.envelope.ok ? (record.envelope.data as { status?: string; name?: string }) : null;
      if (typeof args.name !== "string" || args.file_path !== undefined || !data?.name) continue;
      asked.add(data.name);
      if (data.status === "loaded") loads.set(data.name, (loads.get(data.name) ?? 0) + 1);
    }
  }
  closeEpoch();
  assert.equal(epochs, COMPACT_AFTER.length + 1, `${where}: epochs`);
  return calls.length;
}

function isDeepStrictEqual(a: unknown, b: unknown): boolean {
  try {
    assert.deepStrictEqual(a, b);
    return true;
  } catch {
    return false;
  }
}

/** Resolves once `count` has not moved for `quietMs`. */
async function quiet(count: () => number, quietMs: number): Promise<void> {
  let last = count();
  let since = Date.now();
  while (Date.now() - since < quietMs) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (count() !== last) {
      last = count();
      since = Date.now();
    }
  }
}

interface DoctorReport {
  registryDigest: string;
  diagnostics: Array<{ code: string; message: string }>;
  replicas: { digests: Array<{ registryDigest: string; replicas: unknown[] }> };
}

/** `skillport doctor --store URL --json` over the same skills folder. */
async function doctorReplicas(cwd: string, skillsDir: string, storeUrl: string): Promise<{ code: number | null; report: DoctorReport; output: string }> {
  const run = await runCli(["doctor", "--root", skillsDir, "--store", storeUrl, "--json"], { cwd, env: homeEnv(cwd) });
  return { code: run.code, report: JSON.parse(run.stdout) as DoctorReport, output: `${run.stdout}\n${run.stderr}` };
}

/** Waits for `check`, up to a bound that only turns a hang into a failure naming what never happened. */
async function waitFor(check: () => boolean, what: string | (() => string), boundMs = 60_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`gave up after ${boundMs / 1000} s waiting for ${typeof what === "function" ? what() : what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
