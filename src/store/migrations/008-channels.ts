/**
 * Migration 008: payment channels. One row per channel a payer registered: its descriptor, the highest voucher
 * accepted and its signature, what calls have spent of it, how many, the deposit and what was settled on chain as
 * last read, what calls still running hold, and whether a close was requested or the channel finalized. Written before a call is served.
 */
import type { Kysely, Migration } from 'kysely';
import type { DbKind } from '../db.js';

export function m008Channels(_kind: DbKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('payment_channels')
        .addColumn('id', 'varchar(66)', (c) => c.primaryKey())
        .addColumn('payer', 'varchar(42)', (c) => c.notNull())
        .addColumn('signer', 'varchar(42)', (c) => c.notNull())
        .addColumn('descriptor', 'text', (c) => c.notNull())
        .addColumn('deposit', 'bigint', (c) => c.notNull())
        .addColumn('settled', 'bigint', (c) => c.notNull())
        .addColumn('accepted', 'bigint', (c) => c.notNull())
        .addColumn('voucher_signature', 'varchar(200)')
        .addColumn('spent', 'bigint', (c) => c.notNull())
        .addColumn('in_flight', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('units', 'bigint', (c) => c.notNull())
        .addColumn('close_requested_at', 'varchar(32)')
        .addColumn('finalized_at', 'varchar(32)')
        .addColumn('close_tx', 'varchar(80)')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
        .execute();
    },
  };
}
