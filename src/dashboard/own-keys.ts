/** Key changes a signed-in account may make, only ever to its own keys (another account's key is "not found"). */
import { revokeKey } from '../ledger/accounts.js';
import type { Db } from '../store/db.js';

async function owned(db: Db, accountId: string, keyId: string): Promise<boolean> {
  const row = await db.kysely
    .selectFrom('api_keys')
    .select('id')
    .where('id', '=', keyId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return !!row;
}

/** Names a key and sets (or clears) its spend cap and rate limit. False when the account has no such live key. */
export async function updateOwnKey(
  db: Db,
  accountId: string,
  keyId: string,
  change: { label: string | null; spendCapMicroUsd: number | null; rateLimitPerMinute: number | null },
): Promise<boolean> {
  const result = await db.kysely
    .updateTable('api_keys')
    .set({
      label: change.label,
      spend_cap_micro_usd: change.spendCapMicroUsd,
      rate_limit_per_minute: change.rateLimitPerMinute,
    })
    .where('id', '=', keyId)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function revokeOwnKey(db: Db, accountId: string, keyId: string): Promise<boolean> {
  if (!(await owned(db, accountId, keyId))) return false;
  return (await revokeKey(db, keyId)) !== null;
}
