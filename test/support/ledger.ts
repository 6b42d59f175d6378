// A new prepaid account holding `microUsd`, for tests of the books (the credit is the account's first entry).
import { createAccount } from '../../src/ledger/accounts.js';
import { adjustBalance, grantLease, type UsageInsert } from '../../src/ledger/books.js';
import { newId } from '../../src/ledger/ids.js';
import type { Db } from '../../src/store/db.js';

export async function fundedAccount(db: Db, microUsd: number): Promise<string> {
  const account = await createAccount(db, { label: 't' });
  if (microUsd > 0) {
    await adjustBalance(db, {
      accountId: account.id,
      kind: 'credit',
      amountMicroUsd: microUsd,
      reason: 'top-up',
      idempotencyKey: 'seed',
    });
  }
  return account.id;
}

/** The usage row of a prepaid call charged `charged` micro-USD, as the checkout writes it. */
export const chargedUsage = (accountId: string, requestId: string, charged: number): UsageInsert => ({
  created_at: new Date().toISOString(),
  request_id: requestId,
  rail: 'prepaid',
  account_id: accountId,
  key_id: null,
  payer: null,
  offer_id: 'test/offer',
  quote_micro_usd: charged,
  charged_micro_usd: charged,
  status: 'charged',
  http_status: 200,
  latency_ms: 1,
  error_code: null,
});

/** A charge of `amount` served from lease `leaseId`, as a charge journal records it (a new charge id each time). */
export function chargeRecord(accountId: string, leaseId: string, amount: number) {
  const id = newId('chg');
  return {
    k: 'charge',
    lease: leaseId,
    account: accountId,
    id,
    amount,
    usage: chargedUsage(accountId, id, amount),
  } as const;
}

/** Opens lease `leaseId` of `amount` on the account in the database, as an instance's first grant does. */
export async function openLease(db: Db, leaseId: string, accountId: string, amount: number): Promise<void> {
  const now = new Date();
  await grantLease(db, {
    leaseId,
    isNew: true,
    accountId,
    minMicroUsd: amount,
    maxMicroUsd: amount,
    entryKey: `hold:${leaseId}`,
    requestId: 'grant',
    now: now.toISOString(),
    expiresAt: new Date(now.getTime() + 600_000).toISOString(),
  });
}

/** How many calls of the account the usage records show charged. */
export async function chargedCalls(db: Db, accountId: string): Promise<number> {
  const rows = await db.kysely
    .selectFrom('usage_records')
    .select('id')
    .where('account_id', '=', accountId)
    .where('status', '=', 'charged')
    .execute();
  return rows.length;
}
