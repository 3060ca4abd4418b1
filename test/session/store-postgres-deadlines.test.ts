/**
 * The PostgreSQL store's deadlines against a real database the test owns, frozen with SIGSTOP
 * (its processes stopped, its connections open): a caller is told the store is unavailable at the
 * deadline, with no driver text, and an append the frozen database only executes after its
 * deadline writes nothing.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import postgres from "postgres";
import type { SessionRecord } from "../../src/session/records.js";
import { postgresStore, type PostgresStore } from "../../src/session/store-postgres.js";
import { StoreCancelledError, StoreUnavailableError } from "../../src/session/store.js";
import { databaseOn, ownServer, type OwnServer } from "../support/postgres.js";
import { freshKey } from "./store-contract.js";

const own = await ownServer();
const skip = "skip" in own ? own.skip : false;

function header(id: string): SessionRecord {
  return { type: "session", v: 1, time: new Date().toISOString(), id, compaction: "carry", carryBudgetBytes: 0 };
}

const clear: SessionRecord = { type: "clear", time: "t" };

describe("postgres store deadlines", { skip, timeout: 120_000 }, () => {
  let pg: OwnServer;
  let store: PostgresStore;
  let check: postgres.Sql;
  let url: string;

  before(async () => {
    pg = own as OwnServer;
    url = await databaseOn(pg);
    store = await postgresStore(url, { timeoutMs: 1000 });
    check = postgres(url, { max: 1, onnotice: () => {} });
  });

  after(async () => {
    pg?.thaw();
    await store?.close().catch(() => {});
    await check?.end({ timeout: 1 }).catch(() => {});
    await pg?.stop();
  });

  const rowsOf = async (sessionId: string): Promise<number> =>
    (await check<Array<{ n: number }>>`select count(*)::int as n from skillport_records where session_id = ${sessionId}`)[0]!.n;

  it("a store opened without timeoutMs gives every statement the 5 s deadline SPEC §9 names", async () => {
    const plain = await postgresStore(url);
    try {
      assert.equal(plain.timeoutMs, 5000);
      // And the database holds each statement of its connections to a bound past it (10 s), so
      // the client's cancel always finds its own statement running.
      assert.equal((await plain.sql<Array<{ statement_timeout: string }>>`show statement_timeout`)[0]!.statement_timeout, "10s");
    } finally {
      await plain.close();
    }
  });

  it("a statement the deadline gives up on is cancelled itself, never the next statement its connection runs", { timeout: 90_000 }, async () => {
    // One connection, a short deadline: a read waits on a lock past it, the lock goes, and the very
    // next read on that connection must be answered. With the server's statement_timeout equal to
    // the client's deadline, the server sometimes ended the statement first and the client's
    // cancel, arriving after, ended the next read instead.
    const tight = await postgresStore(url, { timeoutMs: 300, maxConnections: 1 });
    const key = freshKey();
    try {
      assert.equal((await tight.appendAt(key, 0, [header(key.sessionId)])).status, "ok");
      for (let round = 0; round < 15; round++) {
        const holder = await check.reserve();
        try {
          await holder`begin`;
          await holder`lock table skillport_records in access exclusive mode`;
          await assert.rejects(tight.read(key), StoreUnavailableError, `round ${round}: the locked read is given up at the deadline`);
          // Past the client's deadline, to where the server's own bound would have ended it.
          await new Promise((resolve) => setTimeout(resolve, 30));
          await holder`rollback`;
        } finally {
          holder.release();
        }
        const again = await tight.read(key).catch((error: unknown) => error);
        assert.ok(!(again instanceof Error), `round ${round}: the next read was answered, not cancelled (${String(again)})`);
      }
    } finally {
      await tight.close();
    }
  });

  it("refuses an append the frozen database executes only after its deadline, and says so at the deadline without driver text", { timeout: 60_000 }, async () => {
    const key = freshKey();
    assert.equal((await store.appendAt(key, 0, [header(key.sessionId)])).status, "ok");
    // A connection of the pool is open and idle: the append below reaches the frozen server's socket.
    await store.read(key);
    pg.freeze();
    let failure: unknown;
    try {
      failure = await store.appendAt(key, 1, [clear]).then(
        () => null,
        (error: unknown) => error,
      );
      // Well past the deadline before the database runs the statement it was sent.
      await new Promise((resolve) => setTimeout(resolve, 1500));
    } finally {
      pg.thaw();
    }
    assert.ok(failure instanceof StoreUnavailableError, String(failure));
    assert.equal(failure.reason, "timeout");
    assert.equal(failure.message, "The session store did not answer in time");
    // Once the database has caught up, the late statement has run and written nothing.
    for (let attempt = 0; attempt < 100; attempt += 1) {
      try {
        if ((await store.read(key)).nextSeq >= 1) break;
      } catch {
        // still catching up
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(await rowsOf(key.sessionId), 1);
    assert.equal((await store.appendAt(key, 1, [clear])).status, "ok");
  });

  it("does not send an append whose caller has already given up, and cancels one it sent", { timeout: 30_000 }, async () => {
    const key = freshKey();
    assert.equal((await store.appendAt(key, 0, [header(key.sessionId)])).status, "ok");
    const given = new AbortController();
    given.abort();
    await assert.rejects(store.appendAt(key, 1, [clear], { signal: given.signal }), StoreCancelledError);
    // Held behind a lock, then cancelled: the database cancels it, and nothing is written.
    const locker = postgres(url, { max: 1, onnotice: () => {} });
    const reserved = await locker.reserve();
    await reserved`begin`;
    await reserved`lock table skillport_records in exclusive mode`;
    const waiting = new AbortController();
    const append = store.appendAt(key, 1, [clear], { signal: waiting.signal });
    try {
      for (let attempt = 0; attempt < 200; attempt += 1) {
        const [row] = await check<Array<{ n: number }>>`select count(*)::int as n from pg_locks where relation = 'skillport_records'::regclass and not granted`;
        if (row!.n > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      waiting.abort();
      await assert.rejects(append, StoreCancelledError);
    } finally {
      await reserved`rollback`;
      reserved.release();
      await locker.end();
    }
    assert.equal(await rowsOf(key.sessionId), 1);
  });
});
