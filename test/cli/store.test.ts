import assert from "node:assert/strict";
import { describe, it } from "node:test";
import postgres from "postgres";
import { SCHEMA_VERSION } from "../../src/session/store-schema.js";
import { freshDatabase } from "../support/postgres.js";
import { jsonOf, runCli, sandbox } from "./cli-process.js";

const db = await freshDatabase();

describe("skillport store init", () => {
  it("creates the schema once, and says so; a second run finds it current", { skip: db.skip ?? false }, async () => {
    const { cwd, env } = sandbox();
    const first = await runCli(["store", "init", db.url!], { cwd, env });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, new RegExp(`schema version ${SCHEMA_VERSION} \\(created\\)`));
    const second = await runCli(["store", "init", db.url!, "--json"], { cwd, env });
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(jsonOf<{ schema: unknown }>(second).schema, { from: SCHEMA_VERSION, to: SCHEMA_VERSION });
    const sql = postgres(db.url!, { max: 1, onnotice: () => {} });
    const tables = await sql<Array<{ name: string }>>`select tablename as name from pg_tables where tablename like 'skillport_%' order by 1`;
    await sql.end();
    assert.deepEqual(tables.map((t) => t.name), ["skillport_activity", "skillport_answers", "skillport_records", "skillport_schema"]);
  });

  it("refuses what is not a postgres:// URL, and a database it cannot reach, with exit 2", async () => {
    const { cwd, env } = sandbox();
    const notUrl = await runCli(["store", "init", "./sessions"], { cwd, env });
    assert.equal(notUrl.code, 2);
    assert.match(notUrl.stderr, /needs a postgres:\/\/ URL/);
    // Port 1 on loopback: nothing listens there.
    const unreachable = await runCli(["store", "init", "postgres://someone:secret@127.0.0.1:1/db"], { cwd, env });
    assert.equal(unreachable.code, 2);
    assert.match(unreachable.stderr, /cannot open the session store at postgres:\/\/someone@127\.0\.0\.1:1\/db/);
    assert.doesNotMatch(unreachable.stderr, /secret/);
  });
});

describe("skillport mcp --store", () => {
  it("is a usage error without --http, with anything but a postgres:// URL, or with session-log options", async () => {
    const { cwd, env } = sandbox();
    const cases: Array<[string[], RegExp]> = [
      [["mcp", "--store", "postgres://u@127.0.0.1:1/db"], /--store only applies with --http PORT/],
      [["mcp", "--http", "0", "--store", "./sessions"], /--store takes a postgres:\/\/ URL/],
      [["mcp", "--http", "0", "--store", "postgres://u@127.0.0.1:1/db", "--no-log"], /do not apply with --store/],
      [["mcp", "--http", "0", "--store", "postgres://u:pw@127.0.0.1:1/db"], /cannot open the session store at postgres:\/\/u@127\.0\.0\.1:1\/db/],
    ];
    const runs = await Promise.all(cases.map(([args]) => runCli(args, { cwd, env })));
    for (const [index, [args, message]] of cases.entries()) {
      const run = runs[index]!;
      assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
      assert.match(run.stderr, message);
      assert.doesNotMatch(run.stderr, /pw@/);
    }
  });
});
