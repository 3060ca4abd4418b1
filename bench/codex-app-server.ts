/**
 * The Codex app-server row: `codex app-server` (the native binary `@openai/codex` installs in
 * bench/peers/) answers `skills/list` over stdio, offline: a temporary CODEX_HOME, a dummy API
 * key, no login. Each spawn alternates with skillport's MCP server and the minimal SDK server
 * (`bench/minimal-mcp-server.mjs`) answering their first `tools/list`, so drift falls on all three.
 *
 * Codex is given the tree two ways: each group as an extra root (`skills/extraRoots/set`, what
 * the other peers get: every group directory), and one user root (`$CODEX_HOME/skills` holding a
 * link per group), where its walk stops at 2,000 directories per root; then the row says what it
 * found and that it stopped.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import * as readline from "node:readline";
import type { BenchTree } from "./bench-tree.js";
import { mcpStart } from "./fresh-process.js";
import { summarise } from "./measure.js";
import { ms, thousands } from "./report.js";

const BENCH = import.meta.dirname;
const CLI = path.join(BENCH, "..", "dist/cli/skillport.js");
const MODULES = path.join(BENCH, "peers", "node_modules");
/** No request may hold the run: a scan slower than this is reported as failed. */
const REQUEST_TIME_LIMIT_MS = 180_000;

type Layout = "extra-roots" | "one-root";

interface CodexSpawn {
  /** Spawn to the first `skills/list` answer (initialize included). */
  coldMs: number;
  /** The first `skills/list` alone, after initialize. */
  firstListMs: number;
  /** Another `skills/list` on the same process (its cache). */
  warmMs: number;
  /** `skills/list` with `forceReload: true` in the same process: a scan of a warm process. */
  rescanMs: number;
  found: number;
  correct: number;
  errors: number;
  traversalLimit: boolean;
}

interface SkillEntry {
  name: string;
  description: string;
  path: string;
  scope: string;
}

/** The installed package's version, or null when it is not installed. */
function codexVersion(): string | null {
  try {
    return (JSON.parse(fs.readFileSync(path.join(MODULES, "@openai", "codex", "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return null;
  }
}

/**
 * The native binary the package's launcher would start (`@openai/codex-<platform>-<arch>`), so the
 * timing is Codex's own and not a Node launcher's in front of it.
 */
function codexBinary(): string {
  const pkg = path.join(MODULES, "@openai", `codex-${process.platform}-${process.arch}`, "vendor");
  const triples = fs.existsSync(pkg) ? fs.readdirSync(pkg) : [];
  for (const triple of triples) {
    const bin = path.join(pkg, triple, "bin", process.platform === "win32" ? "codex.exe" : "codex");
    if (fs.existsSync(bin)) return bin;
  }
  throw new Error(`no Codex binary for ${process.platform}-${process.arch} under bench/peers/node_modules/@openai (npm ci --prefix bench/peers)`);
}

/** One app-server process driven over newline-delimited JSON-RPC on stdio. */
class AppServer {
  private readonly child;
  private readonly pending = new Map<number, { resolve: (message: { result?: unknown; error?: { message: string } }) => void; reject: (error: Error) => void }>();
  private nextId = 0;
  stderr = "";

  constructor(binary: string, codexHome: string, cwd: string) {
    this.child = spawn(binary, ["app-server"], {
      cwd,
      // Offline and logged out: a dummy key satisfies any check for one; nothing is sent anywhere.
      env: { PATH: process.env.PATH ?? "", HOME: codexHome, CODEX_HOME: codexHome, OPENAI_API_KEY: "sk-offline-benchmark" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stderr.setEncoding("utf8").on("data", (chunk: string) => (this.stderr = (this.stderr + chunk).slice(-20_000)));
    readline.createInterface({ input: this.child.stdout }).on("line", (line) => {
      let message: { id?: number; result?: unknown; error?: { message: string } };
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        return;
      }
      if (typeof message.id === "number") {
        this.pending.get(message.id)?.resolve(message);
        this.pending.delete(message.id);
      }
    });
    const fail = (error: Error) => {
      for (const { reject } of this.pending.values()) reject(error);
      this.pending.clear();
    };
    this.child.on("error", fail);
    this.child.on("exit", (code, signal) => fail(new Error(`codex app-server exited (${signal ?? code}): ${this.lastError()}`)));
  }

  lastError(): string {
    const lines = this.stderr.replace(/\x1b\[[0-9;]*m/g, "").trim().split("\n");
    return [...lines].reverse().find((line) => /error/i.test(line) && !/bubblewrap/.test(line)) ?? lines.at(-1) ?? "";
  }

  request<T>(method: string, params: unknown): Promise<T> {
    const id = ++this.nextId;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${method} not answered within ${REQUEST_TIME_LIMIT_MS / 1000} s`)), REQUEST_TIME_LIMIT_MS);
      this.pending.set(id, {
        resolve: (message) => {
          clearTimeout(timer);
          if (message.error) reject(new Error(`${method}: ${message.error.message}`));
          else resolve(message.result as T);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.child.stdin.write(`${JSON.stringify({ method, id, params })}\n`);
    });
  }

  notify(method: string): void {
    this.child.stdin.write(`${JSON.stringify({ method })}\n`);
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.stdin.end();
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  }
}

/** The tree's skills in one `skills/list` answer (Codex's own system skills left out). */
function treeSkills(answer: { data: Array<{ skills: SkillEntry[]; errors: unknown[] }> }, reference: Record<string, string>): { skills: SkillEntry[]; errors: number } {
  const skills = answer.data.flatMap((entry) => entry.skills).filter((skill) => skill.scope !== "system" && skill.name in reference);
  return { skills, errors: answer.data.reduce((n, entry) => n + entry.errors.length, 0) };
}

async function codexSpawn(binary: string, tree: BenchTree, layout: Layout, reference: Record<string, string>): Promise<CodexSpawn> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "skillport-bench-codex-"));
  try {
    const codexHome = path.join(scratch, "codex-home");
    const project = path.join(scratch, "project");
    fs.mkdirSync(project, { recursive: true });
    fs.mkdirSync(path.join(codexHome, "skills"), { recursive: true });
    // Numbered, because groups of a corpus share folder names (`skills`, say).
    if (layout === "one-root") tree.groups.forEach((group, i) => fs.symlinkSync(group, path.join(codexHome, "skills", `${i}-${path.basename(group)}`)));
    const list = { cwds: [project] };
    const start = performance.now();
    const server = new AppServer(binary, codexHome, project);
    try {
      await server.request("initialize", { clientInfo: { name: "skillport-bench", title: null, version: "1.0.0" }, capabilities: { experimentalApi: true, requestAttestation: false } });
      server.notify("initialized");
      if (layout === "extra-roots") await server.request("skills/extraRoots/set", { extraRoots: tree.groups });
      const listStart = performance.now();
      const first = await server.request<Parameters<typeof treeSkills>[0]>("skills/list", list);
      const coldMs = performance.now() - start;
      const firstListMs = performance.now() - listStart;
      const warm: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        await server.request("skills/list", list);
        warm.push(performance.now() - t);
      }
      const rescanStart = performance.now();
      await server.request("skills/list", { ...list, forceReload: true });
      const rescanMs = performance.now() - rescanStart;
      const { skills, errors } = treeSkills(first, reference);
      return {
        coldMs,
        firstListMs,
        warmMs: summarise(warm).median,
        rescanMs,
        found: skills.length,
        correct: skills.filter((skill) => reference[skill.name]!.trim() === skill.description.trim()).length,
        errors,
        traversalLimit: /traversal limit/.test(server.stderr),
      };
    } catch (error) {
      throw new Error(`${(error as Error).message}${server.stderr ? ` (stderr: ${server.lastError()})` : ""}`);
    } finally {
      await server.close();
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** The Codex section's Markdown lines for one tree; the reason instead of figures when Codex cannot run here. */
export async function measureCodexAppServer(tree: BenchTree, runs: number): Promise<string[]> {
  const version = codexVersion();
  if (version === null) return ["Not run: `@openai/codex` is not installed in `bench/peers/` (`npm ci --prefix bench/peers`)."];
  let binary: string;
  try {
    binary = codexBinary();
  } catch (error) {
    return [`Not run: ${(error as Error).message}.`];
  }
  const reference = JSON.parse(fs.readFileSync(tree.referenceFile, "utf8")) as Record<string, string>;
  const roots = tree.groups.flatMap((group) => ["--root", group]);
  const layouts: Layout[] = ["extra-roots", "one-root"];
  const minimal: Array<{ startMs: number; warmMs: number }> = [];
  const ours: Array<{ startMs: number; warmMs: number }> = [];
  const codex = new Map<Layout, CodexSpawn[]>(layouts.map((layout) => [layout, []]));
  const failed = new Map<Layout, string>();
  for (let i = 0; i < runs; i++) {
    minimal.push(await mcpStart([path.join(BENCH, "minimal-mcp-server.mjs"), ...tree.groups], tree.root));
    ours.push(await mcpStart([CLI, "mcp", "--no-log", ...roots], tree.root));
    for (const layout of layouts) {
      if (failed.has(layout)) continue;
      try {
        codex.get(layout)!.push(await codexSpawn(binary, tree, layout, reference));
      } catch (error) {
        failed.set(layout, (error as Error).message.replace(/\|/g, "\\|").replace(/\n/g, " "));
      }
    }
  }
  const minimalStart = summarise(minimal.map((m) => m.startMs)).median;
  const cell = (value: number) => `${ms(value)} (${(value / minimalStart).toFixed(2)}×)`;
  const median = (values: number[]) => summarise(values).median;
  const lines = [
    `\`@openai/codex\` ${version}: the native \`codex app-server\` over stdio, offline (a temporary \`CODEX_HOME\`, a dummy API key, no login), against skillport's MCP server and the minimal SDK server (\`bench/minimal-mcp-server.mjs\`), spawned in turn, medians of ${runs} spawns each. × is over the minimal server's spawn → first answer. The minimal server and skillport answer \`tools/list\` (a catalog of every skill); Codex answers \`skills/list\` (every skill with its description). Rescan: \`skills/list\` with \`forceReload: true\` in the warm process.`,
    "",
    "| server | where the skills are | spawn → first answer ms (×) | first list after initialize ms | another list, warm ms | rescan in the warm process ms | skills found | right descriptions |",
    "|---|---|---|---|---|---|---|---|",
    `| minimal SDK server, \`tools/list\` | each group an argument | ${cell(minimalStart)} | — | ${ms(median(minimal.map((m) => m.warmMs)))} | — | — | — |`,
    `| **skillport mcp**, \`tools/list\` | \`--root\` per group | ${cell(median(ours.map((m) => m.startMs)))} | — | ${ms(median(ours.map((m) => m.warmMs)))} | — | — | — |`,
  ];
  const where: Record<Layout, string> = {
    "extra-roots": "each group an extra root (`skills/extraRoots/set`)",
    "one-root": "one user root: `$CODEX_HOME/skills`, a link per group",
  };
  for (const layout of layouts) {
    const spawns = codex.get(layout)!;
    if (spawns.length === 0) {
      lines.push(`| Codex ${version}, \`skills/list\` | ${where[layout]} | failed: ${failed.get(layout) ?? "not run"} | | | | | |`);
      continue;
    }
    const last = spawns.at(-1)!;
    const stopped = spawns.some((s) => s.traversalLimit) ? " (stopped at its traversal limit)" : "";
    const errors = last.errors > 0 ? `; ${thousands(last.errors)} errors` : "";
    lines.push(
      `| Codex ${version}, \`skills/list\` | ${where[layout]} | ${cell(median(spawns.map((s) => s.coldMs)))} | ${ms(median(spawns.map((s) => s.firstListMs)))} | ${ms(
        median(spawns.map((s) => s.warmMs)),
      )} | ${ms(median(spawns.map((s) => s.rescanMs)))} | ${thousands(last.found)} of ${thousands(tree.count)}${stopped}${errors} | ${thousands(last.correct)} |`,
    );
    if (failed.has(layout)) lines.push("", `A later Codex spawn (${where[layout]}) failed: ${failed.get(layout)}`);
  }
  return lines;
}
