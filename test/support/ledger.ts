// A new prepaid account holding `microUsd`, for tests of the books (the credit is the account's first entry).
import { createAccount } from '../../src/ledger/accounts.js';
import { adjustBalance, type UsageInsert } from '../../src/ledger/books.js';
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
