/**
 * Migration 010: the charge journal in PostgreSQL. With a shared database an instance's charges must survive the
 * loss of its disk (a container replaced elsewhere on an empty one), so each charge is journalled as a row before
 * its answer's last bytes leave (ledger/pg-journal.ts). `journal_owners` holds one row per running instance with
 * the database's time of its last heartbeat; the rows of an owner whose heartbeat stopped are replayed by any
 * instance. SQLite keeps its journal in a file beside its database (ledger/charge-journal.ts): no tables there.
 */
import { type Kysely, type Migration, sql } from 'kysely';
import type { DbKind } from '../db.js';

export function m010ChargeJournal(kind: DbKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (kind !== 'postgres') return;
      await db.schema
        .createTable('journal_owners')
        .addColumn('owner', 'varchar(128)', (c) => c.primaryKey())
        .addColumn('heartbeat_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .execute();
      await db.schema
        .createTable('charge_journal')
        .addColumn('owner', 'varchar(128)', (c) => c.notNull())
        .addColumn('key', 'varchar(96)', (c) => c.notNull())
        .addColumn('record', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('charge_journal_pk', ['owner', 'key'])
        .execute();
    },
  };
}
