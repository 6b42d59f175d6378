// A new prepaid account holding `microUsd`, for tests of the books (the credit is the account's first entry).
import { createAccount } from '../../src/ledger/accounts.js';
import { adjustBalance } from '../../src/ledger/books.js';
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
