/**
 * Shared setup of the MCP server tests: a small skill tree in a temp dir, and the command that
 * starts `skillport mcp` from source as a real child process.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { readSessionLog } from "../../src/session/log.js";
import type { CallRecord, SessionRecord } from "../../src/session/records.js";
import type { Envelope } from "../../src/tool/envelope.js";
import { CLI_MAIN, TSX_LOADER } from "../cli/cli-process.js";
import { tempDir, writeSkill } from "../support/tmp.js";

export const MISSING_ENV = "SKILLPORT_TEST_NEVER_SET";

export interface SkillTree {
  cwd: string;
  home: string;
  root: string;
  logDir: string;
  alphaDir: string;
  env: Record<string, string>;
}

export function skillTree(): SkillTree {
  const cwd = fs.realpathSync(tempDir("skillport-mcp-"));
  const home = path.join(cwd, "home");
  fs.mkdirSync(home);
  const root = path.join(cwd, "skills");
  const alphaDir = writeSkill(
    root,
    "alpha",
    "name: alpha\ndescription: Alpha does the first thing when a task needs it.",
    "# Alpha\n\nRun {baseDir}/scripts/run.sh, then read references/guide.md.\n",
  );
  fs.mkdirSync(path.join(alphaDir, "scripts"));
  fs.writeFileSync(path.join(alphaDir, "scripts", "run.sh"), "#!/bin/sh\necho alpha\n");
  fs.mkdirSync(path.join(alphaDir, "references"));
  fs.writeFileSync(path.join(alphaDir, "references", "guide.md"), "# Guide\n\nThe alpha guide.\n");
  writeSkill(root, "beta", "name: beta\ndescription: Beta handles the second kind of task.");
  writeSkill(
    root,
    "gated",
    `name: gated\ndescription: Needs an environment variable nobody sets.\nmetadata:\n  requirements:\n    env: ${MISSING_ENV}`,
  );
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && key !== MISSING_ENV) env[key] = value;
  env.HOME = home;
  return { cwd, home, root, logDir: path.join(cwd, "logs"), alphaDir, env };
}

/** `node --import tsx src/cli/main.ts mcp ...args` */
export function serverCommand(args: string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: ["--import", TSX_LOADER, CLI_MAIN, "mcp", ...args] };
}

export interface ToolCall {
  envelope: Envelope;
  text: string;
  isError: boolean;
}

export async function callSkill(client: Client, args: Record<string, unknown>): Promise<ToolCall> {
  const result = await client.callTool({ name: "skill", arguments: args });
  const content = result.content as Array<{ type: string; text: string }>;
  if (content.length !== 1 || content[0]!.type !== "text") throw new Error(`unexpected content: ${JSON.stringify(content)}`);
  return { envelope: result.structuredContent as unknown as Envelope, text: content[0]!.text, isError: result.isError === true };
}

export function dataOf<T>(call: ToolCall): T {
  if (!call.envelope.ok) throw new Error(`expected success, got ${JSON.stringify(call.envelope.error)}`);
  return call.envelope.data as unknown as T;
}

/** The session logs in `dir`, each read back the way a restore would read it. */
export function readLogs(dir: string): Array<{ file: string; records: SessionRecord[]; calls: CallRecord[]; problems: number }> {
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl"))
    .sort()
    .map((name) => {
      const file = path.join(dir, name);
      const result = readSessionLog(file);
      return {
        file,
        records: result.records,
        calls: result.records.filter((r): r is CallRecord => r.type === "call"),
        problems: result.diagnostics.length,
      };
    });
}

/** Waits until `check` passes, up to a generous bound, so a broken server fails the test instead of hanging it. */
export async function eventually(check: () => boolean, what: string, boundMs = 20_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}
