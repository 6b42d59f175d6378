/**
 * Migration 011: usage records by settlement. A wallet payment's answer made again (its instance died after the
 * payment settled) first asks whether a usage record already charges that settlement (`tx_id`); without an index that
 * read scans every usage record. Partial (rows with a settlement only), so the prepaid and channel calls that make up
 * most of the table, whose `tx_id` is null, cost nothing more to write.
 */
import { type Kysely, type Migration, sql } from 'kysely';
import type { DbKind } from '../db.js';

export function m011UsageTxIndex(_kind: DbKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex('usage_records_tx')
        .on('usage_records')
        .column('tx_id')
        .where(sql.ref('tx_id'), 'is not', null)
        .execute();
    },
  };
}
