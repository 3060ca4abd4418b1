/**
 * The session store on PostgreSQL, through the `postgres` client: any process connected to the
 * same database continues any conversation.
 *
 * - The primary key (principal, session_id, seq) is the conflict: two writers appending at one
 *   sequence cannot both commit. An append also checks that its sequence is the next one, so
 *   no writer can leave a gap either.
 * - Idempotency answers sit in their own table keyed by (principal, session_id, key), written in
 *   the same statement as the records: a retried request finds the answer or nothing at all.
 * - Durability: a durable append commits with `synchronous_commit = on` (the WAL is flushed
 *   before the commit returns); every other append with `off`. A call record lost with the
 *   database server's crash is lost the way a call whose answer never arrived is (the client
 *   retries; the records before it stand); a process crash of a replica loses nothing either way,
 *   since the database has the commit. Checkpoints, clear and end records mark the points a host
 *   rebuilds from, so they are flushed. Each append is one statement, one round trip.
 * - Fan-out: NOTIFY on one channel; each process LISTENs on its own connection, which the client
 *   re-establishes after a loss and then says so (`onReconnect`).
 */
import postgres, { type Sql } from "postgres";
import { diagnostic, type Diagnostic } from "../package/diagnostic.js";
import { isSessionRecord } from "./records.js";
import { checkAppend, serializeMessage, type SessionKey, type SessionStore, type StoredRecord, type StoreMessage } from "./store.js";
import { migrateSchema, type SchemaOutcome } from "./store-schema.js";

export const NOTIFY_CHANNEL = "skillport_events";

export interface PostgresStoreOptions {
  /** Connections at most in the pool (LISTEN takes one more). Default 10. */
  maxConnections?: number;
  /** Create or upgrade the schema on open. Default true. */
  migrate?: boolean;
}

export interface PostgresStore extends SessionStore {
  readonly kind: "postgres";
  /** How the schema was brought up to date when the store opened; null when `migrate` was false. */
  readonly schema: SchemaOutcome | null;
  /** The client, for tests and operators' checks. */
  readonly sql: Sql;
}

interface Row {
  seq: number;
  record: string | null;
  answer: string | null;
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === "23505";
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

export async function postgresStore(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const sql = postgres(url, {
    max: options.maxConnections ?? 10,
    onnotice: () => {},
    // Numbers stay numbers: sequences are integers, and nothing here is a bigint.
    types: {},
    connection: { application_name: "skillport" },
  });
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

  function parseRows(rows: readonly Row[], fromSeq: number): { records: StoredRecord[]; nextSeq: number; answer?: unknown; diagnostics: Diagnostic[] } {
    const records: StoredRecord[] = [];
    const diagnostics: Diagnostic[] = [];
    let nextSeq = fromSeq;
    let answer: unknown;
    let answered = false;
    for (const row of rows) {
      if (row.answer !== null) {
        answer = JSON.parse(row.answer) as unknown;
        answered = true;
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
    return { records, nextSeq, ...(answered ? { answer } : {}), diagnostics };
  }

  async function readRows(key: SessionKey, fromSeq: number, idempotencyKey: string | null): Promise<Row[]> {
    // One round trip: the records and, when asked, the stored answer (seq -1 sorts it first).
    return sql<Row[]>`
      select seq, record::text as record, null::text as answer
        from skillport_records
       where principal = ${key.principal} and session_id = ${key.sessionId} and seq >= ${fromSeq}
      union all
      select -1 as seq, null::text as record, answer::text as answer
        from skillport_answers
       where ${idempotencyKey}::text is not null and principal = ${key.principal} and session_id = ${key.sessionId} and key = ${idempotencyKey}
      order by seq`;
  }

  const store: PostgresStore = {
    kind: "postgres",
    schema,
    sql,
    async read(key, fromSeq = 0, options = {}) {
      open();
      return parseRows(await readRows(key, fromSeq, options.idempotencyKey ?? null), fromSeq);
    },
    async appendAt(key, expectedSeq, records, options = {}) {
      open();
      checkAppend(expectedSeq, records);
      const lines = records.map((record) => JSON.stringify(record));
      const idempotencyKey = options.idempotencyKey ?? null;
      const answer = idempotencyKey === null ? null : JSON.stringify(options.answer ?? null);
      try {
        // `guard` sets the commit mode for this statement's transaction and finds the next
        // sequence; both inserts run only when it is the expected one. A writer that got there
        // first makes the primary key refuse the records (or the answer), and nothing is written.
        const [result] = await sql<Array<{ next: number; inserted: number }>>`
          with guard as (
            select set_config('synchronous_commit', ${options.durable ? "on" : "off"}, true) as mode,
                   (select coalesce(max(seq) + 1, 0) from skillport_records
                     where principal = ${key.principal} and session_id = ${key.sessionId}) as next
          ),
          inserted as (
            insert into skillport_records (principal, session_id, seq, record)
            select ${key.principal}, ${key.sessionId}, ${expectedSeq}::int + (r.ord::int - 1), r.line::json
              from guard, unnest(${lines}::text[]) with ordinality as r(line, ord)
             where guard.next = ${expectedSeq}
            returning seq
          ),
          answered as (
            insert into skillport_answers (principal, session_id, key, seq, answer)
            select ${key.principal}, ${key.sessionId}, ${idempotencyKey}::text, ${expectedSeq}, ${answer}::text::json
              from guard
             where ${idempotencyKey}::text is not null and guard.next = ${expectedSeq}
            returning 1
          )
          select (select next from guard)::int as next, (select count(*) from inserted)::int as inserted`;
        if (result && result.inserted === records.length) return { status: "ok", nextSeq: expectedSeq + records.length };
        if (result && result.next < expectedSeq) {
          throw new RangeError(`append at ${expectedSeq} would leave a gap: the session's next sequence is ${result.next}`);
        }
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
      // Someone else wrote first: their answer under this key, or the records they appended.
      const read = parseRows(await readRows(key, expectedSeq, idempotencyKey), expectedSeq);
      if ("answer" in read) return { status: "duplicate", answer: read.answer };
      return { status: "conflict", records: read.records, nextSeq: read.nextSeq, diagnostics: read.diagnostics };
    },
    async touch(key) {
      open();
      await sql`
        insert into skillport_activity (principal, session_id, last_active) values (${key.principal}, ${key.sessionId}, now())
        on conflict (principal, session_id) do update set last_active = now()`;
    },
    async claimIdle(idleMs, limit) {
      open();
      // Deleting is claiming: of two processes sweeping at once, each row goes to one of them.
      const rows = await sql<Array<{ principal: string; session_id: string }>>`
        delete from skillport_activity
         where (principal, session_id) in (
           select principal, session_id from skillport_activity
            where last_active < now() - make_interval(secs => ${idleMs / 1000})
            order by last_active
            limit ${limit}
            for update skip locked)
        returning principal, session_id`;
      return rows.map((row) => ({ principal: row.principal, sessionId: row.session_id }));
    },
    async forget(key) {
      if (closed) return;
      await sql`delete from skillport_activity where principal = ${key.principal} and session_id = ${key.sessionId}`;
    },
    async publish(message: StoreMessage) {
      open();
      await sql.notify(NOTIFY_CHANNEL, serializeMessage(message));
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
      await sql.end({ timeout: 5 });
    },
  };
  return store;
}
