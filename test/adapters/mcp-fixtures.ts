/**
 * Shared setup of the MCP server tests: a small skill tree in a temp dir, calls of the `skill`
 * tool through an SDK client, and the session logs the server leaves.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { readSessionLog } from "../../src/session/log.js";
import type { CallRecord, SessionRecord } from "../../src/session/records.js";
import type { Envelope } from "../../src/tool/envelope.js";
import { MISSING_ENV, writeBetaSkill, writeGatedSkill, writeSkillWithResources } from "../support/sample-skills.js";
import { homeEnv } from "../cli/cli-process.js";
import { tempDir } from "../support/tmp.js";

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
  const alphaDir = writeSkillWithResources(
    root,
    "alpha",
    "name: alpha\ndescription: Alpha does the first thing when a task needs it.",
    "# Alpha\n\nRun {baseDir}/scripts/run.sh, then read references/guide.md.\n",
    "# Guide\n\nThe alpha guide.\n",
  );
  writeBetaSkill(root);
  writeGatedSkill(root, "Needs an environment variable nobody sets.");
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && key !== MISSING_ENV) env[key] = value;
  Object.assign(env, homeEnv(home));
  return { cwd, home, root, logDir: path.join(cwd, "logs"), alphaDir, env };
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

export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}
