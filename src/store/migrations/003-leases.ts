/**
 * Migration 003: balance leases. A hold row is now either one call's hold (`kind = 'call'`) or an instance's
 * lease on part of an account's balance (`kind = 'lease'`), from which that instance serves many calls in
 * memory. `used_micro_usd` is how much of a lease has been charged (or moved into a call's own hold); the
 * rest (amount − used) is what a release returns.
 */
import type { Kysely, Migration } from 'kysely';
import type { DbKind } from '../db.js';

export function m003Leases(_kind: DbKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('holds')
        .addColumn('kind', 'varchar(8)', (c) => c.notNull().defaultTo('call'))
        .execute();
      await db.schema
        .alterTable('holds')
        .addColumn('used_micro_usd', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
