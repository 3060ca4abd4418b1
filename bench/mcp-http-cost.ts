/**
 * What serving costs over Streamable HTTP, against a minimal server built with the same SDK, in
 * the same run: `skillport mcp --http` (the built CLI under plain Node, as users run it) and
 * `bench/minimal-mcp-http-server.mjs`, both serving the same tree, driven alternately by a lean
 * HTTP client in this process (the client's own cost is not measured: only the servers' CPU is).
 *
 * - **CPU per call** by call type (`{}`, `{name}`, `{name, file_path}`) at C concurrent sessions:
 *   the server process's CPU time (every thread, from /proc) over a batch of calls, divided by
 *   the calls; with the median latency seen by the client.
 * - **Sessions per second**: initialize, `notifications/initialized`, one activation, DELETE,
 *   10 at a time; with the server's CPU per session.
 * - **Heap per idle session**: the heap (after a full collection) with N sessions open and idle
 *   (initialized, tools listed), minus the heap before, over N.
 * - **Session memory**: what a session holds after 100, 1,000 and 10,000 calls (activations,
 *   reads and lists in turn over 10 skills, so every one is active by call 30): one group of 10
 *   sessions per count, all held open, then closed one group at a time, each group worth the
 *   heap its closing gave back. Flat: grown from the first count to the last by at most 10% of
 *   what it holds at the last.
 *
 * Heap figures come from `bench/heap-probe.mjs`, loaded into both servers with `--import`: on
 * SIGUSR2 it collects garbage and writes the heap to stderr. skillport runs with `--no-log`, as
 * the minimal server keeps no log; activations are of skills not yet active in their session
 * (fresh `loaded` results, the body read from disk), as the minimal server reads every time.
 *
 *   tsx bench/mcp-http-cost.ts [--skills 100] [--calls 300] [--rounds 3] [--sessions 100]
 *                              [--idle 100] [--memory-calls 100,1000,10000] [--only read@1,list@10,memory] [--json FILE]
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { createBenchTree, type BenchTree } from "./bench-tree.js";
import { summarise } from "./measure.js";

const BENCH = import.meta.dirname;
const REPO = path.resolve(BENCH, "..");
/** The built CLI; another build can be named for a before-and-after comparison by hand. */
const CLI = process.env["BENCH_SKILLPORT_CLI"] ?? path.join(REPO, "dist/cli/skillport.js");
const MINIMAL = path.join(BENCH, "minimal-mcp-http-server.mjs");
const PROBE = path.join(BENCH, "heap-probe.mjs");
const PROTOCOL = "2025-06-18";

export const CALL_TYPES = ["list", "activate", "read"] as const;
export type CallType = (typeof CALL_TYPES)[number];
export const CONCURRENCY = [1, 10, 50] as const;
const SERVERS = ["minimal", "skillport"] as const;
type ServerId = (typeof SERVERS)[number];

export interface McpHttpCostSettings {
  /** Calls per batch (split over the batch's sessions; activations at most one per skill per session). */
  calls: number;
  /** Alternating rounds; each figure is the median over rounds. */
  rounds: number;
  /** Sessions opened for the sessions-per-second figure, per round. */
  sessions: number;
  /** Idle sessions held for the heap figure. */
  idle: number;
  /** Calls after which one session's memory is read. */
  memoryCalls: number[];
  /** Only these call batches (`read@1`, …), nothing else: for measuring one change by hand. */
  only?: string[];
}

export const DEFAULT_SETTINGS: McpHttpCostSettings = { calls: 300, rounds: 3, sessions: 100, idle: 100, memoryCalls: [100, 1000, 10_000] };

interface ServerSide {
  /** Server CPU µs per call, one value per round. */
  cpuUs: number[];
  /** Client-seen latency ms, every call of every round. */
  latencyMs: number[];
}

export interface McpHttpCostOutcome {
  skills: number;
  settings: McpHttpCostSettings;
  /** `${type}@${C}` → server → figures. */
  calls: Record<string, Record<ServerId, ServerSide>>;
  sessions: Record<ServerId, { perSecond: number[]; cpuUsPerSession: number[] }>;
  idle: Record<ServerId, { bytesPerSession: number[] }>;
  /** Heap over the heap before the session opened, after each count of calls. */
  memory: Record<ServerId, Array<{ calls: number; bytes: number }>>;
}

// --- the servers ----------------------------------------------------------------------------

interface RunningServer {
  id: ServerId;
  url: URL;
  child: ChildProcess;
  heapWaiters: Array<(heap: number) => void>;
}

function startServer(id: ServerId, tree: BenchTree, home: string): Promise<RunningServer> {
  const script = id === "minimal" ? [MINIMAL, ...tree.groups] : [CLI, "mcp", "--http", "0", "--no-log", "--idle-timeout", "0", "--max-sessions", "10000", ...tree.groups.flatMap((g) => ["--root", g])];
  // For profiling by hand (`BENCH_SKILLPORT_NODE_FLAGS="--cpu-prof"`, `BENCH_MINIMAL_NODE_FLAGS`); never set by `npm run bench`.
  const flags = (process.env[id === "skillport" ? "BENCH_SKILLPORT_NODE_FLAGS" : "BENCH_MINIMAL_NODE_FLAGS"] ?? "").split(" ").filter(Boolean);
  // No bytecode flushing: V8 drops the bytecode of functions unused for a while at a collection,
  // which moved the heap by more than a session holds between two readings.
  const child = spawn(process.execPath, [...flags, "--expose-gc", "--no-flush-bytecode", "--import", PROBE, ...script], {
    cwd: tree.root,
    env: { ...process.env, HOME: home },
    stdio: ["ignore", "ignore", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let buffered = "";
    let server: RunningServer | null = null;
    const timer = setTimeout(() => reject(new Error(`${id} server did not start within 60 s`)), 60_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      if (!server) reject(new Error(`${id} server exited ${code}: ${buffered.slice(-400)}`));
    });
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk;
      let newline: number;
      while ((newline = buffered.indexOf("\n")) !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        const listening = /listening on (http:\/\/\S+)/.exec(line);
        if (listening && !server) {
          clearTimeout(timer);
          server = { id, url: new URL(listening[1]!), child, heapWaiters: [] };
          resolve(server);
        } else if (line.startsWith("@@heap ") && server) {
          const heap = JSON.parse(line.slice(7)) as { heapUsed: number; external: number; gc: boolean };
          if (!heap.gc) throw new Error("the heap probe has no gc(): run the server with --expose-gc");
          server.heapWaiters.shift()?.(heap.heapUsed + heap.external);
        }
      }
    });
  });
}

/** The server's heap and external memory after a full collection. */
function heapOf(server: RunningServer): Promise<number> {
  return new Promise((resolve) => {
    server.heapWaiters.push(resolve);
    server.child.kill("SIGUSR2");
  });
}

const CLOCK_TICKS = 100;

/**
 * CPU time of every thread of the process, µs: /proc's `schedstat` per task is in nanoseconds,
 * where `stat` counts 10 ms ticks; a thread that ended is counted through `stat`'s total.
 */
function cpuUs(pid: number): number {
  let live = 0;
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      live += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]) / 1000;
    } catch {
      // the thread ended meanwhile
    }
  }
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  // Ticks are coarse: trust them only when they show more than the live threads account for.
  return Math.max(live, (ticks / CLOCK_TICKS) * 1e6 - 20_000);
}

// --- a lean client --------------------------------------------------------------------------

// A kept-alive socket the server closes after its keep-alive timeout (5 s in Node) while the
// bench pauses between rounds: the client drops it just before the server would, so a request
// is never written to a socket that is closing.
const agent = new http.Agent({ keepAlive: true, maxSockets: 256, timeout: 4_000 });
let nextId = 1;

interface Answer {
  status: number;
  sessionId?: string;
  message: { result?: Record<string, unknown>; error?: unknown } | undefined;
}

function request(url: URL, method: string, headers: Record<string, string>, body?: unknown, retried = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname, method, agent, headers: { accept: "application/json, text/event-stream", ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers } },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
        res.on("end", () => {
          let message: Answer["message"];
          if (text.startsWith("{")) message = JSON.parse(text) as Answer["message"];
          else {
            const data = text.split("\n").filter((line) => line.startsWith("data: "));
            if (data.length > 0) message = JSON.parse(data.at(-1)!.slice(6)) as Answer["message"];
          }
          const sid = res.headers["mcp-session-id"];
          resolve({ status: res.statusCode ?? 0, ...(typeof sid === "string" ? { sessionId: sid } : {}), message });
        });
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => {
      // Node's own advice for kept-alive sockets: a request on a reused socket that the server
      // closed at that moment is reset before the server read it, so it is sent once more.
      if (!retried && req.reusedSocket && error.code === "ECONNRESET") resolve(request(url, method, headers, body, true));
      else reject(error);
    });
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

class BenchSession {
  private activations = 0;
  private constructor(
    private readonly url: URL,
    readonly id: string,
  ) {}

  static async open(url: URL, listTools = true): Promise<BenchSession> {
    const init = await request(url, "POST", {}, {
      jsonrpc: "2.0",
      id: nextId++,
      method: "initialize",
      params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "bench", version: "1" } },
    });
    if (init.status !== 200 || !init.sessionId) throw new Error(`initialize answered ${init.status}`);
    const session = new BenchSession(url, init.sessionId);
    await session.post({ jsonrpc: "2.0", method: "notifications/initialized" });
    if (listTools) {
      const tools = await session.post({ jsonrpc: "2.0", id: nextId++, method: "tools/list" });
      if (!Array.isArray(tools.message?.result?.["tools"])) throw new Error("tools/list failed");
    }
    return session;
  }

  private post(body: unknown): Promise<Answer> {
    return request(this.url, "POST", { "mcp-session-id": this.id, "mcp-protocol-version": PROTOCOL }, body);
  }

  /** One call of the given type; activations take the next skill not yet active here. */
  async call(type: CallType, names: readonly string[], withFiles: readonly string[], index: number): Promise<void> {
    const args =
      type === "list"
        ? {}
        : type === "activate"
          ? { name: names[this.activations++ % names.length]! }
          : { name: withFiles[index % withFiles.length]!, file_path: "references/guide.md" };
    const answer = await this.post({ jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { name: "skill", arguments: args } });
    const result = answer.message?.result as { isError?: boolean; content?: Array<{ text?: string }> } | undefined;
    if (answer.status !== 200 || !result || result.isError || !result.content?.[0]?.text) {
      throw new Error(`tools/call ${JSON.stringify(args)} failed: ${JSON.stringify(answer).slice(0, 300)}`);
    }
  }

  async close(): Promise<void> {
    const answer = await request(this.url, "DELETE", { "mcp-session-id": this.id, "mcp-protocol-version": PROTOCOL });
    if (answer.status !== 200) throw new Error(`DELETE answered ${answer.status}`);
  }
}

// --- the measurements -----------------------------------------------------------------------

interface Workload {
  names: string[];
  withFiles: string[];
}

/** `calls` calls of one type over `c` sessions (each its own loop), server CPU and latencies. */
async function callBatch(server: RunningServer, work: Workload, type: CallType, c: number, calls: number): Promise<{ cpuUs: number; latencyMs: number[] }> {
  const sessions = await Promise.all(Array.from({ length: c }, () => BenchSession.open(server.url)));
  // Each session activates a skill at most once, so every activation measured is a first load.
  const perSession = Math.max(1, Math.ceil(calls / c));
  const count = type === "activate" ? Math.min(perSession, work.names.length) : perSession;
  // A few calls first, outside the measure, so each session's first-call costs stay out of it.
  const warm = type === "activate" ? 0 : 2;
  await Promise.all(sessions.map((s, i) => (async () => {
    for (let k = 0; k < warm; k++) await s.call(type, work.names, work.withFiles, i + k);
  })()));
  const latencyMs: number[] = [];
  const before = cpuUs(server.child.pid!);
  await Promise.all(
    sessions.map(async (session, i) => {
      for (let k = 0; k < count; k++) {
        const start = performance.now();
        await session.call(type, work.names, work.withFiles, i * 7 + k);
        latencyMs.push(performance.now() - start);
      }
    }),
  );
  const used = cpuUs(server.child.pid!) - before;
  await Promise.all(sessions.map((s) => s.close()));
  return { cpuUs: used / (count * c), latencyMs };
}

/** Sessions opened, used once and closed, 10 at a time: sessions per second and server CPU per session. */
async function sessionChurn(server: RunningServer, work: Workload, total: number): Promise<{ perSecond: number; cpuUsPerSession: number }> {
  const parallel = Math.min(10, total);
  let next = 0;
  const before = cpuUs(server.child.pid!);
  const start = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < total) {
        const index = next++;
        const session = await BenchSession.open(server.url, false);
        await session.call("activate", [work.names[index % work.names.length]!], work.withFiles, index);
        await session.close();
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  return { perSecond: total / seconds, cpuUsPerSession: (cpuUs(server.child.pid!) - before) / total };
}

async function idleSessions(server: RunningServer, count: number): Promise<number> {
  const before = await heapOf(server);
  const sessions: BenchSession[] = [];
  for (let i = 0; i < count; i++) sessions.push(await BenchSession.open(server.url));
  const held = await heapOf(server);
  for (const session of sessions) await session.close();
  return (held - before) / count;
}

/**
 * Skills a memory session activates and reads in turn: all are active by call 30, so what the
 * session holds from then on is the conversation's state, which must not grow with its length.
 */
const MEMORY_SKILLS = 10;
/** Sessions measured side by side; the figure is per session, so the heap's noise is divided among them. */
const MEMORY_SESSIONS = 10;
const MEMORY_WARM_CALLS = 300;

async function sessionMemory(server: RunningServer, work: Workload, checkpoints: number[]): Promise<Array<{ calls: number; bytes: number }>> {
  const few: Workload = { names: work.names.slice(0, MEMORY_SKILLS), withFiles: work.withFiles.slice(0, MEMORY_SKILLS) };
  // The same work once first, in sessions then closed: the paths a call and a DELETE take are
  // compiled before anything is read.
  const warm = await Promise.all(Array.from({ length: MEMORY_SESSIONS }, () => BenchSession.open(server.url)));
  for (let i = 0; i < MEMORY_WARM_CALLS; i++) await Promise.all(warm.map((session) => session.call(CALL_TYPES[i % 3]!, few.names, few.withFiles, i)));
  await Promise.all(warm.map((session) => session.close()));
  // One group of sessions per checkpoint, each stopped at its own count of calls and all held
  // open to the end; then the groups are closed one at a time and each is worth what its closing
  // gave back. Every reading is taken at the same moment of the process, so code V8 optimises
  // as the calls go on (hundreds of KB over the first thousands of calls, measured in heap
  // snapshots: code, deopt data, relocation info) is in all of them alike and no session is
  // charged for it, as it was when one group was read at each checkpoint in turn.
  // The first group closed gives back more than its sessions held (measured: 57 KB a session
  // after 100 calls when read first, 19 KB when read after another group), and so does the
  // last (28 KB against 19 KB, with three groups of 1,000 calls alike), on both servers: state
  // of the process, not of a session. A group closed first and one closed last, neither
  // reported, take both.
  const targets = [...checkpoints].sort((a, b) => a - b);
  targets.unshift(targets[0]!);
  // Of the fewest calls, so the group read last adds little to the run.
  targets.push(targets[0]!);
  const groups = await Promise.all(targets.map(() => Promise.all(Array.from({ length: MEMORY_SESSIONS }, () => BenchSession.open(server.url)))));
  for (let done = 0; done < Math.max(...targets); done++) {
    const live = groups.filter((_, g) => done < targets[g]!).flat();
    await Promise.all(live.map((session) => session.call(CALL_TYPES[done % 3]!, few.names, few.withFiles, done)));
  }
  const figures: Array<{ calls: number; bytes: number }> = [];
  let before = await heapOf(server);
  for (let g = 0; g < groups.length; g++) {
    await Promise.all(groups[g]!.map((session) => session.close()));
    // The transport lets a closed session go on a later turn; a pause, then two readings.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await heapOf(server);
    const after = await heapOf(server);
    if (g > 0 && g < groups.length - 1) figures.push({ calls: targets[g]!, bytes: (before - after) / MEMORY_SESSIONS });
    before = after;
  }
  return figures;
}

/** Every skill activated and every file read once, in a session of its own: the caches are then warm for both servers. */
async function warmUp(server: RunningServer, work: Workload): Promise<void> {
  const session = await BenchSession.open(server.url);
  for (let i = 0; i < work.names.length; i++) await session.call("activate", work.names, work.withFiles, i);
  for (let i = 0; i < work.withFiles.length; i++) await session.call("read", work.names, work.withFiles, i);
  for (let i = 0; i < 20; i++) await session.call("list", work.names, work.withFiles, i);
  await session.close();
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

export async function measureMcpHttpCost(tree: BenchTree, settings: McpHttpCostSettings = DEFAULT_SETTINGS): Promise<McpHttpCostOutcome> {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  if (process.platform !== "linux") throw new Error("reads server CPU from /proc: Linux only");
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "skillport-http-cost-home-"));
  const work: Workload = {
    names: tree.skillDirs.map((dir) => path.basename(dir)),
    withFiles: tree.skillDirs.filter((dir) => fs.existsSync(path.join(dir, "references", "guide.md"))).map((dir) => path.basename(dir)),
  };
  const servers = new Map<ServerId, RunningServer>();
  const outcome: McpHttpCostOutcome = {
    skills: tree.count,
    settings,
    calls: {},
    sessions: { minimal: { perSecond: [], cpuUsPerSession: [] }, skillport: { perSecond: [], cpuUsPerSession: [] } },
    idle: { minimal: { bytesPerSession: [] }, skillport: { bytesPerSession: [] } },
    memory: { minimal: [], skillport: [] },
  };
  try {
    for (const id of SERVERS) servers.set(id, await startServer(id, tree, home));
    for (const id of SERVERS) await warmUp(servers.get(id)!, work);
    for (let round = 0; round < settings.rounds; round++) {
      // Alternate which server goes first, so drift on the machine falls on both alike.
      const order = round % 2 === 0 ? SERVERS : ([...SERVERS].reverse() as ServerId[]);
      log(`   http cost: round ${round + 1} of ${settings.rounds}`);
      for (const c of CONCURRENCY) {
        for (const type of CALL_TYPES) {
          if (settings.only && !settings.only.includes(`${type}@${c}`)) continue;
          for (const id of order) {
            const batch = await callBatch(servers.get(id)!, work, type, c, settings.calls);
            const key = `${type}@${c}`;
            outcome.calls[key] ??= { minimal: { cpuUs: [], latencyMs: [] }, skillport: { cpuUs: [], latencyMs: [] } };
            outcome.calls[key]![id].cpuUs.push(batch.cpuUs);
            outcome.calls[key]![id].latencyMs.push(...batch.latencyMs);
          }
        }
      }
      if (settings.only) continue;
      for (const id of order) {
        const churn = await sessionChurn(servers.get(id)!, work, settings.sessions);
        outcome.sessions[id].perSecond.push(churn.perSecond);
        outcome.sessions[id].cpuUsPerSession.push(churn.cpuUsPerSession);
        outcome.idle[id].bytesPerSession.push(await idleSessions(servers.get(id)!, settings.idle));
      }
    }
    if (!settings.only || settings.only.includes("memory")) for (const id of SERVERS) outcome.memory[id] = await sessionMemory(servers.get(id)!, work, settings.memoryCalls);
    return outcome;
  } finally {
    for (const server of servers.values()) server.child.kill("SIGTERM");
    await Promise.all([...servers.values()].map((s) => (s.child.exitCode === null ? new Promise((r) => s.child.once("exit", r)) : null)));
    fs.rmSync(home, { recursive: true, force: true });
    // Kept-alive sockets would otherwise hold the benchmark's process open.
    agent.destroy();
  }
}

// --- the report -----------------------------------------------------------------------------

const median = (values: readonly number[]): number => summarise(values).median;

function fixed(value: number, digits = 2): string {
  return Number.isFinite(value) ? value.toFixed(digits) : "—";
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} KB`;
}

/** skillport's CPU per call over the minimal server's, the median of the per-round ratios. */
function cpuRatio(side: Record<ServerId, ServerSide>): number {
  return median(side.skillport.cpuUs.map((us, i) => us / side.minimal.cpuUs[i]!));
}

function pairedRatio(ours: number[], floor: number[]): number {
  return median(ours.map((value, i) => value / floor[i]!));
}

/** Growth of a session's memory from the first checkpoint to the last, as a fraction of the last. */
function memoryGrowth(points: Array<{ calls: number; bytes: number }>): number {
  if (points.length < 2) return Number.NaN;
  return (points.at(-1)!.bytes - points[0]!.bytes) / Math.max(points.at(-1)!.bytes, 1);
}

export function mcpHttpCostTargetRows(outcome: McpHttpCostOutcome | { error: string }): string[] {
  if ("error" in outcome) return [`| MCP over HTTP against a minimal SDK server | failed: ${outcome.error} | not measured |`];
  const cpu = CONCURRENCY.flatMap((c) => CALL_TYPES.map((type) => ({ c, type, ratio: cpuRatio(outcome.calls[`${type}@${c}`]!) })));
  const readVsActivate = CONCURRENCY.map((c) => ({
    c,
    ratio: median(outcome.calls[`read@${c}`]!.skillport.latencyMs) / median(outcome.calls[`activate@${c}`]!.skillport.latencyMs),
  }));
  const perSecond = pairedRatio(outcome.sessions.skillport.perSecond, outcome.sessions.minimal.perSecond);
  const idle = median(outcome.idle.skillport.bytesPerSession) / median(outcome.idle.minimal.bytesPerSession);
  const growth = memoryGrowth(outcome.memory.skillport);
  const verdict = (ok: boolean) => (ok ? "met" : "**missed**");
  return [
    `| MCP over HTTP: server CPU per call ≤ 1.25× a minimal SDK server (activate, read, list at C = 1, 10, 50) | ${cpu
      .map(({ c, type, ratio }) => `${type} C=${c}: ${fixed(ratio)}×`)
      .join("; ")} | ${verdict(cpu.every((x) => x.ratio <= 1.25))} |`,
    `| MCP over HTTP: a read no slower than an activation (median latency) | ${readVsActivate.map(({ c, ratio }) => `C=${c}: ${fixed(ratio)}×`).join("; ")} | ${verdict(readVsActivate.every((x) => x.ratio <= 1))} |`,
    `| MCP over HTTP: sessions per second ≥ 0.8× the minimal server | ${fixed(perSecond)}× | ${verdict(perSecond >= 0.8)} |`,
    `| MCP over HTTP: heap per idle session ≤ 1.25× the minimal server | ${fixed(idle)}× | ${verdict(idle <= 1.25)} |`,
    `| MCP over HTTP: a session's memory flat (±10%) from call ${outcome.memory.skillport[0]?.calls ?? "—"} to call ${outcome.memory.skillport.at(-1)?.calls ?? "—"} | ${outcome.memory.skillport
      .map((p) => `${p.calls}: ${kb(p.bytes)}`)
      .join(", ")} (${Number.isFinite(growth) ? `${growth >= 0 ? "+" : ""}${(growth * 100).toFixed(0)}%` : "—"}) | ${verdict(Math.abs(growth) <= 0.1)} |`,
  ];
}

export function renderMcpHttpCostSection(outcome: McpHttpCostOutcome | { error: string }): string[] {
  const lines = ["## MCP over HTTP: cost per call and per session", ""];
  if ("error" in outcome) return [...lines, `Failed: ${outcome.error}`, ""];
  const s = outcome.settings;
  lines.push(
    `\`skillport mcp --http 0 --no-log\` (the built CLI) against \`bench/minimal-mcp-http-server.mjs\` (the same SDK, one`,
    "transport and `Server` per session, one `skill` tool that `readFileSync`s the file asked for), both serving the",
    `same ${outcome.skills} real-shaped skills, driven alternately by one client in the benchmark's process over ${s.rounds} rounds`,
    "(ratios are the median of each round's ratio). Server CPU is the server process's, every thread, from `/proc`;",
    `latency is the client's, request to parsed answer. ${s.calls} calls per batch, split over its C sessions; activations`,
    "are of skills not yet active in their session; reads fetch `references/guide.md`.",
    "",
    "| call | C | skillport CPU µs/call | minimal CPU µs/call | CPU ratio | skillport median ms | minimal median ms |",
    "|---|---|---|---|---|---|---|",
  );
  for (const c of CONCURRENCY) {
    for (const type of CALL_TYPES) {
      const side = outcome.calls[`${type}@${c}`]!;
      lines.push(
        `| ${type === "list" ? "list `{}`" : type === "activate" ? "activate `{name}`" : "read `{name, file_path}`"} | ${c} | ${fixed(median(side.skillport.cpuUs), 0)} | ${fixed(median(side.minimal.cpuUs), 0)} | ${fixed(cpuRatio(side))}× | ${fixed(median(side.skillport.latencyMs))} | ${fixed(median(side.minimal.latencyMs))} |`,
      );
    }
  }
  const row = (label: string, ours: number, floor: number, ratio: number, unit: (v: number) => string) =>
    `| ${label} | ${unit(ours)} | ${unit(floor)} | ${fixed(ratio)}× |`;
  lines.push(
    "",
    "| per session | skillport | minimal | ratio |",
    "|---|---|---|---|",
    row(
      `sessions per second (initialize, first call, DELETE; ${s.sessions} per round, 10 at a time)`,
      median(outcome.sessions.skillport.perSecond),
      median(outcome.sessions.minimal.perSecond),
      pairedRatio(outcome.sessions.skillport.perSecond, outcome.sessions.minimal.perSecond),
      (v) => fixed(v, 0),
    ),
    row(
      "server CPU per session, µs",
      median(outcome.sessions.skillport.cpuUsPerSession),
      median(outcome.sessions.minimal.cpuUsPerSession),
      pairedRatio(outcome.sessions.skillport.cpuUsPerSession, outcome.sessions.minimal.cpuUsPerSession),
      (v) => fixed(v, 0),
    ),
    row(
      `heap per idle session (${s.idle} held open, after a full collection)`,
      median(outcome.idle.skillport.bytesPerSession),
      median(outcome.idle.minimal.bytesPerSession),
      median(outcome.idle.skillport.bytesPerSession) / median(outcome.idle.minimal.bytesPerSession),
      kb,
    ),
    "",
    `| memory per session after N calls (activate, read, list in turn over ${MEMORY_SKILLS} skills; a group of ${MEMORY_SESSIONS} sessions per N, all open at once; the heap each group gave back when closed, per session) | skillport | minimal |`,
    "|---|---|---|",
    ...outcome.memory.skillport.map((p, i) => `| ${p.calls.toLocaleString("en-US")} | ${kb(p.bytes)} | ${kb(outcome.memory.minimal[i]?.bytes ?? Number.NaN)} |`),
    "",
  );
  return lines;
}

// --- run alone ------------------------------------------------------------------------------

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      skills: { type: "string", default: "100" },
      calls: { type: "string", default: String(DEFAULT_SETTINGS.calls) },
      rounds: { type: "string", default: String(DEFAULT_SETTINGS.rounds) },
      sessions: { type: "string", default: String(DEFAULT_SETTINGS.sessions) },
      idle: { type: "string", default: String(DEFAULT_SETTINGS.idle) },
      "memory-calls": { type: "string", default: DEFAULT_SETTINGS.memoryCalls.join(",") },
      json: { type: "string" },
      only: { type: "string" },
    },
  });
  const settings: McpHttpCostSettings = {
    calls: Number(values.calls),
    rounds: Number(values.rounds),
    sessions: Number(values.sessions),
    idle: Number(values.idle),
    memoryCalls: values["memory-calls"].split(",").map(Number),
    ...(values.only ? { only: values.only.split(",") } : {}),
  };
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "skillport-http-cost-"));
  try {
    const tree = createBenchTree(root, Number(values.skills), "real");
    const outcome = await measureMcpHttpCost(tree, settings);
    if (values.json) fs.writeFileSync(values.json, JSON.stringify(outcome));
    if (settings.only) {
      for (const [key, side] of Object.entries(outcome.calls)) {
        process.stdout.write(`${key}: CPU µs/call skillport ${fixed(median(side.skillport.cpuUs), 0)}, minimal ${fixed(median(side.minimal.cpuUs), 0)}, ratio ${fixed(cpuRatio(side))}×; median ms ${fixed(median(side.skillport.latencyMs))} / ${fixed(median(side.minimal.latencyMs))}\n`);
      }
      for (const [i, point] of outcome.memory.skillport.entries()) {
        process.stdout.write(`memory after ${point.calls} calls: skillport ${fixed(point.bytes / 1024, 1)} KB, minimal ${fixed((outcome.memory.minimal[i]?.bytes ?? Number.NaN) / 1024, 1)} KB\n`);
      }
      return;
    }
    process.stdout.write(`${[...mcpHttpCostTargetRows(outcome), "", ...renderMcpHttpCostSection(outcome)].join("\n")}\n`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
