/**
 * Migration 005: the MPP rail. `mpp_secrets` holds the challenge secrets (the newest signs, the others still verify
 * challenges issued before a rotation); `mpp_store` is mppx's replay store, shared by every instance; `payer_credits`
 * and `payer_credit_entries` hold what a wallet payer paid for a call that then failed, to spend on its next calls.
 */
import type { Kysely, Migration } from 'kysely';
import type { DbKind } from '../db.js';

export function m005Mpp(_kind: DbKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('mpp_secrets')
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('secret', 'varchar(128)', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('retired_at', 'varchar(32)')
        .execute();
      await db.schema
        .createTable('mpp_store')
        .addColumn('key', 'varchar(400)', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'bigint')
        .execute();
      await db.schema
        .createTable('payer_credits')
        .addColumn('payer', 'varchar(120)', (c) => c.primaryKey())
        .addColumn('balance_micro_usd', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('payer_credit_entries')
        .addColumn('id', 'varchar(128)', (c) => c.primaryKey())
        .addColumn('payer', 'varchar(120)', (c) => c.notNull())
        .addColumn('amount_micro_usd', 'bigint', (c) => c.notNull())
        .addColumn('reason', 'varchar(200)', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
    },
  };
}
