/**
 * Shared checks of the reliability suite: the shape every envelope must have whatever went
 * wrong, a recorder of unhandled rejections, a bound that turns a hanging call into a failure,
 * and the real `skillport mcp` server over stdio.
 */
import assert from "node:assert/strict";
import { after } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Envelope } from "../../src/tool/envelope.js";
import { homeEnv } from "../cli/cli-process.js";
import { serverCommand } from "../support/mcp-server.js";
import { makeSkill } from "../support/skill-spec.js";

const ERROR_CODES = new Set(["invalid_arguments", "tool_unavailable", "skill_not_found", "skill_unavailable", "skill_read_error"]);
const READ_REASONS = new Set(["illegal_path", "unsupported_path", "not_found", "not_a_file", "not_utf8", "io"]);
const STATUSES = new Set(["loaded", "already_active", "file_loaded"]);

/** Fails unless `value` is a §4 envelope: exactly `ok`, `error`, `data`, consistent with each other. */
export function assertEnvelope(value: unknown, context = ""): asserts value is Envelope {
  const where = context ? ` (${context})` : "";
  assert.ok(value !== null && typeof value === "object", `not an object${where}: ${JSON.stringify(value)}`);
  const envelope = value as Record<string, unknown>;
  assert.deepEqual(Object.keys(envelope).sort(), ["data", "error", "ok"], `envelope keys${where}`);
  if (envelope.ok === true) {
    assert.equal(envelope.error, null, `success with an error${where}`);
    const data = envelope.data as Record<string, unknown> | null;
    assert.ok(data !== null && typeof data === "object", `success without data${where}`);
    if ("skill_groups" in data) {
      const groups = data.skill_groups as Array<{ skills: unknown[] }>;
      assert.equal(data.count, groups.reduce((n, g) => n + g.skills.length, 0), `list count${where}`);
    } else {
      assert.ok(STATUSES.has(String(data.status)), `unknown status ${String(data.status)}${where}`);
      assert.equal(typeof data.name, "string", `data.name${where}`);
    }
  } else {
    assert.equal(envelope.ok, false, `ok is not a boolean${where}`);
    assert.equal(envelope.data, null, `failure with data${where}`);
    const error = envelope.error as Record<string, unknown> | null;
    assert.ok(error !== null && typeof error === "object", `failure without error${where}`);
    assert.ok(ERROR_CODES.has(String(error.code)), `unknown error code ${String(error.code)}${where}`);
    assert.ok(typeof error.message === "string" && error.message.length > 0, `error without message${where}`);
    if (error.code === "skill_read_error") assert.ok(READ_REASONS.has(String(error.reason)), `unknown read reason ${String(error.reason)}${where}`);
  }
}

/** Every unhandled rejection in this process from now until the test file ends. */
export function recordUnhandledRejections(): unknown[] {
  const seen: unknown[] = [];
  const listener = (reason: unknown) => seen.push(reason);
  process.on("unhandledRejection", listener);
  after(() => {
    process.off("unhandledRejection", listener);
  });
  return seen;
}

/** Generous on purpose: it only turns a hang into a failure, it is no timing assertion. */
export const HANG_BOUND_MS = 20_000;

/** Resolves like `work`, or rejects naming `what` when it has not settled within the hang bound. */
export async function withinBound<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${HANG_BOUND_MS} ms: it hangs`)), HANG_BOUND_MS);
  });
  try {
    return await Promise.race([work, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** Writes `root/name/SKILL.md` with a name, a description and a body; returns the skill directory. */
export function writeSkillDir(root: string, name: string, options: { description?: string; body?: string; frontmatter?: string } = {}): string {
  return makeSkill(root, name, {
    description: options.description ?? `Does the ${name} task when asked to.`,
    body: options.body ?? `# ${name}\n\nFollow the ${name} steps.`,
    ...(options.frontmatter ? { frontmatter: options.frontmatter.trim() } : {}),
  });
}

/** The environment a server child runs with: this process's, with HOME inside the sandbox. */
export function childEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return { ...env, ...homeEnv(home), NO_COLOR: "1", ...extra };
}

export interface StdioServer {
  client: Client;
  stderr(): string;
  call(args: Record<string, unknown>): Promise<{ envelope: Envelope; text: string; isError: boolean }>;
  close(): Promise<void>;
}

/** `skillport mcp ARGS` as a child process, with a connected MCP SDK client. */
export async function startStdioServer(args: string[], cwd: string, env: Record<string, string>): Promise<StdioServer> {
  const transport = new StdioClientTransport({ ...serverCommand(args), cwd, env, stderr: "pipe" });
  let stderr = "";
  transport.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "skillport-reliability", version: "1.0.0" });
  await withinBound(client.connect(transport), "connecting to the MCP server");
  return {
    client,
    stderr: () => stderr,
    async call(callArgs) {
      const result = await withinBound(client.callTool({ name: "skill", arguments: callArgs }), `tools/call ${JSON.stringify(callArgs)}`);
      const content = result.content as Array<{ type: string; text: string }>;
      assert.equal(content.length, 1, `one text block: ${JSON.stringify(content)}`);
      assert.equal(content[0]!.type, "text");
      return { envelope: result.structuredContent as unknown as Envelope, text: content[0]!.text, isError: result.isError === true };
    },
    close: () => client.close(),
  };
}
