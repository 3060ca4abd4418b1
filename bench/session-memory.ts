/**
 * A library session's memory as its calls go on: `runtime.session({ log: false })` keeps its
 * history in memory, bounded (by default the newest 64 records within 256 KiB), so what a
 * session holds must stay flat from call 100 to call 10,000. Run in its own process with
 * `--expose-gc`:
 *
 *   node --expose-gc --import tsx bench/session-memory.ts MANIFEST OUT_JSON [CHECKPOINTS]
 *
 * Each variant (the default bound, no history kept, and the bound before it: 1,000 records
 * within 8 MiB) gets one group of sessions per checkpoint, each group stopped at its own count of
 * calls, all groups held to the end; then the groups are closed and dropped one at a time and
 * each is worth the heap its going gave back, per session. Every reading is then taken at the
 * same moment of the process, so code V8 compiles as the calls go on is charged to no session.
 * A first and a last group, not reported, absorb what the process itself gives back with the
 * first and last release (the MCP-over-HTTP bench found both on either server).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { readTreeManifest, treeRuntimeOptions } from "./bench-tree.js";
import { runChildMain } from "./child-main.js";
import { collectGarbage } from "./measure.js";
import { lib } from "./skillport-build.js";

/** Sessions measured side by side: the figure is per session, so the heap's noise is divided among them. */
export const MEMORY_SESSIONS = 10;
/** Skills the sessions activate and read in turn: all active by call 30, the rest is conversation. */
export const MEMORY_SKILLS = 10;
const WARM_CALLS = 300;

export interface SessionMemoryVariant {
  id: string;
  label: string;
  figures: Array<{ calls: number; bytesPerSession: number; historyRecords: number }>;
}

type Runtime = Awaited<ReturnType<typeof lib.createSkillRuntime>>;
type Session = ReturnType<Runtime["session"]>;
type SessionOptions = Parameters<Runtime["session"]>[0];

const VARIANTS: Array<{ id: string; label: string; options: SessionOptions }> = [
  { id: "default", label: "`log: false`, default history (64 records within 256 KiB)", options: { log: false } },
  { id: "none", label: "`log: false, memoryHistory: 0` (no history kept)", options: { log: false, memoryHistory: 0 } },
  { id: "previous", label: "`log: false`, the earlier default (1,000 records within 8 MiB)", options: { log: false, memoryHistory: 1000, memoryHistoryChars: 8 * 1024 * 1024 } },
];

/** Activate, read and list in turn over a few skills, each envelope checked. */
async function call(session: Session, names: string[], withFiles: string[], index: number): Promise<void> {
  const kind = index % 3;
  const args =
    kind === 0 ? { name: names[index % names.length]! } : kind === 1 ? { name: withFiles[index % withFiles.length]!, file_path: "references/guide.md" } : {};
  const envelope = await session.call(args);
  if (!envelope.ok) throw new Error(`call ${JSON.stringify(args)}: ${envelope.error.code} ${envelope.error.message}`);
}

async function measureVariant(runtime: Runtime, options: SessionOptions, names: string[], withFiles: string[], checkpoints: number[]) {
  const warm = Array.from({ length: MEMORY_SESSIONS }, () => runtime.session(options));
  for (let i = 0; i < WARM_CALLS; i++) for (const session of warm) await call(session, names, withFiles, i);
  for (const session of warm) session.close();
  const targets = [...checkpoints].sort((a, b) => a - b);
  targets.unshift(targets[0]!);
  targets.push(targets[0]!);
  const groups: Array<Session[] | null> = targets.map(() => Array.from({ length: MEMORY_SESSIONS }, () => runtime.session(options)));
  for (let done = 0; done < Math.max(...targets); done++) {
    for (let g = 0; g < groups.length; g++) if (done < targets[g]!) for (const session of groups[g]!) await call(session, names, withFiles, done);
  }
  const figures: SessionMemoryVariant["figures"] = [];
  collectGarbage();
  let before = process.memoryUsage().heapUsed;
  for (let g = 0; g < groups.length; g++) {
    const historyRecords = groups[g]![0]!.history().length;
    for (const session of groups[g]!) session.close();
    groups[g] = null;
    collectGarbage();
    const after = process.memoryUsage().heapUsed;
    if (g > 0 && g < groups.length - 1) figures.push({ calls: targets[g]!, bytesPerSession: (before - after) / MEMORY_SESSIONS, historyRecords });
    before = after;
  }
  return figures;
}

async function main(): Promise<void> {
  const [manifest, out, checkpointsArg] = process.argv.slice(2);
  if (!manifest || !out) throw new Error("usage: session-memory.ts MANIFEST OUT_JSON [100,1000,10000]");
  const checkpoints = (checkpointsArg ?? "100,1000,10000").split(",").map(Number);
  const tree = readTreeManifest(manifest);
  const runtime = await lib.createSkillRuntime(treeRuntimeOptions(tree));
  try {
    const withGuide = new Set(tree.skillDirs.filter((dir) => fs.existsSync(path.join(dir, "references", "guide.md"))).map((dir) => path.basename(dir)));
    const skills = runtime.snapshot().skills.map((skill) => skill.name);
    const names = skills.slice(0, MEMORY_SKILLS);
    const withFiles = skills.filter((name) => withGuide.has(name)).slice(0, MEMORY_SKILLS);
    if (names.length < MEMORY_SKILLS || withFiles.length === 0) throw new Error(`the tree has too few skills with references/guide.md (${withFiles.length})`);
    const results: SessionMemoryVariant[] = [];
    for (const variant of VARIANTS) {
      results.push({ id: variant.id, label: variant.label, figures: await measureVariant(runtime, variant.options, names, withFiles, checkpoints) });
    }
    fs.writeFileSync(out, JSON.stringify(results));
  } finally {
    await runtime.close();
  }
}

await runChildMain(main);
