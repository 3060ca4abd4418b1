/**
 * Idempotency keys on a real PostgreSQL: stored as their SHA-256, so a key of any length works,
 * and keys stored under schema 1 (the key itself) are found after the upgrade.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import postgres from "postgres";
import { postgresStore } from "../../src/session/store-postgres.js";
import { SCHEMA_VERSION } from "../../src/session/store-schema.js";
import { freshDatabase } from "../support/postgres.js";
import { freshKey } from "./store-contract.js";

const db = await freshDatabase();

/** Schema 1 as it was created, for a database that predates the hashed keys. */
const SCHEMA_1 = `
  create table skillport_schema (version integer primary key, applied_at timestamptz not null default now());
  create table skillport_records (
    principal text not null, session_id text not null, seq integer not null check (seq >= 0), record json not null,
    primary key (principal, session_id, seq));
  create table skillport_answers (
    principal text not null, session_id text not null, key text not null, seq integer not null, answer json not null,
    primary key (principal, session_id, key));
  create table skillport_activity (
    principal text not null, session_id text not null, last_active timestamptz not null, primary key (principal, session_id));
  create index skillport_activity_last_active on skillport_activity (last_active);
  insert into skillport_schema (version) values (1);`;

describe("postgres store idempotency keys", { skip: db.skip ?? false }, () => {
  it("an idempotency key of any length stores its answer, and a retry under it finds that answer", { timeout: 60_000 }, async () => {
    const store = await postgresStore(db.url!);
    try {
      const key = freshKey();
      let seq = 0;
      // Random text does not compress. An index entry holds at most 2,704 bytes: a 2,000-character
      // key fits in one as it is, a 2,704-character one (with the session id beside it) does not.
      for (const idempotencyKey of [randomBytes(1000).toString("hex"), randomBytes(1352).toString("hex"), randomBytes(512 * 1024).toString("hex")]) {
        const answer = { for: idempotencyKey.length };
        const first = await store.appendAt(key, seq, [{ type: "clear", time: String(seq) }], { idempotencyKey, answer });
        assert.deepEqual(first, { status: "ok", nextSeq: seq + 1 }, `${idempotencyKey.length}-character key`);
        seq += 1;
        const retry = await store.appendAt(key, seq - 1, [{ type: "clear", time: "again" }], { idempotencyKey, answer: { for: "retry" } });
        assert.deepEqual(retry, { status: "duplicate", answer }, `${idempotencyKey.length}-character key`);
        assert.deepEqual((await store.read(key, seq, { idempotencyKey })).answer, answer);
      }
      const widths = await store.sql<Array<{ width: number }>>`select distinct length(key) as width from skillport_answers where session_id = ${key.sessionId}`;
      assert.deepEqual(widths.map((w) => w.width), [64], "each key is stored as 64 hex characters");
    } finally {
      await store.close();
    }
  });

  it("an answer stored under schema 1 is found by its key after the upgrade", { timeout: 60_000 }, async () => {
    const fresh = await freshDatabase();
    const old = postgres(fresh.url!, { max: 1, onnotice: () => {} });
    const key = freshKey();
    const idempotencyKey = `${key.sessionId}:"request-7"`;
    try {
      await old.unsafe(SCHEMA_1);
      await old`insert into skillport_records (principal, session_id, seq, record) values (${key.principal}, ${key.sessionId}, 0, ${'{"type":"clear","time":"a"}'}::text::json)`;
      await old`insert into skillport_answers (principal, session_id, key, seq, answer) values (${key.principal}, ${key.sessionId}, ${idempotencyKey}, 0, ${'{"stored":"before"}'}::text::json)`;
    } finally {
      await old.end();
    }
    const store = await postgresStore(fresh.url!);
    try {
      assert.deepEqual(store.schema, { from: 1, to: SCHEMA_VERSION });
      assert.deepEqual((await store.read(key, 0, { idempotencyKey })).answer, { stored: "before" });
      const retry = await store.appendAt(key, 0, [{ type: "clear", time: "b" }], { idempotencyKey, answer: { stored: "after" } });
      assert.deepEqual(retry, { status: "duplicate", answer: { stored: "before" } });
    } finally {
      await store.close();
    }
  });
});
