// The `kasir` CLI on each database: accounts, keys, credits, debits and the ledger, and how it explains bad
// usage.
import { describe, expect, it } from 'vitest';
import { DB_TARGETS, useTestDb } from '../test/support/app.js';
import { runCommand, UsageError } from './cli.js';
import { KeyResolver } from './ledger/accounts.js';

describe.each(DB_TARGETS)('kasir CLI on %s', (target) => {
  const store = useTestDb(target);

  it('creates an account, issues a key, credits, debits and lists the ledger', async () => {
    const account = (await runCommand(store.db, ['accounts', 'create', '--label', 'shop'])) as {
      account_id: string;
    };
    const id = account.account_id;
    const key = (await runCommand(store.db, ['keys', 'create', id, '--spend-cap', '5000000'])) as {
      key: string;
      key_id: string;
    };
    expect(await new KeyResolver(store.db).resolve(key.key)).toMatchObject({
      accountId: id,
      spendCapped: true,
    });
    expect(
      await runCommand(store.db, ['credit', id, '2000000', '--reason', 'top-up', '--idempotency-key', 't1']),
    ).toMatchObject({
      balance_micro_usd: 2_000_000,
      balance_usd: '2.000000',
      applied: true,
    });
    expect(
      await runCommand(store.db, ['credit', id, '2000000', '--reason', 'top-up', '--idempotency-key', 't1']),
    ).toMatchObject({
      balance_micro_usd: 2_000_000,
      applied: false,
    });
    await runCommand(store.db, ['debit', id, '500000', '--reason', 'refund']);
    const ledger = (await runCommand(store.db, ['ledger', id, '--limit', '5'])) as {
      items: Array<{ kind: string }>;
    };
    expect(ledger.items.map((e) => e.kind)).toEqual(['debit', 'credit']);
    const shown = (await runCommand(store.db, ['accounts', 'show', id])) as {
      balance_micro_usd: number;
      keys: unknown[];
    };
    expect(shown.balance_micro_usd).toBe(1_500_000);
    expect(JSON.stringify(shown)).not.toContain(key.key);
    expect(await runCommand(store.db, ['keys', 'revoke', key.key_id])).toMatchObject({ key_id: key.key_id });
    expect(await new KeyResolver(store.db).resolve(key.key)).toBeNull();
  });

  it('explains bad usage', async () => {
    await expect(runCommand(store.db, ['credit', 'acct_x', 'ten', '--reason', 'x'])).rejects.toBeInstanceOf(
      UsageError,
    );
    await expect(runCommand(store.db, ['credit', 'acct_x', '10'])).rejects.toThrow(/--reason/);
    await expect(runCommand(store.db, ['frobnicate'])).rejects.toThrow(/unknown command/);
    await expect(runCommand(store.db, ['accounts', 'show', 'acct_missing'])).rejects.toThrow(/no account/);
  });
});
