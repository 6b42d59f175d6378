// The MPP rail's card method end to end: the real mppx client pays kasir with a shared payment token, kasir charges
// it through Stripe's official client against a local server speaking Stripe's API: the card is authorized before
// the call and captured only after it succeeded; a replay is refused, a declined card charges nothing, and a call
// that fails releases the authorization (nothing captured, nothing to refund).
import { Challenge } from 'mppx';
import { Mppx, stripe } from 'mppx/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DECLINED_TOKEN, type FakeStripe, startFakeStripe } from '../fakes/stripe.js';
import { DB_TARGETS, postJson } from '../support/app.js';
import { chatBody, type PaidKasir, startPaidKasir } from '../support/paid.js';

const MODEL = 'openai/gpt-4.1-mini';
const URL_BASE = 'http://kasir.test';

describe.each(DB_TARGETS)('MPP card charge on %s', (db) => {
  let fake: FakeStripe;
  let kasir: PaidKasir;

  beforeAll(async () => {
    fake = await startFakeStripe();
    kasir = await startPaidKasir(db, {
      MPP_STRIPE_SECRET_KEY: fake.secretKey,
      STRIPE_BASE_URL: fake.url,
      MPP_CARD_MIN_MICRO_USD: '10000',
      PUBLIC_BASE_URL: URL_BASE,
    });
  });
  afterAll(async () => {
    await kasir?.stop();
    await fake?.close();
  });

  /** A chat body whose wallet quote is a whole number of cents (cards charge cents). */
  function centsBody(text: string): { body: Record<string, unknown>; quote: number } {
    for (let pad = 0; pad < 40; pad++) {
      for (let max = 1000; max <= 32_768; max++) {
        const body = chatBody(MODEL, `${text}${' x'.repeat(pad)}`, { max_tokens: max });
        const quote = kasir.quote(body);
        if (quote % 10_000 === 0) return { body, quote };
      }
    }
    throw new Error('no whole-cent quote found');
  }

  const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    postJson(kasir, `${URL_BASE}/v1/chat/completions`, body, headers);

  function client(token: string) {
    const sent: Array<string | null> = [];
    const mppx = Mppx.create({
      polyfill: false,
      methods: [stripe({ createToken: async () => token, paymentMethod: 'pm_card_visa' })],
      fetch: async (input: string | URL | Request, init?: RequestInit) => {
        sent.push(new Headers(init?.headers).get('authorization'));
        return kasir.app.request(String(input), init);
      },
    });
    return {
      sent,
      call: (body: Record<string, unknown>) =>
        mppx.fetch(`${URL_BASE}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
    };
  }

  it('offers a card challenge only for whole-cent quotes at or above the minimum', async () => {
    const { body, quote } = centsBody('cents');
    const offered = Challenge.fromHeadersList((await post(body)).headers).find((c) => c.method === 'stripe');
    expect(offered?.request).toMatchObject({ amount: String(quote / 10_000), currency: 'usd' });
    const odd = chatBody(MODEL, 'odd', { max_tokens: 333 });
    expect(kasir.quote(odd) % 10_000).not.toBe(0);
    // A card cannot pay it and no other MPP method is on: no Payment challenge, and the other rails still listed.
    const res = await post(odd);
    expect(res.status).toBe(402);
    // Only the prepaid key's Bearer challenge is left (every 402 names how to pay).
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="kasir"/);
    expect(res.headers.get('www-authenticate')).not.toContain('Payment');
    const rails = ((await res.json()) as { error: { details: { rails: Array<{ rail: string }> } } }).error
      .details.rails;
    expect(rails.map((r) => r.rail)).toEqual(['prepaid']);
  });

  it('charges the card exactly the quote in cents and answers with the receipt', async () => {
    const { body, quote } = centsBody('paid by card');
    const before = fake.intents.length;
    const res = await client('spt_test_visa').call(body);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { costMicroUsd: number }).costMicroUsd).toBe(quote);
    const intent = fake.intents.at(-1);
    expect(fake.intents.length).toBe(before + 1);
    expect(intent).toMatchObject({
      amount: quote / 10_000,
      currency: 'usd',
      capture_method: 'manual',
      status: 'succeeded',
      amount_received: quote / 10_000,
    });
    expect(res.headers.get('payment-receipt')).toBeTruthy();
  });

  it('answers a card credential sent again with its stored answer, refuses it for another call, and charges once', async () => {
    const { body } = centsBody('card replay');
    const { call, sent } = client('spt_test_once');
    const first = await call(body);
    expect(first.status).toBe(200);
    const answer = await first.text();
    const credential = sent.find((s) => s?.startsWith('Payment ')) as string;
    const charged = fake.intents.length;
    // The same credential and body: the answer it paid for, marked as a replay, and no second charge.
    const same = await post(body, { authorization: credential });
    expect(same.status).toBe(200);
    expect(same.headers.get('idempotent-replayed')).toBe('true');
    expect(await same.text()).toBe(answer);
    expect(fake.intents.length).toBe(charged);
    // The same credential for another call: its challenge was issued for the first request, so it is refused with a
    // fresh challenge.
    const again = await post(centsBody('card replay, another call').body, { authorization: credential });
    expect(again.status).toBe(402);
    expect(await again.json()).toMatchObject({
      type: 'https://paymentauth.org/problems/invalid-challenge',
    });
    expect(again.headers.get('www-authenticate')).toContain('Payment ');
    expect(fake.intents.length).toBe(charged);
  });

  it('charges nothing for a declined card', async () => {
    const { body } = centsBody('declined');
    const res = await client(DECLINED_TOKEN).call(body);
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ type: 'https://paymentauth.org/problems/verification-failed' });
  });

  it('captures nothing when the call fails: the card authorization is released', async () => {
    const { body } = centsBody('refund me');
    const refunds = fake.refunds.length;
    kasir.openai.setScript({ failure: { kind: 'status', status: 500 } });
    const res = await client('spt_test_refund').call(body);
    kasir.openai.setScript({});
    expect(res.status).toBe(502);
    expect(fake.intents.at(-1)).toMatchObject({ status: 'canceled', amount_received: 0 });
    expect(fake.refunds.length).toBe(refunds);
  });
});
