/** Opens the database (SQLite file or PostgreSQL) behind one Kysely interface and runs migrations. */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type pg from 'pg';
import type { Config } from '../config/load.js';
import { AUTOCHECKPOINT_PAGES, type Checkpointer, startCheckpointer } from './checkpointer.js';
import { migrations } from './migrations/index.js';
import type { Database } from './schema.js';

export type DbKind = 'sqlite' | 'postgres';

/**
 * The database. Most code uses `kysely`; the prepaid books' hot path also uses the raw handle of its dialect
 * (prepared SQLite statements in synchronous transactions, single-round-trip PostgreSQL statements).
 */
export type Db =
  | {
      kind: 'sqlite';
      kysely: Kysely<Database>;
      sqlite: SQLite.Database;
      /** The thread that checkpoints the file's WAL (null in memory). */
      checkpointer: Checkpointer | null;
      close(): Promise<void>;
    }
  | { kind: 'postgres'; kysely: Kysely<Database>; pool: pg.Pool; close(): Promise<void> };

/** pg, imported only when the database is PostgreSQL (a SQLite deployment never loads it). */
async function loadPg(): Promise<typeof pg> {
  const { default: pg } = await import('pg');
  // int8 (bigint) and numeric come back from pg as strings; money and sizes are safe integers, so read them as numbers.
  pg.types.setTypeParser(20, (v) => {
    const n = Number(v);
    if (!Number.isSafeInteger(n)) throw new Error(`integer ${v} exceeds the safe range`);
    return n;
  });
  return pg;
}

/** How long to wait for a PostgreSQL connection: the URL's `connect_timeout` (seconds, as libpq reads it), or 10 s. */
function connectTimeoutMs(url: string): number {
  const seconds = Number(new URL(url).searchParams.get('connect_timeout') ?? Number.NaN);
  return Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : 10_000;
}

/**
 * Opens the configured database and brings its schema up to date.
 * @example const db = await openDb(config.database)
 */
export async function openDb(target: Config['database'], options: { poolSize?: number } = {}): Promise<Db> {
  let db: Db;
  if (target.kind === 'sqlite') {
    if (target.file !== ':memory:') mkdirSync(path.dirname(path.resolve(target.file)), { recursive: true });
    const sqlite = new SQLite(target.file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    // The WAL is checkpointed by a thread of its own (checkpointer.ts), not inside this connection's commits. Should
    // that thread stop, this connection checkpoints every ~40 MB of WAL rather than every 4 MB: paid calls rewrite
    // the same few pages (the ends of the ledger and usage indexes, the lease and account rows) commit after commit,
    // and a checkpoint copies each distinct page once, so rarer checkpoints copy far fewer pages per call. After a
    // checkpoint the WAL file is cut back to 64 MB at most.
    sqlite.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    sqlite.pragma('journal_size_limit = 67108864');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    // Statement journals (kept while each insert of a charge batch runs, in case it must be undone) and other
    // temporary data stay in memory: on disk, every batch created, spilled to and deleted a file in the
    // temporary folder, about ten system calls per commit.
    sqlite.pragma('temp_store = MEMORY');
    const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
    const checkpointer = target.file === ':memory:' ? null : startCheckpointer(sqlite, target.file);
    db = {
      kind: 'sqlite',
      kysely,
      sqlite,
      checkpointer,
      close: async () => {
        await checkpointer?.stop();
        await kysely.destroy();
      },
    };
  } else {
    const { Pool } = await loadPg();
    const pool = new Pool({
      connectionString: target.url,
      max: options.poolSize ?? 10,
      // pg waits for a connection without end by default: a database that accepts the connection and never answers
      // (a partition, a stopped host) held the start-up at 503 forever and every call with it. Past this, the start
      // fails and says why, and a call fails like any other database error.
      connectionTimeoutMillis: connectTimeoutMs(target.url),
      keepAlive: true,
    });
    // An idle client dying (server restart, failover) must not crash the process: the pool replaces it, and
    // queries in flight fail on their own and are answered as errors.
    pool.on('error', () => {});
    // A checked-out client is not the pool's to watch: when the server ends its session (a restart, a failover,
    // pg_terminate_backend) between two of its queries (the charge journal keeps its connections between writes, a
    // transaction holds one between statements), pg emits the error on the client, and with no listener there Node
    // throws it and the process dies. With one, the client only turns unqueryable: its next query fails as an
    // error its caller handles, and the pool discards it when it comes back.
    pool.on('connect', (client) => client.on('error', () => {}));
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    db = { kind: 'postgres', kysely, pool, close: () => kysely.destroy() };
  }
  await migrate(db);
  return db;
}

async function migrate(db: Db): Promise<void> {
  const migrator = new Migrator({
    db: db.kysely,
    provider: { getMigrations: async () => migrations(db.kind) },
    migrationTableName: 'kasir_migrations',
    migrationLockTableName: 'kasir_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const message = (error as Error).message ?? String(error);
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    // No migration failed: the database itself could not be reached or read (a timeout, a refused login).
    if (!failed) throw new Error(`could not open the database: ${message}`);
    throw new Error(`database migration ${failed} failed: ${message}`);
  }
}

/** A cheap round trip, for /healthz. */
export async function pingDb(db: Db): Promise<void> {
  await sql`select 1`.execute(db.kysely);
}
