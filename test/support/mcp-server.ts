/** The real `skillport mcp` server as a child process, run from source through tsx. */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { CLI_MAIN, TSX_LOADER } from "../cli/cli-process.js";
import { eventually } from "./eventually.js";

/** `node --import tsx src/cli/main.ts mcp ...args` */
export function serverCommand(args: string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: ["--import", TSX_LOADER, CLI_MAIN, "mcp", ...args] };
}

export interface HttpServer {
  child: ChildProcess;
  /** The endpoint the server said it listens on. */
  url: URL;
  /** Everything the server has written to stderr so far. */
  stderr(): string;
  /** Kills the server unless it has exited already, and waits until it is gone. */
  stop(): Promise<void>;
}

const LISTENING = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/;

/**
 * `skillport mcp --http 0 ...args` on a free port, once it has said where it listens. The caller
 * stops it: cleanup registered here would run as soon as a `before()` hook calling this ends.
 */
export async function startHttpServer(args: string[], options: { cwd: string; env: Record<string, string>; command?: string }): Promise<HttpServer> {
  // `command`: another build of the command to run (the bundle), instead of the source.
  const command = options.command ? { command: process.execPath, args: [options.command, "mcp", "--http", "0", ...args] } : serverCommand(["--http", "0", ...args]);
  const child = spawn(command.command, command.args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  };
  try {
    // A bound against a hang, not a timing claim: a server compiled through tsx on a loaded
    // two-core machine has been seen to take over 20 s to listen.
    await eventually(() => LISTENING.test(stderr) || child.exitCode !== null, "the listening line", 90_000);
    const match = LISTENING.exec(stderr);
    assert.ok(match, `server did not start:\n${stderr}`);
    return { child, url: new URL(match[1]!), stderr: () => stderr, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
