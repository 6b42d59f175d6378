/**
 * Migration 006: the dashboard. `dashboard_sessions` holds signed-in browsers (only a hash of each session id, so a
 * copy of the table signs no one in); `topup_orders` holds rupiah top-ups by QRIS with both amounts and the rate.
 */
import type { Kysely, Migration } from 'kysely';
import type { DbKind } from '../db.js';

export function m006Dashboard(_kind: DbKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('dashboard_sessions')
        .addColumn('id_hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('account_id', 'varchar(64)')
        .addColumn('wallet', 'varchar(80)')
        .addColumn('csrf_token', 'varchar(64)', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('topup_orders')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('gateway', 'varchar(16)', (c) => c.notNull())
        .addColumn('amount_idr', 'bigint', (c) => c.notNull())
        .addColumn('idr_per_usd', 'bigint', (c) => c.notNull())
        .addColumn('amount_micro_usd', 'bigint', (c) => c.notNull())
        .addColumn('account_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('new_account', 'integer', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('qr_string', 'text')
        .addColumn('gateway_ref', 'varchar(128)')
        .addColumn('claim_hash', 'varchar(64)')
        .addColumn('key_id', 'varchar(64)')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('paid_at', 'varchar(32)')
        .execute();
      await db.schema
        .createIndex('topup_orders_account')
        .on('topup_orders')
        .columns(['account_id', 'created_at'])
        .execute();
    },
  };
}
