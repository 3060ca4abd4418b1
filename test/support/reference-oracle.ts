/**
 * The reference validator `skills-ref` (test/oracle/skills-ref) run as an oracle: many cases in
 * one Python process through test/oracle/driver.py, each answered as its CLI would answer.
 */
import { spawn, spawnSync } from "node:child_process";
import * as path from "node:path";

export const ORACLE_DIR = path.resolve(import.meta.dirname, "../oracle");
export const PYTHON = "/usr/bin/python3";
const ENV = { ...process.env, PYTHONPATH: path.join(ORACLE_DIR, "skills-ref/src"), PYTHONIOENCODING: "utf-8", LC_ALL: "C.UTF-8" };

export interface OracleCase {
  command: "validate" | "to-prompt";
  paths: string[];
}

export interface OracleAnswer {
  stdout: string;
  stderr: string;
  status: number;
}

/** Why the oracle cannot run here, or null when it can. */
export function oracleMissing(): string | null {
  const probe = spawnSync(PYTHON, ["-c", "import strictyaml, click"], { env: ENV, encoding: "utf8" });
  if (probe.status === 0) return null;
  return `the reference needs ${PYTHON} with click and strictyaml (apt-get install -y python3-click python3-strictyaml): ${probe.error?.message ?? probe.stderr.trim()}`;
}

export function askOracle(cases: readonly OracleCase[]): OracleAnswer[] {
  const input = cases.map((c) => JSON.stringify(c)).join("\n") + "\n";
  const run = spawnSync(PYTHON, [path.join(ORACLE_DIR, "driver.py")], { env: ENV, input, encoding: "utf8", maxBuffer: 1 << 30 });
  if (run.status !== 0) throw new Error(`the oracle driver failed (${run.status}): ${run.stderr}`);
  const answers = run.stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as OracleAnswer);
  if (answers.length !== cases.length) throw new Error(`the oracle answered ${answers.length} of ${cases.length} cases`);
  return answers;
}

/** As `askOracle`, without blocking: the caller can compute its own side meanwhile. */
export function askOracleAsync(cases: readonly OracleCase[]): Promise<OracleAnswer[]> {
  const child = spawn(PYTHON, [path.join(ORACLE_DIR, "driver.py")], { env: ENV, stdio: ["pipe", "pipe", "pipe"] });
  const out: Buffer[] = [];
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  child.stdin.end(cases.map((c) => JSON.stringify(c)).join("\n") + "\n");
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (status) => {
      if (status !== 0) return reject(new Error(`the oracle driver failed (${status}): ${err}`));
      const answers = Buffer.concat(out).toString("utf8").trimEnd().split("\n").map((line) => JSON.parse(line) as OracleAnswer);
      if (answers.length !== cases.length) return reject(new Error(`the oracle answered ${answers.length} of ${cases.length} cases`));
      resolve(answers);
    });
  });
}

/** The real reference CLI, one process: to check that the driver answers as it does. */
export function runReferenceCli(args: string[]): OracleAnswer {
  const run = spawnSync(PYTHON, ["-m", "skills_ref.cli", ...args], { env: ENV, encoding: "utf8" });
  return { stdout: run.stdout, stderr: run.stderr, status: run.status ?? -1 };
}
