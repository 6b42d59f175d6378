/**
 * Migration 007: async jobs. One row per call answered `202` under `Prefer: respond-async`: the offer and the
 * upstream's handle (opaque JSON), the payer and the database hold that carries the money until the job ends,
 * where it stands, and its result or error once terminal. `locked_until` is the lease one instance takes while it
 * polls the job, so any instance can pick up a job whose poller died.
 */
import type { Kysely, Migration } from 'kysely';
import type { DbKind } from '../db.js';

export function m007Jobs(_kind: DbKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('jobs')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('offer_id', 'varchar(200)', (c) => c.notNull())
        .addColumn('rail', 'varchar(16)', (c) => c.notNull())
        .addColumn('account_id', 'varchar(64)')
        .addColumn('key_id', 'varchar(64)')
        .addColumn('hold_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('amount_micro_usd', 'bigint', (c) => c.notNull())
        .addColumn('request_id', 'varchar(128)', (c) => c.notNull())
        .addColumn('handle', 'text', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('result', 'text')
        .addColumn('error', 'text')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('deadline_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('locked_until', 'varchar(32)')
        .addColumn('finished_at', 'varchar(32)')
        .execute();
      await db.schema.createIndex('jobs_open').on('jobs').columns(['status', 'locked_until']).execute();
    },
  };
}
