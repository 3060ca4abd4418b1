/**
 * The PostgreSQL store's schema, versioned. Each migration runs once, in order, inside one
 * transaction holding an advisory lock, so replicas starting together do not race; the version
 * reached is recorded in `skillport_schema`. A database already at a newer version than this
 * build knows is refused rather than written with assumptions it may break.
 */
import type { Sql } from "postgres";

/** Any constant: it names the lock replicas take while they create or upgrade the schema. */
const MIGRATION_LOCK = 0x736b6c70; // "sklp"

const MIGRATIONS: readonly string[] = [
  // 1: records, idempotency answers, activity for idle expiry.
  `
  create table skillport_records (
    principal text not null,
    session_id text not null,
    seq integer not null check (seq >= 0),
    record json not null,
    primary key (principal, session_id, seq)
  );
  create table skillport_answers (
    principal text not null,
    session_id text not null,
    key text not null,
    seq integer not null,
    answer json not null,
    primary key (principal, session_id, key)
  );
  create table skillport_activity (
    principal text not null,
    session_id text not null,
    last_active timestamptz not null,
    primary key (principal, session_id)
  );
  create index skillport_activity_last_active on skillport_activity (last_active);
  `,
  // 2: when each record was written, so conversations nobody writes to any more can be deleted
  // (prune). A constant default: existing rows get it without a table rewrite, and count as
  // written at the upgrade, so the first prune after it deletes nothing it could not judge.
  `
  alter table skillport_records add column written_at timestamptz not null default now();
  `,
  // 3: an answer's key is the SHA-256 (hex) of the idempotency key, not the key itself: a key is
  // as long as the client's JSON-RPC id, and one over ~2.7 KB broke every insert into the
  // primary key's index. Keys stored before are hashed as `answerKey` hashes new ones, so a
  // retry that straddles the upgrade still finds its answer.
  `
  update skillport_answers set key = encode(sha256(convert_to(key, 'UTF8')), 'hex');
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export interface SchemaOutcome {
  /** Version before. 0: the database had no skillport tables. */
  from: number;
  to: number;
}

/** Brings the schema to `SCHEMA_VERSION`, creating it when missing. */
export async function migrateSchema(sql: Sql): Promise<SchemaOutcome> {
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`create table if not exists skillport_schema (version integer primary key, applied_at timestamptz not null default now())`;
    const [row] = await tx<Array<{ version: number | null }>>`select max(version) as version from skillport_schema`;
    const from = row?.version ?? 0;
    if (from > SCHEMA_VERSION) {
      throw new Error(`the store's schema is at version ${from}, newer than this skillport knows (${SCHEMA_VERSION}); upgrade skillport`);
    }
    for (let version = from + 1; version <= SCHEMA_VERSION; version += 1) {
      await tx.unsafe(MIGRATIONS[version - 1]!);
      await tx`insert into skillport_schema (version) values (${version})`;
    }
    return { from, to: SCHEMA_VERSION };
  });
}
