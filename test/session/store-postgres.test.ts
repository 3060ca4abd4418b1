import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import postgres from "postgres";
import { postgresStore, type PostgresStore } from "../../src/session/store-postgres.js";
import type { SessionKey } from "../../src/session/store.js";
import { SCHEMA_VERSION } from "../../src/session/store-schema.js";
import { eventually } from "../support/eventually.js";
import { freshDatabase } from "../support/postgres.js";
import { freshKey, storeContract } from "./store-contract.js";

const db = await freshDatabase();
const skip = db.skip ?? false;

if (db.url !== undefined) {
  const url = db.url;
  // Two stores, two connection pools: two replicas' view of one database.
  storeContract("postgres", async () => {
    const a = await postgresStore(url);
    const b = await postgresStore(url);
    return {
      a,
      b,
      close: async () => {
        await a.close();
        await b.close();
      },
    };
  });
}

describe("postgres store", { skip }, () => {
  const url = db.url!;

  it("creates its schema when missing, once, however many processes open it at once", async () => {
    const fresh = await freshDatabase();
    const stores = await Promise.all([postgresStore(fresh.url!), postgresStore(fresh.url!), postgresStore(fresh.url!)]);
    try {
      const froms = stores.map((s) => s.schema?.from).sort();
      assert.deepEqual(froms, [0, SCHEMA_VERSION, SCHEMA_VERSION]);
      const versions = await stores[0]!.sql<Array<{ version: number }>>`select version from skillport_schema order by version`;
      assert.deepEqual(versions.map((v) => v.version), Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it("refuses a database whose schema is newer than it knows", async () => {
    const fresh = await freshDatabase();
    const first = await postgresStore(fresh.url!);
    await first.sql`insert into skillport_schema (version) values (${SCHEMA_VERSION + 1})`;
    await first.close();
    await assert.rejects(postgresStore(fresh.url!), new RegExp(`schema is at version ${SCHEMA_VERSION + 1}, newer than this skillport knows`));
  });

  it("commits durable appends with synchronous_commit on and the others with it off", async () => {
    const store = await postgresStore(url);
    after(() => store.close());
    // A trigger sees the setting of the very transaction that inserts the row.
    await store.sql.unsafe(`
      create table if not exists commit_modes (session_id text, seq int, mode text);
      create or replace function note_commit_mode() returns trigger language plpgsql as $$
      begin insert into commit_modes values (new.session_id, new.seq, current_setting('synchronous_commit')); return new; end $$;
      drop trigger if exists note_commit_mode on skillport_records;
      create trigger note_commit_mode after insert on skillport_records for each row execute function note_commit_mode();`);
    const key = freshKey();
    await store.appendAt(key, 0, [{ type: "clear", time: "a" }]);
    await store.appendAt(key, 1, [{ type: "clear", time: "b" }, { type: "clear", time: "c" }], { durable: true });
    await store.appendAt(key, 3, [{ type: "clear", time: "d" }], { durable: false });
    const modes = await store.sql<Array<{ seq: number; mode: string }>>`select seq, mode from commit_modes where session_id = ${key.sessionId} order by seq`;
    assert.deepEqual(modes.map((m) => [m.seq, m.mode]), [[0, "off"], [1, "on"], [2, "on"], [3, "off"]]);
    // The setting was the transaction's own: the connection's default is untouched.
    const [setting] = await store.sql<Array<{ mode: string }>>`select current_setting('synchronous_commit') as mode`;
    assert.equal(setting?.mode, "on");
    await store.sql.unsafe("drop trigger note_commit_mode on skillport_records");
  });

  /** The idempotency answers stored under `idempotencyKey`, straight from the table. */
  async function answerRows(store: PostgresStore, key: SessionKey, idempotencyKey: string): Promise<number> {
    // An answer's key is stored as the SHA-256 of the idempotency key (schema 3).
    const [row] = await store.sql<Array<{ n: number }>>`
      select count(*)::int as n from skillport_answers
       where principal = ${key.principal} and session_id = ${key.sessionId} and key = encode(sha256(convert_to(${idempotencyKey}::text, 'UTF8')), 'hex')`;
    return row!.n;
  }

  it("a stale append with an idempotency key stores no answer: the stale writer reads a conflict, never a duplicate, and its key stays free", { timeout: 30_000 }, async () => {
    const writer = await postgresStore(url);
    const stale = await postgresStore(url);
    try {
      const key = freshKey();
      await writer.appendAt(key, 0, [{ type: "clear", time: "a" }]);
      await writer.appendAt(key, 1, [{ type: "clear", time: "b" }]);
      // `stale` still believes the next sequence is 1.
      const idempotencyKey = `${key.sessionId}:stale`;
      const outcome = await stale.appendAt(key, 1, [{ type: "clear", time: "late" }], { idempotencyKey, answer: "late" });
      assert.equal(outcome.status, "conflict");
      assert.deepEqual(outcome.status === "conflict" ? outcome.records.map((r) => [r.seq, (r.record as { time: string }).time]) : null, [[1, "b"]]);
      assert.equal(await answerRows(stale, key, idempotencyKey), 0, "no answer row for records that never landed");
      assert.equal("answer" in (await stale.read(key, 0, { idempotencyKey })), false);
      // Caught up, the same key appends for real.
      assert.deepEqual(await stale.appendAt(key, 2, [{ type: "clear", time: "late" }], { idempotencyKey, answer: "late" }), { status: "ok", nextSeq: 3 });
      assert.equal(await answerRows(stale, key, idempotencyKey), 1);
    } finally {
      await writer.close();
      await stale.close();
    }
  });

  it("an append that would leave a gap is refused, with an idempotency key or without, and stores no answer", { timeout: 30_000 }, async () => {
    const store = await postgresStore(url);
    try {
      const key = freshKey();
      await store.appendAt(key, 0, [{ type: "clear", time: "a" }]);
      const idempotencyKey = `${key.sessionId}:gap`;
      await assert.rejects(store.appendAt(key, 2, [{ type: "clear", time: "gap" }], { idempotencyKey, answer: "gap" }), /would leave a gap: the session's next sequence is 1/);
      assert.equal(await answerRows(store, key, idempotencyKey), 0, "no answer row for records that never landed");
      await assert.rejects(store.appendAt(key, 2, [{ type: "clear", time: "gap" }]), /would leave a gap: the session's next sequence is 1/);
      const read = await store.read(key, 0, { idempotencyKey });
      assert.equal("answer" in read, false);
      assert.equal(read.nextSeq, 1);
      // At the right sequence the key is still free: the append is new, not a duplicate.
      assert.deepEqual(await store.appendAt(key, 1, [{ type: "clear", time: "b" }], { idempotencyKey, answer: "b" }), { status: "ok", nextSeq: 2 });
    } finally {
      await store.close();
    }
  });

  it("skips a foreign row with a diagnostic, keeping its sequence", async () => {
    const store = await postgresStore(url);
    after(() => store.close());
    const key = freshKey();
    await store.appendAt(key, 0, [{ type: "clear", time: "a" }]);
    await store.sql`insert into skillport_records (principal, session_id, seq, record) values (${key.principal}, ${key.sessionId}, 1, ${'{"type":"mystery"}'}::json)`;
    await store.appendAt(key, 2, [{ type: "clear", time: "c" }]);
    const read = await store.read(key);
    assert.deepEqual(read.records.map((r) => r.seq), [0, 2]);
    assert.equal(read.nextSeq, 3);
    assert.deepEqual(read.diagnostics.map((d) => d.code), ["session_log_bad_line"]);
    assert.match(read.diagnostics[0]!.path, /^postgres:\/\/postgres@127\.0\.0\.1:\d+\//);
  });

  it("keeps the password out of errors about the database", async () => {
    const bad = new URL(url);
    bad.password = "hunter2";
    bad.pathname = "/no_such_database_here";
    await assert.rejects(postgresStore(bad.toString()), (error: Error) => {
      assert.match(error.message, /cannot open the session store at postgres:\/\/postgres@127\.0\.0\.1:\d+\/no_such_database_here/);
      assert.doesNotMatch(error.message, /hunter2/);
      return true;
    });
  });

  it("tells a subscriber when LISTEN was re-established, so it can re-send what it may have missed", async () => {
    const store = await postgresStore(url);
    after(() => store.close());
    let reconnected: () => void = () => {};
    const again = new Promise<void>((resolve) => (reconnected = resolve));
    const seen: string[] = [];
    await store.subscribe((m) => seen.push(String(m.kind)), () => reconnected());
    // Another session ends the listening connection, as a failover or a network cut would.
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    await admin`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'skillport' and query ilike 'listen %'`;
    await admin.end();
    await again;
    await store.publish({ kind: "after" });
    await eventually(() => seen.includes("after"), "the message published after the reconnect to arrive");
  });
});
