/**
 * The session store on PostgreSQL, through the `postgres` client: any process connected to the
 * same database continues any conversation.
 *
 * - The primary key (principal, session_id, seq) is the conflict: two writers appending at one
 *   sequence cannot both commit. An append also checks that its sequence is the next one, so
 *   no writer can leave a gap either.
 * - Idempotency answers sit in their own table keyed by (principal, session_id, SHA-256 of the
 *   key), written in the same statement as the records: a retried request finds the answer or
 *   nothing at all. The key is hashed because a client chooses how long it is (it holds the
 *   JSON-RPC id), and an index entry has a size limit.
 * - Durability: a durable append commits with `synchronous_commit = on` (the WAL is flushed
 *   before the commit returns); every other append with `off`. A call record lost with the
 *   database server's crash is lost the way a call whose answer never arrived is (the client
 *   retries; the records before it stand); a process crash of a replica loses nothing either way,
 *   since the database has the commit. Checkpoints, clear and end records mark the points a host
 *   rebuilds from, so they are flushed. Each append is one statement, one round trip.
 * - Deadlines (SPEC §9, "Operating it"): every statement has a client-side deadline (default
 *   5 s), after which the caller gets `StoreUnavailableError` and the server's own bound ends the
 *   statement;
 *   connections carry a `statement_timeout` past it (`statementTimeoutMs`), connect within it,
 *   and reconnect after at most 1 s. An append also carries its deadline into the database: one that starts executing
 *   after it (a database that was frozen, then resumed) writes nothing, so a call whose client was
 *   told the store did not answer is not stored behind its back.
 * - Fan-out: NOTIFY on one channel; each process LISTENs on its own connection, which the client
 *   re-establishes after a loss and then says so (`onReconnect`).
 */
import { createHash } from "node:crypto";
import { performance } from "node:perf_hooks";
import postgres, { type Sql } from "postgres";
import { diagnostic, type Diagnostic } from "../package/diagnostic.js";
import { isSessionRecord } from "./records.js";
import { REPLICAS_PRINCIPAL } from "./replicas.js";
import {
  checkAppend,
  DEFAULT_STORE_TIMEOUT_MS,
  serializeMessage,
  SessionGoneError,
  StoreCancelledError,
  StoreUnavailableError,
  type PruneResult,
  type SessionKey,
  type SessionStore,
  type StoredRecord,
  type StoreMessage,
} from "./store.js";
import { migrateSchema, type SchemaOutcome } from "./store-schema.js";

export const NOTIFY_CHANNEL = "skillport_events";
export { DEFAULT_STORE_TIMEOUT_MS } from "./store.js";
/** The longest wait between attempts to reconnect (the client's own grows to 20 s, shared by the pool). */
export const MAX_RECONNECT_DELAY_MS = 1000;
/**
 * Heartbeat streams are one per UTC hour and only the current and the previous hour are ever
 * read (`recentReplicas`): a stream last written two hours ago has no reader and no writer left.
 */
const HEARTBEAT_RETENTION_MS = 2 * 60 * 60 * 1000;
/** Conversations one prune statement deletes at most; prune repeats until fewer are left. */
const PRUNE_BATCH = 500;
/** Any constant: it names the lock that keeps replicas' prunes from deleting the same rows at once. */
const PRUNE_LOCK = 0x736b7072; // "skpr"

export interface PostgresStoreOptions {
  /** Connections at most in the pool (LISTEN takes one more). Default 10. */
  maxConnections?: number;
  /** Create or upgrade the schema on open. Default true. */
  migrate?: boolean;
  /** Deadline of every statement, client-side (the server's `statement_timeout` is past it); also the connect timeout. Default 5,000 ms. */
  timeoutMs?: number;
}

/** One statement the store ran, as metrics count it. */
export interface StoreQueryEvent {
  /** `read`, `append`, `touch`, `claim_idle`, `forget`, `publish`, `ping`, `prune`. */
  operation: string;
  /** `conflict`: an append another writer beat (a unique violation the store resolves by reading again). */
  outcome: "ok" | "conflict" | "timeout" | "cancelled" | "error";
  seconds: number;
}

export interface PostgresStore extends SessionStore {
  readonly kind: "postgres";
  /** How the schema was brought up to date when the store opened; null when `migrate` was false. */
  readonly schema: SchemaOutcome | null;
  /** The client, for tests and operators' checks. */
  readonly sql: Sql;
  /** The deadline every statement gets. */
  readonly timeoutMs: number;
  /** Calls `listener` after every statement the store runs; returns a function that stops it. */
  observe(listener: (event: StoreQueryEvent) => void): () => void;
  /** Statements sent and not yet answered: the pool's connections in use (at most `maxConnections` run at once). */
  inFlight(): number;
  ping(timeoutMs: number): Promise<void>;
  prune(olderThanMs: number): Promise<PruneResult>;
}

interface Row {
  seq: number;
  record: string | null;
  answer: string | null;
}

/**
 * What an idempotency key is stored and looked up as: its SHA-256 in hex, 64 characters whatever
 * the key's length. Schema migration 3 hashes keys stored before it the same way.
 */
function answerKey(idempotencyKey: string | null): string | null {
  return idempotencyKey === null ? null : createHash("sha256").update(idempotencyKey, "utf8").digest("hex");
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === "23505";
}

/**
 * What the driver's error means to a caller: a timeout (the server cancelled the statement, or
 * no connection could be made in time) or a store that cannot be reached. Either way the caller
 * gets no database or driver text; the driver's error is the `cause`, for the server's log.
 */
function unavailable(error: unknown): StoreUnavailableError {
  const code = (error as { code?: unknown } | null)?.code;
  const timedOut = code === "57014" || code === "CONNECT_TIMEOUT";
  return new StoreUnavailableError(timedOut ? "timeout" : "unreachable", { cause: error });
}

/** The driver's reconnect delay in seconds: its own curve, capped, so a database back in 2 s is used again within about 1 s more. */
function reconnectDelaySeconds(retries: number): number {
  return (0.5 + Math.random() / 2) * Math.min(3 ** retries / 100, MAX_RECONNECT_DELAY_MS / 1000);
}

/** Which host and database, never the password: what a diagnostic or log may show of a URL. */
export function describeDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.username ? `${decodeURIComponent(parsed.username)}@` : ""}${parsed.host}${parsed.pathname}`;
  } catch {
    return "postgres://(unparsable URL)";
  }
}

/** The server's bound on a statement: past the client's deadline by the deadline again, at least 2 s. */
export function statementTimeoutMs(timeoutMs: number): number {
  return Math.ceil(timeoutMs) + Math.max(Math.ceil(timeoutMs), 2000);
}

export async function postgresStore(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) throw new RangeError(`timeoutMs must be a positive number of milliseconds, not ${timeoutMs}`);
  const connectionOptions = {
    onnotice: () => {},
    // Numbers stay numbers: sequences are integers, and nothing here is a bigint.
    types: {},
    connect_timeout: timeoutMs / 1000,
    backoff: reconnectDelaySeconds,
    connection: {
      application_name: "skillport",
      // The server gives up on a statement soon after the client does: a statement waiting on a
      // lock does not commit long after its caller was told the store did not answer (and an
      // append carries its own deadline into the statement, so one that runs late writes
      // nothing). The client does not cancel at its deadline (see `run`), so this bound is what
      // frees the connection; it is past the deadline so a statement the client still waits for
      // is never ended under it.
      statement_timeout: statementTimeoutMs(timeoutMs),
      idle_in_transaction_session_timeout: Math.ceil(timeoutMs) * 6,
    },
  };
  const sql = postgres(url, {
    ...connectionOptions,
    max: options.maxConnections ?? 10,
  });
  /**
   * Readiness asks the database, not this process's pool: a ping queued behind a busy pool would
   * call every replica of a loaded deployment unready at once. One connection of its own, opened
   * at the first ping.
   */
  let probeSql: Sql | null = null;
  let schema: SchemaOutcome | null = null;
  try {
    if (options.migrate !== false) schema = await migrateSchema(sql);
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw new Error(`cannot open the session store at ${describeDatabaseUrl(url)}: ${(error as Error).message}`);
  }
  const where = describeDatabaseUrl(url);
  let closed = false;
  const open = (): void => {
    if (closed) throw new Error("the session store is closed");
  };

  const listeners = new Set<(event: StoreQueryEvent) => void>();
  let inFlight = 0;
  /**
   * The database's clock minus this process's, in ms, measured at open and at each ping: an
   * append's deadline is sent in the database's time, so the two clocks need not agree.
   */
  let clockOffsetMs = 0;

  /**
   * Runs one statement under the deadline (and the caller's signal): past it the statement is
   * cancelled and the caller gets `StoreUnavailableError` at once, whether or not the database
   * ever answers. Every statement the store sends goes through here, so `observe` sees each one.
   */
  function run<T>(
    operation: string,
    query: () => PromiseLike<T>,
    signal?: AbortSignal,
    deadlineMs: number = timeoutMs,
    /** The outcome of a statement that succeeded: an append that wrote nothing lost to another writer. */
    classify: (value: T) => StoreQueryEvent["outcome"] = () => "ok",
  ): Promise<T> {
    if (signal?.aborted) return Promise.reject(new StoreCancelledError());
    return new Promise<T>((resolve, reject) => {
      const started = performance.now();
      const pending = query();
      inFlight += 1;
      let settled = false;
      const cancel = (): void => {
        const cancelling = (pending as { cancel?: () => unknown }).cancel?.();
        if (cancelling instanceof Promise) cancelling.catch(() => {});
      };
      const finish = (outcome: StoreQueryEvent["outcome"], settle: () => void): void => {
        if (settled) return;
        settled = true;
        inFlight -= 1;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        const event: StoreQueryEvent = { operation, outcome, seconds: (performance.now() - started) / 1000 };
        for (const listener of listeners) listener(event);
        settle();
      };
      // A cancelled statement is waited for: the database may have committed it before the
      // cancellation reached it, and then the caller must hear that it was stored. (A deadline
      // is not waited for: the append's own deadline in the statement covers that case.)
      let aborted = false;
      const onAbort = (): void => {
        aborted = true;
        cancel();
      };
      // Past the deadline the caller is answered at once, and the statement is left to the
      // server's own bound (`statementTimeoutMs`), never cancelled from here: a cancel names the
      // connection, not the statement, and one sent as the statement was ending (the server's
      // answer already on its way, the event loop late to the timer) ended whatever that
      // connection ran next, another caller's statement.
      const timer = setTimeout(() => {
        finish("timeout", () => reject(new StoreUnavailableError("timeout")));
      }, deadlineMs);
      signal?.addEventListener("abort", onAbort, { once: true });
      pending.then(
        (rows) => finish(classify(rows), () => resolve(rows)),
        (error: unknown) => {
          if (aborted && (error as { code?: unknown } | null)?.code === "57014") return finish("cancelled", () => reject(new StoreCancelledError()));
          if (isUniqueViolation(error)) return finish("conflict", () => reject(error));
          const mapped = unavailable(error);
          finish(mapped.reason === "timeout" ? "timeout" : "error", () => reject(mapped));
        },
      );
    });
  }

  async function measureClock(deadlineMs: number, client: Sql = sql): Promise<void> {
    const before = Date.now();
    const [row] = await run<Array<{ now: number }>>("ping", () => client<Array<{ now: number }>>`select (extract(epoch from clock_timestamp()) * 1000)::float8 as now`, undefined, deadlineMs);
    const after = Date.now();
    if (row) clockOffsetMs = row.now - (before + after) / 2;
  }
  try {
    await measureClock(timeoutMs);
  } catch {
    // Measured again at the next ping; until then the clocks are taken to agree.
  }

  function parseRows(key: SessionKey, rows: readonly Row[], fromSeq: number): { records: StoredRecord[]; nextSeq: number; answer?: unknown; diagnostics: Diagnostic[] } {
    const records: StoredRecord[] = [];
    const diagnostics: Diagnostic[] = [];
    let nextSeq = fromSeq;
    let answer: unknown;
    let answered = false;
    // A reader that has seen records up to `fromSeq - 1` finds that one still there (`readRows`
    // reads it, without its text), unless the session was deleted under it (a prune): then the
    // session is gone, not a session with nothing new.
    let lastSeen = fromSeq === 0;
    for (const row of rows) {
      if (row.answer !== null) {
        answer = JSON.parse(row.answer) as unknown;
        answered = true;
        continue;
      }
      if (row.seq === fromSeq - 1) {
        lastSeen = true;
        continue;
      }
      if (row.seq !== nextSeq) throw new Error(`session records in ${where} have a gap: expected sequence ${nextSeq}, found ${row.seq}`);
      nextSeq = row.seq + 1;
      let parsed: unknown;
      try {
        parsed = JSON.parse(row.record ?? "");
      } catch {
        parsed = undefined;
      }
      if (isSessionRecord(parsed)) records.push({ seq: row.seq, record: parsed });
      else diagnostics.push(diagnostic(where, "warning", "session_log_bad_line", `Skipped record ${row.seq} of the stored session: it is not a complete session record.`));
    }
    if (!lastSeen) throw new SessionGoneError(key.sessionId, "missing");
    return { records, nextSeq, ...(answered ? { answer } : {}), diagnostics };
  }

  async function readRows(key: SessionKey, fromSeq: number, idempotencyKey: string | null): Promise<Row[]> {
    const answerAt = answerKey(idempotencyKey);
    // One round trip: the records and, when asked, the stored answer (seq -1 sorts it first).
    return run<Row[]>("read", () => sql<Row[]>`
      select seq, case when seq >= ${fromSeq} then record::text end as record, null::text as answer
        from skillport_records
       where principal = ${key.principal} and session_id = ${key.sessionId} and seq >= ${fromSeq - 1}
      union all
      select -1 as seq, null::text as record, answer::text as answer
        from skillport_answers
       where ${answerAt}::text is not null and principal = ${key.principal} and session_id = ${key.sessionId} and key = ${answerAt}
      order by seq`);
  }

  const store: PostgresStore = {
    kind: "postgres",
    schema,
    sql,
    timeoutMs,
    observe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    inFlight: () => inFlight,
    async ping(deadlineMs) {
      open();
      probeSql ??= postgres(url, { ...connectionOptions, max: 1 });
      await measureClock(deadlineMs, probeSql);
    },
    async prune(olderThanMs) {
      open();
      // 0 would delete every session, the live ones too, where a server's `sessionTtlMs: 0`
      // means "never prune": the two would read one number two ways. So a prune takes more than 0.
      if (!(Number.isFinite(olderThanMs) && olderThanMs > 0)) throw new RangeError(`olderThanMs must be more than 0 milliseconds, not ${olderThanMs} (0 would delete every session, live ones included)`);
      const result: PruneResult = { sessions: 0, heartbeats: 0 };
      for (;;) {
        const batch = await run<Array<{ sessions: number; heartbeats: number; locked: boolean }>>("prune", () =>
          sql.begin(async (tx) => {
            // One replica prunes at a time; the others find the lock taken and leave it to it.
            const [lock] = await tx<Array<{ locked: boolean }>>`
              select pg_try_advisory_xact_lock(${PRUNE_LOCK}) as locked, set_config('statement_timeout', ${String(Math.ceil(timeoutMs) * 6)}, true)`;
            if (!lock?.locked) return [{ sessions: 0, heartbeats: 0, locked: false }];
            // A conversation goes when nothing was written to it and no request touched it for
            // the whole age: ended ones (nothing is written after the end), and ones abandoned
            // without an end. Its answers and activity go in the same statement.
            return tx<Array<{ sessions: number; heartbeats: number; locked: boolean }>>`
              with doomed as (
                select r.principal, r.session_id
                  from skillport_records r
                 group by r.principal, r.session_id
                having max(r.written_at) < now() - make_interval(secs => case when r.principal = ${REPLICAS_PRINCIPAL}
                                                                          then ${HEARTBEAT_RETENTION_MS / 1000}::float8
                                                                          else ${olderThanMs / 1000}::float8 end)
                   and not exists (select 1 from skillport_activity a
                                    where a.principal = r.principal and a.session_id = r.session_id
                                      and a.last_active >= now() - make_interval(secs => ${olderThanMs / 1000}::float8))
                 limit ${PRUNE_BATCH}
              ),
              answers as (
                delete from skillport_answers x using doomed d where x.principal = d.principal and x.session_id = d.session_id returning 1
              ),
              activity as (
                delete from skillport_activity x using doomed d where x.principal = d.principal and x.session_id = d.session_id returning 1
              ),
              records as (
                delete from skillport_records x using doomed d where x.principal = d.principal and x.session_id = d.session_id returning 1
              )
              select (count(*) filter (where principal <> ${REPLICAS_PRINCIPAL}))::int as sessions,
                     (count(*) filter (where principal = ${REPLICAS_PRINCIPAL}))::int as heartbeats,
                     true as locked
                from doomed`;
          }),
          // A prune deletes in batches under its own, longer deadline: it runs in the background.
          undefined,
          timeoutMs * 6,
        );
        const row = batch[0];
        if (!row || !row.locked) return result;
        result.sessions += row.sessions;
        result.heartbeats += row.heartbeats;
        if (row.sessions + row.heartbeats < PRUNE_BATCH) return result;
      }
    },
    async read(key, fromSeq = 0, options = {}) {
      open();
      return parseRows(key, await readRows(key, fromSeq, options.idempotencyKey ?? null), fromSeq);
    },
    async appendAt(key, expectedSeq, records, options = {}) {
      open();
      checkAppend(expectedSeq, records);
      const lines = records.map((record) => JSON.stringify(record));
      const idempotencyKey = options.idempotencyKey ?? null;
      const answerAt = answerKey(idempotencyKey);
      const answer = idempotencyKey === null ? null : JSON.stringify(options.answer ?? null);
      // In the database's time: a statement that only starts executing after this writes nothing.
      const deadline = new Date(Date.now() + clockOffsetMs + timeoutMs).toISOString();
      try {
        // `guard` sets the commit mode for this statement's transaction, finds the next sequence
        // and checks the deadline; the inserts run only when the sequence is the expected one and
        // the deadline has not passed. A writer that got there first makes the primary key refuse
        // the records (or the answer), and nothing is written. With `touch`, the session's
        // activity is noted in the same statement, so a call costs no write of its own for it.
        const [result] = await run<Array<{ next: number; inserted: number; in_time: boolean }>>(
          "append",
          () => sql<Array<{ next: number; inserted: number; in_time: boolean }>>`
          with guard as (
            select set_config('synchronous_commit', ${options.durable ? "on" : "off"}, true) as mode,
                   (select coalesce(max(seq) + 1, 0) from skillport_records
                     where principal = ${key.principal} and session_id = ${key.sessionId}) as next,
                   clock_timestamp() <= ${deadline}::timestamptz as in_time
          ),
          inserted as (
            insert into skillport_records (principal, session_id, seq, record)
            select ${key.principal}, ${key.sessionId}, ${expectedSeq}::int + (r.ord::int - 1), r.line::json
              from guard, unnest(${lines}::text[]) with ordinality as r(line, ord)
             where guard.next = ${expectedSeq} and guard.in_time
            returning seq
          ),
          answered as (
            insert into skillport_answers (principal, session_id, key, seq, answer)
            select ${key.principal}, ${key.sessionId}, ${answerAt}::text, ${expectedSeq}, ${answer}::text::json
              from guard
             where ${answerAt}::text is not null and guard.next = ${expectedSeq} and guard.in_time
            returning 1
          ),
          touched as (
            insert into skillport_activity (principal, session_id, last_active)
            select ${key.principal}, ${key.sessionId}, now()
              from guard
             where ${options.touch === true} and guard.next = ${expectedSeq} and guard.in_time
            on conflict (principal, session_id) do update set last_active = now()
            returning 1
          )
          select (select next from guard)::int as next, (select count(*) from inserted)::int as inserted, (select in_time from guard) as in_time`,
          options.signal,
          timeoutMs,
          ([row]) => (row && row.inserted === records.length ? "ok" : row && !row.in_time ? "timeout" : "conflict"),
        );
        if (result && result.inserted === records.length) return { status: "ok", nextSeq: expectedSeq + records.length };
        if (result && !result.in_time) throw new StoreUnavailableError("timeout");
        // Nothing left of a session that had records: deleted under its writer (a prune).
        if (result && result.next === 0 && expectedSeq > 0) throw new SessionGoneError(key.sessionId, "missing");
        if (result && result.next < expectedSeq) {
          throw new RangeError(`append at ${expectedSeq} would leave a gap: the session's next sequence is ${result.next}`);
        }
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
      // Someone else wrote first: their answer under this key, or the records they appended.
      const read = parseRows(key, await readRows(key, expectedSeq, idempotencyKey), expectedSeq);
      if ("answer" in read) return { status: "duplicate", answer: read.answer };
      return { status: "conflict", records: read.records, nextSeq: read.nextSeq, diagnostics: read.diagnostics };
    },
    async touch(key) {
      open();
      await run("touch", () => sql`
        insert into skillport_activity (principal, session_id, last_active) values (${key.principal}, ${key.sessionId}, now())
        on conflict (principal, session_id) do update set last_active = now()`);
    },
    async claimIdle(idleMs, limit) {
      open();
      // Deleting is claiming: of two processes sweeping at once, each row goes to one of them.
      const rows = await run<Array<{ principal: string; session_id: string }>>("claim_idle", () => sql<Array<{ principal: string; session_id: string }>>`
        delete from skillport_activity
         where (principal, session_id) in (
           select principal, session_id from skillport_activity
            where last_active < now() - make_interval(secs => ${idleMs / 1000})
            order by last_active
            limit ${limit}
            for update skip locked)
        returning principal, session_id`);
      return rows.map((row) => ({ principal: row.principal, sessionId: row.session_id }));
    },
    async forget(key) {
      if (closed) return;
      await run("forget", () => sql`delete from skillport_activity where principal = ${key.principal} and session_id = ${key.sessionId}`);
    },
    async publish(message: StoreMessage) {
      open();
      const payload = serializeMessage(message);
      await run("publish", () => sql.notify(NOTIFY_CHANNEL, payload));
    },
    async subscribe(listener, onReconnect) {
      open();
      let first = true;
      const listening = await sql.listen(
        NOTIFY_CHANNEL,
        (payload) => {
          let message: unknown;
          try {
            message = JSON.parse(payload);
          } catch {
            return;
          }
          if (typeof message === "object" && message !== null && !Array.isArray(message)) listener(message as StoreMessage);
        },
        () => {
          if (first) first = false;
          else onReconnect?.();
        },
      );
      return { close: () => listening.unlisten() };
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([sql.end({ timeout: 5 }), probeSql?.end({ timeout: 1 })]);
    },
  };
  return store;
}
