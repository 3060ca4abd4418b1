/**
 * A real PostgreSQL for the store's tests, never a mock.
 *
 * `SKILLPORT_TEST_DATABASE_URL` names a server to use (CI starts one for the whole run, see
 * `.ci/postgres.sh`); without it, each test file that asks starts its own throwaway server from
 * Debian's binaries (`/usr/lib/postgresql/<v>/bin`): `initdb` into a temp directory, listening
 * on 127.0.0.1 on a free port with its socket in that directory, run as the `postgres` user when
 * this process is root (the server refuses to run as root), and stopped by PID when the file
 * ends. Either way each call of `freshDatabase()` creates a database of its own, so test files
 * running at once never see each other's rows.
 *
 * With no binaries and no URL the store's tests skip, saying why, unless
 * `SKILLPORT_REQUIRE_POSTGRES=1`, which turns the missing server into a failure (CI sets it, so
 * a broken setup cannot pass as skipped).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import postgres from "postgres";

export type TestDatabase = { url: string; skip?: undefined } | { url?: undefined; skip: string };

interface Server {
  /** Connection URL of the `postgres` database, the one new databases are created from. */
  adminUrl: string;
}

let serverPromise: Promise<Server | string> | undefined;

/** The newest installed PostgreSQL's bin directory, or null. */
export function postgresBinDir(): string | null {
  const base = "/usr/lib/postgresql";
  let versions: string[];
  try {
    versions = fs.readdirSync(base).filter((name) => fs.existsSync(path.join(base, name, "bin", "postgres")));
  } catch {
    return null;
  }
  versions.sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? path.join(base, versions[0]!, "bin") : null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** uid/gid of the `postgres` user when this process is root (the server will not run as root). */
function serverUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const uid = Number(spawnSync("id", ["-u", "postgres"], { encoding: "utf8" }).stdout.trim());
  const gid = Number(spawnSync("id", ["-g", "postgres"], { encoding: "utf8" }).stdout.trim());
  if (!Number.isInteger(uid) || !Number.isInteger(gid) || uid === 0) throw new Error("running as root, but there is no `postgres` user to run the server as");
  return { uid, gid };
}

async function waitReady(bin: string, port: number, child: ChildProcess, logFile: string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`postgres exited during start: ${fs.readFileSync(logFile, "utf8").slice(-2000)}`);
    }
    const probe = spawnSync(path.join(bin, "pg_isready"), ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-q"]);
    if (probe.status === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`postgres did not accept connections within 15 s: ${fs.readFileSync(logFile, "utf8").slice(-2000)}`);
}

/**
 * A process's "exit" event never fires when it is killed by a signal (the runner's timeout, a
 * Ctrl-C, a SIGKILL), and a server left behind outlives every later run. So a guardian, in a
 * session of its own (a terminal's signals do not reach it), holds the read end of a pipe whose
 * write end only this process holds: however this process ends, the kernel closes that end, the
 * guardian reads end-of-file, and stops the server and removes its directory.
 */
const GUARDIAN = `
const [pid, dir] = process.argv.slice(1);
const fs = require("node:fs");
const { spawnSync } = require("node:child_process");
const stop = () => {
  // A cluster a test froze (SIGSTOP) would hold the SIGQUIT unread for ever: wake all of it first.
  const children = spawnSync("pgrep", ["-P", pid], { encoding: "utf8" }).stdout || "";
  for (const p of [pid, ...children.split("\\n").filter(Boolean)]) { try { process.kill(Number(p), "SIGCONT"); } catch {} }
  try { process.kill(Number(pid), "SIGQUIT"); } catch {}
  const deadline = Date.now() + 5000;
  const gone = () => { try { process.kill(Number(pid), 0); return false; } catch { return true; } };
  const finish = () => {
    if (!gone() && Date.now() < deadline) return setTimeout(finish, 50);
    try { fs.rmSync(dir, { recursive: true, force: true }); } catch {}
    process.exit(0);
  };
  finish();
};
process.stdin.on("end", stop);
process.stdin.on("error", stop);
process.stdin.resume();
`;

function guardServer(pid: number, dir: string): ChildProcess {
  const guardian = spawn(process.execPath, ["-e", GUARDIAN, String(pid), dir], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
  guardian.unref();
  // The pipe must not keep this process alive; it only has to stay open for as long as it lives.
  (guardian.stdin as unknown as { unref(): void }).unref();
  return guardian;
}

/** A server this process started: its postmaster's PID, and what a test may do to it. */
export interface OwnServer extends Server {
  /** The postmaster's PID (its children are the backends). */
  pid(): number;
  /** SIGSTOP to the postmaster and every child: the database is frozen, connections stay open. */
  freeze(): void;
  /** SIGCONT to all of them again. */
  thaw(): void;
  /** Stops the server (fast shutdown, connections cut) and starts it again on the same port and data; resolves once it accepts connections. */
  restart(): Promise<void>;
  /** Stops it and removes its directory. */
  stop(): Promise<void>;
}

/** The postmaster and its children: the processes a SIGSTOP must reach to freeze the database. */
function clusterPids(postmaster: number): number[] {
  const children = spawnSync("pgrep", ["-P", String(postmaster)], { encoding: "utf8" }).stdout.split("\n").filter(Boolean).map(Number);
  return [postmaster, ...children];
}

/** Starts a throwaway server; stopped by PID (and its directory removed) when this process exits, however it exits. */
async function startServer(bin: string): Promise<OwnServer> {
  const user = serverUser();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "skillport-pg-"));
  const data = path.join(dir, "data");
  if (user) fs.chownSync(dir, user.uid, user.gid);
  const asUser = user ? { uid: user.uid, gid: user.gid } : {};
  const init = spawnSync(path.join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-instructions"], {
    ...asUser,
    encoding: "utf8",
    cwd: dir,
  });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.error?.message}`);
  const port = await freePort();
  const logFile = path.join(dir, "server.log");
  const launch = (): ChildProcess => {
    const log = fs.openSync(logFile, "a");
    if (user) fs.fchownSync(log, user.uid, user.gid);
    const started = spawn(
      path.join(bin, "postgres"),
      ["-D", data, "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c", `unix_socket_directories=${dir}`, "-c", "max_connections=200"],
      { ...asUser, cwd: dir, stdio: ["ignore", log, log] },
    );
    fs.closeSync(log);
    started.unref();
    return started;
  };
  let child = launch();
  let guardian = guardServer(child.pid!, dir);
  /** The guardian of a server this process stops itself: it must not stop a later one, or remove the data under it. */
  const dismissGuardian = (): void => {
    try {
      process.kill(guardian.pid!, "SIGKILL");
    } catch {
      // gone already
    }
  };
  const signalAll = (signal: NodeJS.Signals): void => {
    if (child.pid === undefined) return;
    for (const pid of clusterPids(child.pid)) {
      try {
        process.kill(pid, signal);
      } catch {
        // gone meanwhile
      }
    }
  };
  const kill = (signal: NodeJS.Signals): void => {
    // SIGQUIT: immediate shutdown; nothing in a throwaway cluster needs a checkpoint.
    if (child.pid !== undefined && child.exitCode === null) {
      try {
        // A frozen cluster would never act on it.
        signalAll("SIGCONT");
        process.kill(child.pid, signal);
      } catch {
        // already gone
      }
    }
  };
  const exited = (target: ChildProcess): Promise<void> => {
    if (target.exitCode !== null || target.signalCode !== null) return Promise.resolve();
    // Referenced while waited for: an unreferenced child's exit would not keep this process alive to see it.
    target.ref();
    return new Promise((resolve) => target.once("exit", () => resolve()));
  };
  let removed = false;
  const remove = (): void => {
    if (removed) return;
    removed = true;
    kill("SIGQUIT");
    // The server may take a moment to exit; the directory goes with the next tmp clean otherwise.
    spawnSync("sh", ["-c", `for i in $(seq 50); do kill -0 ${child.pid} 2>/dev/null || break; sleep 0.05; done; rm -rf '${dir}'`]);
  };
  process.once("exit", remove);
  await waitReady(bin, port, child, logFile);
  return {
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    pid: () => child.pid!,
    freeze: () => signalAll("SIGSTOP"),
    thaw: () => signalAll("SIGCONT"),
    async restart() {
      const old = child;
      kill("SIGINT");
      await exited(old);
      dismissGuardian();
      child = launch();
      guardian = guardServer(child.pid!, dir);
      await waitReady(bin, port, child, logFile);
    },
    async stop() {
      const old = child;
      kill("SIGQUIT");
      await exited(old);
      remove();
      dismissGuardian();
      process.off("exit", remove);
    },
  };
}

/**
 * A server of the caller's own, never shared with another test file, for tests that stop,
 * freeze or restart it; null (with why) when PostgreSQL is not installed. Throws instead when
 * `SKILLPORT_REQUIRE_POSTGRES=1`.
 */
export async function ownServer(): Promise<OwnServer | { skip: string }> {
  const bin = postgresBinDir();
  if (!bin) {
    const why = "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin): a test that freezes or restarts its database needs one of its own";
    if (process.env.SKILLPORT_REQUIRE_POSTGRES === "1") throw new Error(`SKILLPORT_REQUIRE_POSTGRES=1, but ${why}`);
    return { skip: why };
  }
  return startServer(bin);
}

/** A new, empty database on `server`. */
export async function databaseOn(server: Server): Promise<string> {
  const name = `skillport_test_${randomBytes(6).toString("hex")}`;
  const admin = postgres(server.adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(server.adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function server(): Promise<Server | string> {
  serverPromise ??= (async () => {
    const given = process.env.SKILLPORT_TEST_DATABASE_URL;
    if (given) return { adminUrl: given };
    const bin = postgresBinDir();
    if (!bin) return "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin) and SKILLPORT_TEST_DATABASE_URL is not set";
    return startServer(bin);
  })();
  return serverPromise;
}

/**
 * A new, empty database on the test server, or why there is none. Throws instead of skipping
 * when `SKILLPORT_REQUIRE_POSTGRES=1`.
 */
export async function freshDatabase(): Promise<TestDatabase> {
  const found = await server();
  if (typeof found === "string") {
    if (process.env.SKILLPORT_REQUIRE_POSTGRES === "1") throw new Error(`SKILLPORT_REQUIRE_POSTGRES=1, but ${found}`);
    return { skip: found };
  }
  return { url: await databaseOn(found) };
}
