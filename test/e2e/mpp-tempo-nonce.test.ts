// A Tempo payer whose transaction's nonce was already used (on the devnet's anvil: any second payment from one
// payer, which the node drops) is told so at once — a 402 naming the used nonce — not, after a wait, that the
// payment network could not be reached.
import { Mppx, tempo } from 'mppx/client';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempoChargeEnv } from '../../src/devnet/command.js';
import { startTempoDevnet, type TempoDevnet } from '../../src/devnet/tempo.js';
import { chatBody, type PaidKasir, startPaidKasir } from '../support/paid.js';

const URL_BASE = 'http://kasir.test';

describe('a Tempo payment whose nonce was already used', () => {
  let chain: TempoDevnet;
  let kasir: PaidKasir;
  beforeAll(async () => {
    chain = await startTempoDevnet();
    kasir = await startPaidKasir('sqlite', {
      ...tempoChargeEnv(chain),
      PUBLIC_BASE_URL: URL_BASE,
    });
  }, 60_000);
  afterAll(async () => {
    await kasir?.stop();
    await chain?.stop();
  });

  // Pull: kasir broadcasts, so it can tell. (A push payment is broadcast by the payer's own client, which waits.)
  it('is refused at once with a 4xx that says the nonce was used', async () => {
    const payer = await chain.fundPayer();
    const mppx = Mppx.create({
      polyfill: false,
      methods: [tempo({ account: privateKeyToAccount(payer.privateKey), getClient: chain.client })],
      fetch: async (input: string | URL | Request, init?: RequestInit) =>
        kasir.app.request(String(input), init),
    });
    const call = () =>
      mppx.fetch(`${URL_BASE}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(chatBody('openai/gpt-4.1-mini', 'hi')),
      });
    const first = await call();
    expect(first.status).toBe(200);
    const started = Date.now();
    const second = await call();
    const text = await second.text();
    expect(second.status, text).toBe(402);
    // Told before the call runs, not after the broadcast timed out.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(text).toMatch(/nonce .*already used/i);
    expect(text).not.toMatch(/could not be reached/);
  }, 60_000);
});
