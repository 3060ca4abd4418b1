// Starts the throwaway PostgreSQL of test/support/postgres.ts, prints its postmaster's PID and data
// directory as one JSON line, then waits to be killed. Run by test/suite.test.ts.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import postgres from "postgres";
import { freshDatabase } from "../postgres.js";

const db = await freshDatabase();
if (!db.url) {
  process.stdout.write(`${JSON.stringify({ skip: db.skip })}\n`);
  process.exit(0);
}
const sql = postgres(db.url, { max: 1, onnotice: () => {} });
const [row] = await sql`select setting from pg_settings where name = 'data_directory'`;
await sql.end();
const dataDir = String(row!.setting);
const pid = Number(fs.readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
// Frozen as a test freezes its own database (every process of the cluster stopped), when asked.
if (process.env.HOLD_FROZEN === "1") {
  const children = spawnSync("pgrep", ["-P", String(pid)], { encoding: "utf8" }).stdout.split("\n").filter(Boolean).map(Number);
  for (const member of [pid, ...children]) process.kill(member, "SIGSTOP");
}
process.stdout.write(`${JSON.stringify({ pid, dataDir })}\n`);
setInterval(() => {}, 1 << 30);
