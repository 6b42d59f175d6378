/**
 * Migration 009: running calls' holds on payment channels. One row per call paid from a channel while it runs: the
 * part of the channel it holds (also counted in the channel's `spent` and `in_flight`) and when the hold lapses
 * (`HOLD_TTL_SECONDS` after it was taken or last raised). The call deletes its row when it ends; a row left by a
 * process that died mid-call is released by the sweeper once it has lapsed, so the channel can close.
 */
import { type Kysely, type Migration, sql } from 'kysely';
import type { DbKind } from '../db.js';

export function m009ChannelHolds(kind: DbKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      // Written on every paid channel call, so no index beyond the key: the table only ever holds the calls running
      // now, which the sweeper reads whole. On SQLite the rows live in the key's b-tree (one write, not two).
      let table = db.schema
        .createTable('channel_holds')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('channel_id', 'varchar(66)', (c) => c.notNull())
        .addColumn('amount', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('expires_at', 'varchar(32)', (c) => c.notNull());
      if (kind === 'sqlite') table = table.modifyEnd(sql`without rowid`);
      await table.execute();
    },
  };
}
