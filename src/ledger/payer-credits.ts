/**
 * Wallet payers' credit: a payment that settled when it was verified (an MPP Tempo charge) for a call that then
 * failed is credited here, keyed by the payer's DID (`did:pkh:eip155:<chain>:<address>`), and spent on that payer's
 * later calls. Every change is an entry keyed by its cause, so a retried credit or spend applies once.
 */
import type { Db } from '../store/db.js';
import { nowIso } from './ids.js';

export async function payerCredit(db: Db, payer: string): Promise<number> {
  const row = await db.kysely
    .selectFrom('payer_credits')
    .select('balance_micro_usd')
    .where('payer', '=', payer)
    .executeTakeFirst();
  return row?.balance_micro_usd ?? 0;
}

/** Adds `amount` to the payer's credit once per `entryId`; false when that entry was already applied. */
export async function creditPayer(
  db: Db,
  entry: { id: string; payer: string; amountMicroUsd: number; reason: string },
): Promise<boolean> {
  return applyEntry(db, entry, entry.amountMicroUsd);
}

/**
 * Spends `amount` of the payer's credit once per `entryId`: false (nothing spent) when the credit does not cover it
 * or the entry was already applied.
 */
export async function spendPayerCredit(
  db: Db,
  entry: { id: string; payer: string; amountMicroUsd: number; reason: string },
): Promise<boolean> {
  return applyEntry(db, entry, -entry.amountMicroUsd);
}

async function applyEntry(
  db: Db,
  entry: { id: string; payer: string; reason: string },
  delta: number,
): Promise<boolean> {
  return db.kysely
    .transaction()
    .execute(async (trx) => {
      const now = nowIso();
      const inserted = await trx
        .insertInto('payer_credit_entries')
        .values({
          id: entry.id,
          payer: entry.payer,
          amount_micro_usd: delta,
          reason: entry.reason,
          created_at: now,
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
      if (delta > 0) {
        await trx
          .insertInto('payer_credits')
          .values({ payer: entry.payer, balance_micro_usd: delta, updated_at: now })
          .onConflict((oc) =>
            oc.column('payer').doUpdateSet((eb) => ({
              balance_micro_usd: eb('payer_credits.balance_micro_usd', '+', delta),
              updated_at: now,
            })),
          )
          .execute();
        return true;
      }
      const spent = await trx
        .updateTable('payer_credits')
        .set((eb) => ({ balance_micro_usd: eb('balance_micro_usd', '+', delta), updated_at: now }))
        .where('payer', '=', entry.payer)
        .where('balance_micro_usd', '>=', -delta)
        .executeTakeFirst();
      if (Number(spent.numUpdatedRows ?? 0) === 1) return true;
      // Not covered: the entry goes too (the transaction rolls back).
      throw new NotCovered();
    })
    .catch((err) => {
      if (err instanceof NotCovered) return false;
      throw err;
    });
}

class NotCovered extends Error {}
