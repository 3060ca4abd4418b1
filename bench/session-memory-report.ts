/**
 * The library session memory section: runs `session-memory.ts` in its own process on a tree of
 * 100 real-shaped skills and renders what each group of sessions gave back, per session.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createBenchTree, writeTreeManifest } from "./bench-tree.js";
import { thousands } from "./report.js";
import type { SessionMemoryVariant } from "./session-memory.js";

export const SESSION_MEMORY_CHECKPOINTS = [100, 1000, 10_000];

export type SessionMemoryOutcome = SessionMemoryVariant[] | { error: string };

export async function measureSessionMemory(
  runChild: (script: string, args: string[], nodeFlags?: string[]) => Promise<{ ok: boolean; reason: string }>,
): Promise<SessionMemoryOutcome> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "skillport-bench-session-memory-"));
  try {
    const manifest = writeTreeManifest(createBenchTree(root, 100, "real"));
    const out = path.join(root, "session-memory.json");
    const child = await runChild("session-memory.ts", [manifest, out, SESSION_MEMORY_CHECKPOINTS.join(",")], ["--expose-gc"]);
    return child.ok ? (JSON.parse(fs.readFileSync(out, "utf8")) as SessionMemoryVariant[]) : { error: child.reason };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

function kb(bytes: number): string {
  return `${Math.round(bytes / 1024).toLocaleString("en-US")} KB`;
}

export function renderSessionMemorySection(outcome: SessionMemoryOutcome): string[] {
  const lines = ["## A library session's memory (`log: false`)", ""];
  if ("error" in outcome) return [...lines, `Not measured: ${outcome.error}`, ""];
  const counts = outcome[0]?.figures.map((f) => f.calls) ?? [];
  lines.push(
    "`runtime.session(options)` in one process over 100 real-shaped skills (`bench/session-memory.ts`, `--expose-gc`):",
    "activate, read `references/guide.md` and list in turn over 10 skills; a group of 10 sessions per count of",
    "calls, all held open to the end, then closed and dropped one group at a time; each figure is the heap that",
    "group gave back after a full collection, per session (held records: `history().length` just before).",
    "The MCP server's sessions are measured over HTTP, against a minimal SDK server, in the section above.",
    "",
    `| session options | ${counts.map((n) => `after ${thousands(n)} calls`).join(" | ")} | last over first |`,
    `|---|${counts.map(() => "---|").join("")}---|`,
  );
  for (const variant of outcome) {
    const first = variant.figures[0]!.bytesPerSession;
    const last = variant.figures.at(-1)!.bytesPerSession;
    lines.push(
      `| ${variant.label} | ${variant.figures.map((f) => `${kb(f.bytesPerSession)} (${thousands(f.historyRecords)} records)`).join(" | ")} | ${(last / first).toFixed(2)}× |`,
    );
  }
  return [...lines, ""];
}
