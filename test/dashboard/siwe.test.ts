// Sign-In with Ethereum: a wallet signs the server's message and sees the usage it paid for on wallet rails, and
// nothing else; a wrong signature, a replayed nonce or another domain's message signs no one in.
import { privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nowIso } from '../../src/ledger/ids.js';
import { DB_TARGETS, startKasir, type TestKasir } from '../support/app.js';
import { DashboardClient } from '../support/dashboard-client.js';

const payer = privateKeyToAccount(`0x${'11'.repeat(32)}`);
const stranger = privateKeyToAccount(`0x${'22'.repeat(32)}`);

describe.each(DB_TARGETS)('wallet sign-in on %s', (target) => {
  let kasir: TestKasir;
  beforeAll(async () => {
    kasir = await startKasir(target, { RATE_LIMIT_PER_MINUTE: '0' });
    for (const [who, offer] of [
      [payer.address.toLowerCase(), 'paid-by-payer'],
      [stranger.address, 'paid-by-stranger'],
    ] as const) {
      await kasir.deps.db.kysely
        .insertInto('usage_records')
        .values({
          created_at: nowIso(),
          request_id: `req-${offer}`,
          rail: 'x402',
          account_id: null,
          key_id: null,
          payer: who,
          offer_id: offer,
          quote_micro_usd: 2000,
          charged_micro_usd: 2000,
          status: 'charged',
          http_status: 200,
          latency_ms: 3,
          error_code: null,
          route: `/x402/${offer}`,
          network: 'eip155:8453',
          tx_id: '0xabc',
        })
        .execute();
    }
  });
  afterAll(() => kasir.close());

  const messageFor = async (browser: DashboardClient, address: string) => {
    const res = await browser.get(`/dashboard/siwe/message?address=${address}&chainId=8453`);
    expect(res.status).toBe(200);
    return (JSON.parse(res.text) as { message: string }).message;
  };

  it('signs a wallet in to the usage it paid for, and only that', async () => {
    const browser = new DashboardClient(kasir);
    await browser.get('/dashboard');
    const message = await messageFor(browser, payer.address);
    expect(message).toContain('kasir.test wants you to sign in with your Ethereum account');
    const signature = await payer.signMessage({ message });
    const res = await browser.post('/dashboard/siwe', { message, signature });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/dashboard/usage');
    const usage = await browser.get('/dashboard/usage');
    expect(usage.text).toContain('paid-by-payer');
    expect(usage.text).toContain('/x402/paid-by-payer');
    expect(usage.text).not.toContain('paid-by-stranger');
    // A wallet session has no account: no keys page, no key creation.
    expect((await browser.get('/dashboard/keys')).status).toBe(303);
    expect((await browser.post('/dashboard/keys', { label: 'x' })).status).toBe(401);
  });

  it('refuses a signature by another wallet, a reused nonce and a message for another domain', async () => {
    const browser = new DashboardClient(kasir);
    await browser.get('/dashboard');
    const message = await messageFor(browser, payer.address);
    const forged = await stranger.signMessage({ message });
    expect((await browser.post('/dashboard/siwe', { message, signature: forged })).status).toBe(401);
    // The nonce was spent by that attempt: the right signature of the same message no longer signs in.
    const late = await payer.signMessage({ message });
    expect((await browser.post('/dashboard/siwe', { message, signature: late })).status).toBe(401);

    const fresh = await messageFor(browser, payer.address);
    const nonce = /Nonce: (\w+)/.exec(fresh)?.[1] ?? '';
    const elsewhere = createSiweMessage({
      address: payer.address,
      chainId: 8453,
      domain: 'evil.example',
      uri: 'https://evil.example/',
      version: '1',
      nonce,
    });
    const signed = await payer.signMessage({ message: elsewhere });
    const res = await browser.post('/dashboard/siwe', { message: elsewhere, signature: signed });
    expect(res.status).toBe(401);
    expect(res.setCookies.some((c) => c.startsWith('kasir_session='))).toBe(false);
  });
});
