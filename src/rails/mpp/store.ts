/**
 * mppx's replay store in kasir's database, so a credential spent on one instance is spent on all of them. `update`
 * is a read-modify-write in one transaction (the row locked on PostgreSQL; SQLite runs one writer at a time);
 * two first writers of a missing key race on the primary key and the loser runs its update again.
 */
import type { Store } from 'mppx';
import type { Db } from '../../store/db.js';

type Change =
  | { op: 'noop'; result: unknown }
  | { op: 'set'; value: unknown; result: unknown }
  | { op: 'delete'; result: unknown };

/**
 * The `type` of the value `tryClaim` records: a payment claimed by a call not finished (for a pull: not broadcast).
 * Its `at` is when (Unix ms).
 */
export const CALL_CLAIM = 'mppx:replay';

const parse = (value: string | undefined): unknown => (value === undefined ? null : JSON.parse(value));

export function dbStore(db: Db): Store.AtomicStore {
  const now = () => Date.now();
  const live = (expires: number | null) => expires === null || expires > now();

  async function get(key: string) {
    const row = await db.kysely
      .selectFrom('mpp_store')
      .select(['value', 'expires_at'])
      .where('key', '=', key)
      .executeTakeFirst();
    return row && live(row.expires_at) ? parse(row.value) : null;
  }

  async function put(key: string, value: unknown) {
    await db.kysely
      .insertInto('mpp_store')
      .values({ key, value: JSON.stringify(value), expires_at: null })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: JSON.stringify(value), expires_at: null }))
      .execute();
  }

  async function del(key: string) {
    await db.kysely.deleteFrom('mpp_store').where('key', '=', key).execute();
  }

  async function update(key: string, fn: (current: unknown) => Change): Promise<unknown> {
    for (;;) {
      const outcome = await db.kysely.transaction().execute(async (trx) => {
        let query = trx.selectFrom('mpp_store').select(['value', 'expires_at']).where('key', '=', key);
        if (db.kind === 'postgres') query = query.forUpdate();
        const row = await query.executeTakeFirst();
        const change = fn(row && live(row.expires_at) ? parse(row.value) : null);
        if (change.op === 'delete') {
          await trx.deleteFrom('mpp_store').where('key', '=', key).execute();
        } else if (change.op === 'set') {
          const value = JSON.stringify(change.value);
          if (row) {
            await trx
              .updateTable('mpp_store')
              .set({ value, expires_at: null })
              .where('key', '=', key)
              .execute();
          } else {
            const inserted = await trx
              .insertInto('mpp_store')
              .values({ key, value, expires_at: null })
              .onConflict((oc) => oc.column('key').doNothing())
              .executeTakeFirst();
            if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return { retry: true as const };
          }
        }
        return { retry: false as const, result: change.result };
      });
      if (!outcome.retry) return outcome.result;
    }
  }

  /** Records the first use of a replay key until `expires` (Unix ms); false when it is already recorded and live. */
  async function tryClaim(key: string, expires: number): Promise<boolean> {
    const value = JSON.stringify({ type: CALL_CLAIM, expires, at: now() });
    const claimed = await db.kysely
      .insertInto('mpp_store')
      .values({ key, value, expires_at: expires })
      .onConflict((oc) =>
        oc
          .column('key')
          .doUpdateSet({ value, expires_at: expires })
          .where('mpp_store.expires_at', 'is not', null)
          .where('mpp_store.expires_at', '<', now()),
      )
      .executeTakeFirst();
    return Number(claimed.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  return { get, put, delete: del, update, tryClaim } as unknown as Store.AtomicStore;
}

/** Drops replay keys past their expiry (called by the sweeper). */
export async function dropExpiredReplayKeys(db: Db): Promise<number> {
  const res = await db.kysely
    .deleteFrom('mpp_store')
    .where('expires_at', 'is not', null)
    .where('expires_at', '<', Date.now())
    .executeTakeFirst();
  return Number(res.numDeletedRows ?? 0);
}
