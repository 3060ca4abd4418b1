/**
 * What a user waits for in a fresh process, each against a floor measured in the same run,
 * alternating so machine drift falls on both: the whole `skillport list --json` process against
 * a script that walks and reads every SKILL.md, and an MCP server spawned until its first
 * `tools/list` answer against a minimal SDK server that reads the same files. The warm column is
 * the same work again in the running process (another `list` through the CLI's own entry point,
 * another `tools/list` on the open connection), against the same floors done warm.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { BenchTree } from "./bench-tree.js";
import { summarise } from "./measure.js";

const REPO = path.resolve(import.meta.dirname, "..");
const CLI = path.join(REPO, "dist/cli/skillport.js");

export interface PairedSample {
  /** Milliseconds per run, and the floor's per run, taken alternately. */
  ms: number[];
  floorMs: number[];
}

export interface FreshProcessOutcome {
  list: PairedSample;
  /** The same `list --json` runs against `floor-parse-list.mjs` (list, read, js-yaml), spawned next to each. */
  listParse?: PairedSample;
  listWarm: PairedSample;
  mcp: PairedSample;
  mcpWarm: PairedSample;
  /**
   * The parse cache (`src/registry/parse-cache.ts`), each against the parse-floor script spawned
   * next to it: `list --json` with an empty cache directory (it parses and writes the cache), with
   * one a run before filled, and an MCP start with a filled cache against the minimal server. The
   * rows above run with the cache off (SKILLPORT_PARSE_CACHE=0), as every build before it did.
   */
  listColdCache?: PairedSample;
  listWarmCache?: PairedSample;
  mcpWarmCache?: PairedSample;
}

/** The cache settings a run gets: off, or in `dir`. */
type CacheEnv = { SKILLPORT_PARSE_CACHE: "0" } | { XDG_CACHE_HOME: string };
const CACHE_OFF: CacheEnv = { SKILLPORT_PARSE_CACHE: "0" };

function rootsArgs(tree: BenchTree): string[] {
  return tree.groups.flatMap((group) => ["--root", group]);
}

function timedSpawn(args: string[], cwd: string, cache: CacheEnv = CACHE_OFF): number {
  const start = performance.now();
  const result = spawnSync(process.execPath, args, { cwd, env: { ...process.env, HOME: cwd, ...cache }, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 28 });
  const ms = performance.now() - start;
  if (result.status !== 0) throw new Error(`${args.slice(0, 2).join(" ")} exited ${result.status}: ${String(result.stderr).slice(-300)}`);
  const out = JSON.parse(String(result.stdout)) as { count: number };
  return out.count > 0 ? ms : Number.NaN;
}

export async function mcpStart(command: string[], cwd: string, cache: CacheEnv = CACHE_OFF): Promise<{ startMs: number; warmMs: number }> {
  const start = performance.now();
  const transport = new StdioClientTransport({ command: process.execPath, args: command, cwd, env: { ...process.env, HOME: cwd, ...cache } as Record<string, string>, stderr: "ignore" });
  const client = new Client({ name: "skillport-bench", version: "1.0.0" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const startMs = performance.now() - start;
    if (tools.length !== 1) throw new Error(`tools/list gave ${tools.length} tools`);
    const warm: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await client.listTools();
      warm.push(performance.now() - t);
    }
    return { startMs, warmMs: summarise(warm).median };
  } finally {
    await client.close();
  }
}

export async function measureFreshProcesses(tree: BenchTree, runs: number): Promise<FreshProcessOutcome> {
  const outcome: FreshProcessOutcome = {
    list: { ms: [], floorMs: [] },
    listParse: { ms: [], floorMs: [] },
    listWarm: { ms: [], floorMs: [] },
    mcp: { ms: [], floorMs: [] },
    mcpWarm: { ms: [], floorMs: [] },
    listColdCache: { ms: [], floorMs: [] },
    listWarmCache: { ms: [], floorMs: [] },
    mcpWarmCache: { ms: [], floorMs: [] },
  };
  const cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), "skillport-bench-cache-"));
  const warmCache: CacheEnv = { XDG_CACHE_HOME: path.join(cacheRoot, "warm") };
  const roots = rootsArgs(tree);
  // One untimed run of each first: the files are then in the page cache for both sides alike.
  timedSpawn([path.join(import.meta.dirname, "floor-list.mjs"), ...tree.groups], tree.root);
  timedSpawn([CLI, "list", "--json", ...roots], tree.root);
  const parseFloor = [path.join(import.meta.dirname, "floor-parse-list.mjs"), ...tree.groups];
  timedSpawn(parseFloor, tree.root);
  // Fills the warm cache. The tree was written long enough ago for every file to be kept (the
  // cache leaves out files changed in the last 2 s); the MCP server's sources are the same.
  timedSpawn([CLI, "list", "--json", ...roots], tree.root, warmCache);
  for (let i = 0; i < runs; i++) {
    outcome.list.floorMs.push(timedSpawn([path.join(import.meta.dirname, "floor-list.mjs"), ...tree.groups], tree.root));
    const listMs = timedSpawn([CLI, "list", "--json", ...roots], tree.root);
    outcome.list.ms.push(listMs);
    outcome.listParse!.ms.push(listMs);
    outcome.listParse!.floorMs.push(timedSpawn(parseFloor, tree.root));
    const floor = await mcpStart([path.join(import.meta.dirname, "minimal-mcp-server.mjs"), ...tree.groups], tree.root);
    const ours = await mcpStart([CLI, "mcp", "--no-log", ...roots], tree.root);
    outcome.mcp.floorMs.push(floor.startMs);
    outcome.mcp.ms.push(ours.startMs);
    outcome.mcpWarm.floorMs.push(floor.warmMs);
    outcome.mcpWarm.ms.push(ours.warmMs);

    const cold: CacheEnv = { XDG_CACHE_HOME: path.join(cacheRoot, `cold-${i}`) };
    outcome.listColdCache!.ms.push(timedSpawn([CLI, "list", "--json", ...roots], tree.root, cold));
    outcome.listColdCache!.floorMs.push(timedSpawn(parseFloor, tree.root));
    outcome.listWarmCache!.ms.push(timedSpawn([CLI, "list", "--json", ...roots], tree.root, warmCache));
    outcome.listWarmCache!.floorMs.push(timedSpawn(parseFloor, tree.root));
    const floorAgain = await mcpStart([path.join(import.meta.dirname, "minimal-mcp-server.mjs"), ...tree.groups], tree.root);
    outcome.mcpWarmCache!.floorMs.push(floorAgain.startMs);
    outcome.mcpWarmCache!.ms.push((await mcpStart([CLI, "mcp", "--no-log", ...roots], tree.root, warmCache)).startMs);
  }
  fs.rmSync(cacheRoot, { recursive: true, force: true });
  const warm = spawnSync(process.execPath, ["--import", import.meta.resolve("tsx"), path.join(import.meta.dirname, "warm-list.ts"), String(runs), ...tree.groups], {
    cwd: tree.root,
    env: { ...process.env, HOME: tree.root },
    encoding: "utf8",
    maxBuffer: 1 << 24,
  });
  if (warm.status !== 0) throw new Error(`warm list: ${warm.stderr.slice(-300)}`);
  outcome.listWarm = JSON.parse(warm.stdout) as PairedSample;
  return outcome;
}
