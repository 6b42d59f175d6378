// The admin API and balance route on each database (accounts, keys, credits, ledger pages), the API absent
// without ADMIN_TOKEN, and rate limits per account and key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, startKasir, type TestKasir } from '../../test/support/app.js';

const ADMIN = 'admin-token-for-tests-0123456789';

describe.each(DB_TARGETS)('admin API and balance on %s', (db) => {
  let kasir: TestKasir;
  beforeAll(async () => {
    kasir = await startKasir(db, { ADMIN_TOKEN: ADMIN });
  });
  afterAll(() => kasir.close());

  const admin = (
    path: string,
    init: { method?: string; body?: unknown; token?: string; headers?: Record<string, string> } = {},
  ) =>
    kasir.app.request(path, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        authorization: `Bearer ${init.token ?? ADMIN}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      ...(init.body === undefined
        ? {}
        : { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) }),
    });

  const newAccount = async () => {
    const res = await admin('/v1/admin/accounts', { body: { label: 'acme' } });
    expect(res.status).toBe(201);
    return ((await res.json()) as { account_id: string }).account_id;
  };

  it('refuses a wrong or missing admin token with 401', async () => {
    expect(
      (await admin('/v1/admin/accounts', { body: {}, token: 'wrong-token-wrong-token-wrong' })).status,
    ).toBe(401);
    const res = await kasir.app.request('/v1/admin/accounts', { method: 'POST' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('Bearer');
    expect(await res.json()).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('creates an account, issues a key shown once, and reports the balance to the key', async () => {
    const accountId = await newAccount();
    expect(accountId).toMatch(/^acct_[0-9a-f]{24}$/);
    const issued = await admin(`/v1/admin/accounts/${accountId}/keys`, { body: { label: 'laptop' } });
    expect(issued.status).toBe(201);
    const { key, key_id, prefix } = (await issued.json()) as { key: string; key_id: string; prefix: string };
    expect(key).toMatch(/^ksr_/);
    expect(key.startsWith(prefix)).toBe(true);

    const account = (await (await admin(`/v1/admin/accounts/${accountId}`)).json()) as {
      keys: Array<Record<string, unknown>>;
    };
    expect(account.keys).toHaveLength(1);
    expect(JSON.stringify(account)).not.toContain(key);
    expect(account.keys[0]).toMatchObject({ id: key_id, label: 'laptop', revoked_at: null });

    const credited = await admin(`/v1/admin/accounts/${accountId}/credit`, {
      body: { amount_micro_usd: 12_500_000, reason: 'bank transfer 1234' },
    });
    expect(await credited.json()).toMatchObject({
      balance_micro_usd: 12_500_000,
      balance_usd: '12.500000',
      applied: true,
    });

    const balance = await kasir.app.request('/v1/keys/balance', {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(balance.status).toBe(200);
    expect(balance.headers.get('x-service-charged-micro-usd')).toBe('0');
    expect(balance.headers.get('x-service-balance-micro-usd')).toBe('12500000');
    expect(await balance.json()).toEqual({
      account_id: accountId,
      balance_micro_usd: 12_500_000,
      balance_usd: '12.500000',
      held_micro_usd: 0,
      available_micro_usd: 12_500_000,
    });
  });

  it('answers 401 on the balance route for an unknown, malformed or revoked key', async () => {
    const accountId = await newAccount();
    const { key, key_id } = (await (
      await admin(`/v1/admin/accounts/${accountId}/keys`, { body: {} })
    ).json()) as {
      key: string;
      key_id: string;
    };
    expect((await kasir.app.request('/v1/keys/balance')).status).toBe(401);
    expect(
      (await kasir.app.request('/v1/keys/balance', { headers: { authorization: 'Bearer nope' } })).status,
    ).toBe(401);
    expect(
      (await kasir.app.request('/v1/keys/balance', { headers: { authorization: `Bearer ${key}` } })).status,
    ).toBe(200);
    const revoked = await admin(`/v1/admin/keys/${key_id}`, { method: 'DELETE' });
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ key_id });
    const after = await kasir.app.request('/v1/keys/balance', {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(after.status).toBe(401);
    expect((await admin('/v1/admin/keys/key_000000000000000000000000', { method: 'DELETE' })).status).toBe(
      404,
    );
  });

  it('applies a credit once per idempotency key and refuses a debit beyond the balance', async () => {
    const accountId = await newAccount();
    for (let i = 0; i < 2; i++) {
      await admin(`/v1/admin/accounts/${accountId}/credit`, {
        body: { amount_micro_usd: 1_000, reason: 'x' },
        headers: { 'idempotency-key': 'topup-7' },
      });
    }
    const debit = await admin(`/v1/admin/accounts/${accountId}/debit`, {
      body: { amount_micro_usd: 400, reason: 'correction' },
    });
    expect(await debit.json()).toMatchObject({ balance_micro_usd: 600 });
    const tooMuch = await admin(`/v1/admin/accounts/${accountId}/debit`, {
      body: { amount_micro_usd: 601, reason: 'x' },
    });
    expect(tooMuch.status).toBe(422);
    const ledger = (await (await admin(`/v1/admin/accounts/${accountId}/ledger?limit=10`)).json()) as {
      items: Array<{ kind: string; amount_micro_usd: number; reason: string }>;
    };
    expect(ledger.items.map((e) => [e.kind, e.amount_micro_usd])).toEqual([
      ['debit', -400],
      ['credit', 1_000],
    ]);
  });

  it('validates admin input with field errors and malformed JSON with 400', async () => {
    const accountId = await newAccount();
    const bad = await admin(`/v1/admin/accounts/${accountId}/credit`, {
      body: { amount_micro_usd: 1.5, reason: '' },
    });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { error: { code: string; details: Array<{ field: string }> } };
    expect(body.error.code).toBe('invalid_input');
    expect(body.error.details.map((d) => d.field).sort()).toEqual(['amount_micro_usd', 'reason']);
    const malformed = await admin(`/v1/admin/accounts/${accountId}/credit`, { body: '{"amount_micro_usd":' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { code: 'invalid_json' } });
    expect(
      (await admin('/v1/admin/accounts/acct_nope/credit', { body: { amount_micro_usd: 1, reason: 'x' } }))
        .status,
    ).toBe(404);
  });

  it('pages through the ledger', async () => {
    const accountId = await newAccount();
    for (let i = 0; i < 5; i++) {
      await admin(`/v1/admin/accounts/${accountId}/credit`, {
        body: { amount_micro_usd: 10 + i, reason: `r${i}`, idempotency_key: `p${i}` },
      });
    }
    const first = (await (await admin(`/v1/admin/accounts/${accountId}/ledger?limit=3`)).json()) as {
      items: Array<{ amount_micro_usd: number }>;
      next_before: number;
    };
    expect(first.items.map((e) => e.amount_micro_usd)).toEqual([14, 13, 12]);
    const second = (await (
      await admin(`/v1/admin/accounts/${accountId}/ledger?limit=3&before=${first.next_before}`)
    ).json()) as {
      items: Array<{ amount_micro_usd: number }>;
      next_before: number | null;
    };
    expect(second.items.map((e) => e.amount_micro_usd)).toEqual([11, 10]);
    expect(second.next_before).toBeNull();
  });
});

describe('admin API without ADMIN_TOKEN', () => {
  it('is not mounted at all', async () => {
    const kasir = await startKasir('sqlite');
    const res = await kasir.app.request('/v1/admin/accounts', {
      method: 'POST',
      headers: { authorization: 'Bearer x' },
    });
    expect(res.status).toBe(404);
    await kasir.close();
  });
});

describe('rate limits per account and key', () => {
  it('gives a key its own limit, counted apart from the IP limit', async () => {
    const kasir = await startKasir('sqlite', { ADMIN_TOKEN: ADMIN, RATE_LIMIT_PER_MINUTE: '2' });
    try {
      const account = (await (
        await kasir.app.request('/v1/admin/accounts', {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
          body: JSON.stringify({}),
        })
      ).json()) as { account_id: string };
      const issued = (await (
        await kasir.app.request(`/v1/admin/accounts/${account.account_id}/keys`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ rate_limit_per_minute: 5 }),
        })
      ).json()) as { key: string };
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await kasir.app.request('/v1/keys/balance', {
          headers: { authorization: `Bearer ${issued.key}` },
        });
        statuses.push(res.status);
        if (i === 0) expect(res.headers.get('ratelimit-limit')).toBe('5');
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    } finally {
      await kasir.close();
    }
  });
});
