/**
 * Migration 009: running calls' holds on payment channels. One row per call paid from a channel while it runs: the
 * part of the channel it holds (also counted in the channel's `spent` and `in_flight`) and when the hold lapses
 * (`HOLD_TTL_SECONDS` after it was taken or last raised). The call deletes its row when it ends; a row left by a
 * process that died mid-call is released by the sweeper once it has lapsed, so the channel can close.
 */
import type { Kysely, Migration } from 'kysely';
import type { DbKind } from '../db.js';

export function m009ChannelHolds(_kind: DbKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('channel_holds')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('channel_id', 'varchar(66)', (c) => c.notNull())
        .addColumn('amount', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('channel_holds_expiry').on('channel_holds').column('expires_at').execute();
    },
  };
}
