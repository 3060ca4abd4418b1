/**
 * A real HAProxy (Debian's /usr/sbin/haproxy) in front of real replicas, never a stand-in: run in
 * the foreground (`-db`) with a generated config in a temp directory, and stopped by PID.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { tempDir } from "./tmp.js";

export const HAPROXY = process.env.SKILLPORT_TEST_HAPROXY ?? "/usr/sbin/haproxy";

/** Why HAProxy cannot be used here, or null when it can. */
export function haproxyMissing(): string | null {
  const probe = spawnSync(HAPROXY, ["-v"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0) return `HAProxy is not installed (${HAPROXY}; install the haproxy package or set SKILLPORT_TEST_HAPROXY)`;
  return null;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export interface Backend {
  name: string;
  /** `host:port` */
  address: string;
}

/**
 * The config docs/DEPLOY.md shows (a test holds the two to the same text): round robin, a request whose
 * connection failed or that got no response at all is sent again to another replica (the
 * server's idempotency keys make that safe), and a replica that is not ready (`GET /readyz`: draining,
 * or its database not answering) is taken out of rotation within a second.
 */
export function haproxyConfig(bind: string, backends: readonly Backend[]): string {
  return [
    "global",
    "  maxconn 4096",
    // One line per request on stdout (foreground mode): the test counts retries from it.
    "  log stdout format raw local0 info",
    // A request is retried only when it fits one buffer; MCP requests are small, but say so.
    "  tune.bufsize 65536",
    "",
    "defaults",
    "  mode http",
    "  log global",
    "  option dontlognull",
    '  log-format "%ci:%cp %b/%s %ST retries=%rc %Tt %{+Q}r"',
    "  timeout connect 2s",
    // A readiness check slower than this (a loaded machine) fails; two in a row take a replica out.
    "  timeout check 2s",
    // Long enough for an idle GET event stream between keep-alives.
    "  timeout client 5m",
    "  timeout server 5m",
    "  retries 3",
    "  option redispatch 1",
    "  retry-on conn-failure empty-response",
    "",
    "frontend mcp",
    `  bind ${bind}`,
    "  default_backend replicas",
    "",
    "backend replicas",
    "  balance roundrobin",
    // Out of rotation when not ready: a draining replica, or one whose database does not answer.
    "  option httpchk GET /readyz",
    "  http-check expect status 200",
    "  default-server check inter 500ms fall 2 rise 2",
    ...backends.map((backend) => `  server ${backend.name} ${backend.address}`),
    "",
  ].join("\n");
}

export interface Haproxy {
  child: ChildProcess;
  url: URL;
  configFile: string;
  output(): string;
  stop(): Promise<void>;
}

/** Starts HAProxy in the foreground on a free port in front of `backends`; resolves once it accepts connections. */
export async function startHaproxy(backends: readonly Backend[]): Promise<Haproxy> {
  const dir = tempDir("skillport-haproxy-");
  const port = await freePort();
  const configFile = path.join(dir, "haproxy.cfg");
  fs.writeFileSync(configFile, haproxyConfig(`127.0.0.1:${port}`, backends));
  const check = spawnSync(HAPROXY, ["-c", "-f", configFile], { encoding: "utf8" });
  if (check.status !== 0) throw new Error(`haproxy refused its config:\n${check.stdout}${check.stderr}`);
  const child = spawn(HAPROXY, ["-db", "-f", configFile], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await gone;
    }
  };
  try {
    for (let attempt = 0; ; attempt += 1) {
      if (child.exitCode !== null) throw new Error(`haproxy exited at start:\n${output}`);
      if (await accepts(port)) break;
      if (attempt >= 200) throw new Error(`haproxy did not listen on ${port} within 10 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { child, url: new URL(`http://127.0.0.1:${port}/mcp`), configFile, output: () => output, stop };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
