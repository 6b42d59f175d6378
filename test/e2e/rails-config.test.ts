// Which rails are on decides what a paid route answers: a wallet route whose rail is off answers 503 naming the
// settings that turn it on (never a 500), a prepaid key pays every paid route (wallet routes included, charge =
// quote), every 402 carries a WWW-Authenticate, and KASIR_PAY_TO alone turns on x402 on Base and MPP on Tempo.

import { decodePaymentRequiredHeader } from '@x402/core/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mppEnv } from '../../src/devnet/command.js';
import { startTempoDevnet, type TempoDevnet } from '../../src/devnet/tempo.js';
import { postJson } from '../support/app.js';
import { useBaseWalletKasir } from '../support/evm-wallet.js';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';
import { expectQuoteCharged, postPaid } from '../support/paid-call.js';

const MODEL = 'openai/gpt-4.1-mini';
const body = { messages: [{ role: 'user', content: 'Halo' }], max_tokens: 16 };
const FUNDS = 100_000_000;

/** Every wallet route family, with the settings its 503 must name. */
const WALLET_ROUTES: Array<{
  path: string;
  body: Record<string, unknown>;
  quoted: Record<string, unknown>;
  settings: string[];
}> = [
  {
    path: `/x402/${MODEL}`,
    body,
    quoted: { ...body, model: MODEL },
    settings: ['KASIR_PAY_TO', 'X402_BASE_PAY_TO'],
  },
  { path: `/a402/${MODEL}`, body, quoted: { ...body, model: MODEL }, settings: ['X402_ALGORAND_PAY_TO'] },
  { path: `/b402/${MODEL}`, body, quoted: { ...body, model: MODEL }, settings: ['X402_BNB_PAY_TO'] },
];

async function expectRailOff(kasir: PaidKasir, path: string, payload: unknown, settings: string[]) {
  const res = await postJson(kasir, path, payload);
  const text = await res.text();
  expect(res.status, text).toBe(503);
  const { error } = JSON.parse(text) as {
    error: { code: string; message: string; details: { settings: string[] } };
  };
  expect(error.code).toBe('not_configured');
  for (const s of settings) {
    expect(error.message).toContain(s);
    expect(error.details.settings).toContain(s);
  }
  expect(error.message).toContain('Authorization: Bearer');
}

describe('a default install (no wallet rail)', () => {
  let kasir: PaidKasir;
  let key: string;
  beforeAll(async () => {
    kasir = await startPaidKasir('sqlite');
    ({ key } = await kasir.fundedKey(FUNDS));
  });
  afterAll(() => kasir?.stop());

  for (const route of WALLET_ROUTES) {
    it(`${route.path}: unpaid answers 503 naming ${route.settings.join(', ')}`, async () => {
      await expectRailOff(kasir, route.path, route.body, route.settings);
    });
    it(`${route.path}: a paid wallet credential answers 503 too, never a 500`, async () => {
      const res = await postJson(kasir, route.path, route.body, { 'payment-signature': 'e30=' });
      expect(res.status).toBe(503);
    });
    it(`${route.path}: a funded prepaid key pays it, charged exactly the quote`, async () => {
      expectQuoteCharged(kasir, await postPaid(kasir, key, route.path, route.body), route.quoted);
    });
  }

  it('/x402/tools/{name} and the generic /x402 routes: 503 unpaid, paid by a key', async () => {
    await expectRailOff(kasir, '/x402/images', { prompt: 'a cat' }, ['KASIR_PAY_TO']);
    await expectRailOff(kasir, '/x402/tools/embed', { text: 'a' }, ['KASIR_PAY_TO']);
    const paid = await postPaid<{ costMicroUsd: number }>(kasir, key, '/x402/images', { prompt: 'a cat' });
    expect(paid.status, JSON.stringify(paid.json)).toBe(200);
    // The generic route's flat price is its quote.
    expect(paid.charged).toBe('46440');
    expect(paid.json.costMicroUsd).toBe(46440);
  });

  it('answers the payment-channel routes 503 naming the settings that turn channels on', async () => {
    // (A body the route's schema refuses is a 400 first; these carry none to refuse.)
    for (const [method, path] of [
      ['GET', `/v1/channels/0x${'ab'.repeat(32)}`],
      ['POST', `/v1/channels/0x${'ab'.repeat(32)}/close`],
    ] as const) {
      const res = await kasir.app.request(path, {
        method,
        ...(method === 'POST' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}),
      });
      const text = await res.text();
      expect(res.status, `${method} ${path}: ${text}`).toBe(503);
      expect(text).toContain('MPP_CHANNEL_OPERATOR_KEY');
    }
  });

  it('answers an unpaid /v1/* call 402 with a WWW-Authenticate naming the prepaid key', async () => {
    const res = await postJson(kasir, '/v1/chat/completions', { ...body, model: MODEL });
    expect(res.status).toBe(402);
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer realm="kasir", docs="http://kasir.test/skill.md", keys="http://kasir.test/dashboard"',
    );
  });
});

describe('a Base-only install', () => {
  const ctx = useBaseWalletKasir();

  it('/a402 and /b402 answer 503 naming their chain, /x402 a 402 offering Base and the key', async () => {
    await expectRailOff(ctx.kasir, `/a402/${MODEL}`, body, ['X402_ALGORAND_PAY_TO']);
    await expectRailOff(ctx.kasir, `/b402/${MODEL}`, body, ['X402_BNB_PAY_TO']);
    const res = await postJson(ctx.kasir, `/x402/${MODEL}`, body);
    expect(res.status).toBe(402);
    const required = decodePaymentRequiredHeader(String(res.headers.get('payment-required')));
    expect(required.accepts.map((a) => a.network)).toEqual([ctx.fx.network]);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="kasir"/);
    const rails = ((await res.json()) as { error: { details: { rails: Array<{ rail: string }> } } }).error
      .details.rails;
    expect(rails.map((r) => r.rail)).toEqual(['prepaid', 'x402']);
  });

  it('takes a prepaid key on /x402/*, charged exactly the quote', async () => {
    const { key } = await ctx.kasir.fundedKey(FUNDS);
    expectQuoteCharged(ctx.kasir, await postPaid(ctx.kasir, key, `/x402/${MODEL}`, body), {
      ...body,
      model: MODEL,
    });
  });
});

describe('KASIR_PAY_TO (with the devnet nodes in place of the public ones)', () => {
  let tempo: TempoDevnet;
  let kasir: PaidKasir;
  const ctx = useBaseWalletKasir();
  const PAY_TO = '0x3333333333333333333333333333333333333333';
  beforeAll(async () => {
    tempo = await startTempoDevnet();
    const { MPP_TEMPO_RECIPIENT: _recipient, ...tempoEnv } = mppEnv(tempo);
    const { X402_BASE_PAY_TO: _payTo, ...baseEnv } = ctx.fx.env;
    kasir = await startPaidKasir('sqlite', { KASIR_PAY_TO: PAY_TO, ...baseEnv, ...tempoEnv });
  }, 60_000);
  afterAll(async () => {
    await kasir?.stop();
    await tempo?.stop();
  });

  it("answers the spec's 402: WWW-Authenticate: Payment on /v1/*, PAYMENT-REQUIRED on /x402/*, both to that address", async () => {
    const v1 = await postJson(kasir, '/v1/chat/completions', { ...body, model: MODEL });
    expect(v1.status).toBe(402);
    const auth = String(v1.headers.get('www-authenticate'));
    expect(auth).toMatch(/(^|, )Payment /);
    expect(auth).toContain('Bearer realm="kasir"');
    const x402 = await postJson(kasir, `/x402/${MODEL}`, body);
    expect(x402.status).toBe(402);
    const required = decodePaymentRequiredHeader(String(x402.headers.get('payment-required')));
    expect(required.accepts.map((a) => a.payTo)).toEqual([PAY_TO]);
    const rails = (
      (await v1.json()) as { error: { details: { rails: Array<{ rail: string; payee?: string }> } } }
    ).error.details.rails;
    // The devnet's settings turn payment channels on too (its node has the escrow): they pay that address as well.
    expect(rails.map((r) => r.rail).sort()).toEqual(['channel', 'mpp', 'prepaid', 'x402']);
    expect(rails.find((r) => r.rail === 'channel')?.payee?.toLowerCase()).toBe(PAY_TO);
  });
});
