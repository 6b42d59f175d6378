// tools/exchange-rate on each database: conversions through the ECB's dollar table, refusals, upstream
// failures and Retry-After.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeFrankfurter } from '../../test/fakes/frankfurter.js';
import type { FakeJsonUpstream } from '../../test/fakes/json-upstream.js';
import { DB_TARGETS } from '../../test/support/app.js';
import { startToolKit, type ToolKit } from '../../test/support/tool-kit.js';

describe.each(DB_TARGETS)('tools/exchange-rate on %s', (db) => {
  let fake: FakeJsonUpstream;
  let kit: ToolKit;
  beforeAll(async () => {
    fake = await startFakeFrankfurter();
    kit = await startToolKit(db, { FRANKFURTER_BASE_URL: fake.url });
  });
  afterAll(async () => {
    await kit.stop();
    await fake.close();
  });

  it('converts through the dollar table and charges its price; the same call again is a paid cache hit', async () => {
    const body = { from: 'EUR', to: 'IDR,JPY', amount: 100 };
    const { body: answer, res } = await kit.paid('exchange-rate', body);
    expect(res.headers.get('x-cache')).toBe('miss');
    expect(fake.requests.at(-1)?.query.get('base')).toBe('USD');
    // EUR→IDR cross-rated via USD: (IDR per USD) / (EUR per USD), from the fake's ECB table.
    const idr = answer.rates as Record<string, number>;
    expect(Object.keys(idr).sort()).toEqual(['IDR', 'JPY']);
    expect(idr.IDR).toBeCloseTo(19377 / 1, -1);
    expect((answer.converted as Record<string, number>).IDR).toBeCloseTo(100 * (idr.IDR as number), 2);
    expect(answer).toMatchObject({ base: 'EUR', amount: 100, as_of: '2026-11-24' });
    expect(typeof answer.source).toBe('string');
    expect(typeof answer.note).toBe('string');

    const seen = fake.requests.length;
    const again = await kit.paid('exchange-rate', {
      from: 'eur',
      to: 'idr,jpy',
      amount: 100,
      extra: 'ignored',
    });
    expect(again.res.headers.get('x-cache')).toBe('hit');
    expect(again.body.rates).toEqual(answer.rates);
    expect(fake.requests.length).toBe(seen);
  });

  it('lists every currency against USD by default, with amount 1', async () => {
    const { body } = await kit.paid('exchange-rate', {});
    expect(body.base).toBe('USD');
    expect(body.amount).toBe(1);
    const rates = body.rates as Record<string, number>;
    expect(rates.EUR).toBeCloseTo(1 / 1.1572, 4);
    expect(rates.USD).toBeUndefined();
    expect(Object.keys(rates).length).toBeGreaterThan(25);
  });

  it('refuses bad input with 400 naming the field, before any upstream call or charge', async () => {
    const seen = fake.requests.length;
    expect((await kit.refused('exchange-rate', { from: 'EURO' }, 400)).error.param).toBe('from');
    expect((await kit.refused('exchange-rate', { to: 'IDR;JPY' }, 400)).error.param).toBe('to');
    expect((await kit.refused('exchange-rate', { amount: -1 }, 400)).error.param).toBe('amount');
    expect(fake.requests.length).toBe(seen);
  });

  it('refuses a currency the ECB does not publish with 400 naming the field, nothing charged', async () => {
    const err = await kit.refused('exchange-rate', { from: 'USD', to: 'IDR,XYZ' }, 400);
    expect(err.error.param).toBe('to');
    expect(err.error.message).toContain('XYZ');
  });

  it('answers 502 naming the upstream when it is down or malformed, 504 when slow; nothing charged', async () => {
    try {
      fake.fail('down');
      expect((await kit.refused('exchange-rate', { to: 'GBP' }, 502)).error.message).toContain('frankfurter');
      fake.fail('malformed');
      expect((await kit.refused('exchange-rate', { to: 'CHF' }, 502)).error.message).toContain('not JSON');
      fake.fail('slow');
      expect((await kit.refused('exchange-rate', { to: 'SEK' }, 504)).error.message).toContain('in time');
    } finally {
      fake.fail(null);
    }
  });

  it('leaves a rate-limiting upstream alone for its Retry-After, then calls it again', async () => {
    try {
      fake.fail('rate-limited', { retryAfter: '1' });
      expect((await kit.refused('exchange-rate', { to: 'NOK' }, 502)).error.message).toContain(
        'rate-limiting',
      );
      const seen = fake.requests.length;
      fake.fail(null);
      expect((await kit.refused('exchange-rate', { to: 'DKK' }, 502)).error.message).toContain('left alone');
      expect(fake.requests.length).toBe(seen);
      await sleep(1100);
      await kit.paid('exchange-rate', { to: 'DKK' });
    } finally {
      fake.fail(null);
    }
  });
});
