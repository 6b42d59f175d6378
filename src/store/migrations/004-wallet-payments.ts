/**
 * Migration 004: wallet payments. `wallet_payments` holds one row per wallet payment (x402 and the rails after it)
 * that passed verification: its primary key, a hash of the payment's identity on its chain, is the lock that lets
 * one payment buy one call across every instance sharing the database. Usage records gain the settlement's facts.
 */
import type { Kysely, Migration } from 'kysely';
import type { DbKind } from '../db.js';

export function m004WalletPayments(_kind: DbKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('wallet_payments')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('rail', 'varchar(16)', (c) => c.notNull())
        .addColumn('network', 'varchar(80)', (c) => c.notNull())
        .addColumn('asset', 'varchar(80)', (c) => c.notNull())
        .addColumn('payer', 'varchar(80)', (c) => c.notNull())
        .addColumn('amount', 'varchar(80)', (c) => c.notNull())
        .addColumn('amount_micro_usd', 'bigint', (c) => c.notNull())
        .addColumn('route', 'varchar(300)', (c) => c.notNull())
        .addColumn('offer_id', 'varchar(200)', (c) => c.notNull())
        .addColumn('request_id', 'varchar(128)', (c) => c.notNull())
        .addColumn('state', 'varchar(16)', (c) => c.notNull())
        .addColumn('tx_id', 'varchar(128)')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('settled_at', 'varchar(32)')
        .execute();
      await db.schema
        .createIndex('wallet_payments_running')
        .on('wallet_payments')
        .columns(['state', 'created_at'])
        .execute();
      for (const [column, type] of [
        ['route', 'varchar(300)'],
        ['network', 'varchar(80)'],
        ['tx_id', 'varchar(128)'],
      ] as const) {
        await db.schema.alterTable('usage_records').addColumn(column, type).execute();
      }
      await db.schema.createIndex('usage_records_rail').on('usage_records').columns(['rail', 'id']).execute();
    },
  };
}
