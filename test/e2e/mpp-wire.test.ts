// The Payment scheme's wire, checked by our own reading of the spec rather than by mppx: the header grammar (several
// challenges on one line, quoted strings, parameters in any order), the challenge id's HMAC, the request's JCS
// encoding and the problem documents. An mppx upgrade that changed any of it would fail here. Also: a secret
// rotation does not break a challenge issued before it.
import { createHmac } from 'node:crypto';
import { Mppx, stripe } from 'mppx/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateSecret } from '../../src/rails/mpp/secrets.js';
import { type FakeStripe, startFakeStripe } from '../fakes/stripe.js';
import { postJson } from '../support/app.js';
import { chatBody, type PaidKasir, startPaidKasir } from '../support/paid.js';

const URL_BASE = 'http://kasir.test';
const MODEL = 'openai/gpt-4.1-mini';

/** The Payment-scheme challenges of a WWW-Authenticate header (the others, such as the prepaid key's Bearer, left out). */
const paymentChallenges = (header: string) => parseChallenges(header).filter((c) => c.scheme === 'Payment');

/** RFC 9110 challenges: `scheme auth-param *( "," auth-param )`, challenges separated by commas as well. */
function parseChallenges(header: string): Array<{ scheme: string; params: Record<string, string> }> {
  const out: Array<{ scheme: string; params: Record<string, string> }> = [];
  const token = /[!#$%&'*+.^_`|~0-9A-Za-z-]+/y;
  let i = 0;
  const skip = () => {
    while (i < header.length && /[\s,]/.test(header[i] as string)) i++;
  };
  while (i < header.length) {
    skip();
    token.lastIndex = i;
    const name = token.exec(header)?.[0];
    if (!name) break;
    i += name.length;
    while (header[i] === ' ') i++;
    if (header[i] !== '=') {
      out.push({ scheme: name, params: {} }); // a scheme; its params follow
      continue;
    }
    i++;
    while (header[i] === ' ') i++;
    let value = '';
    if (header[i] === '"') {
      i++;
      while (i < header.length && header[i] !== '"') {
        if (header[i] === '\\') i++;
        value += header[i];
        i++;
      }
      i++;
    } else {
      token.lastIndex = i;
      value = token.exec(header)?.[0] ?? '';
      i += value.length;
    }
    const current = out.at(-1);
    if (!current) throw new Error(`auth-param before any scheme in ${header}`);
    current.params[name] = value;
  }
  return out;
}

const b64urlJson = (s: string) =>
  JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as Record<string, unknown>;

/** RFC 8785 (JCS) for the plain JSON the request carries: keys sorted, no whitespace. */
function jcs(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(jcs).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${jcs(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

describe('the Payment scheme on the wire', () => {
  let fake: FakeStripe;
  let kasir: PaidKasir;
  beforeAll(async () => {
    fake = await startFakeStripe();
    kasir = await startPaidKasir('sqlite', {
      PUBLIC_BASE_URL: URL_BASE,
      // Challenges are issued without reaching the chain; nothing here pays with Tempo.
      MPP_TEMPO_RECIPIENT: '0x1111111111111111111111111111111111111111',
      MPP_TEMPO_RPC_URL: 'http://127.0.0.1:9',
      MPP_TEMPO_CHAIN_ID: '1337',
      MPP_STRIPE_SECRET_KEY: fake.secretKey,
      STRIPE_BASE_URL: fake.url,
      MPP_CARD_MIN_MICRO_USD: '1',
    });
  });
  afterAll(async () => {
    await kasir?.stop();
    await fake?.close();
  });

  /** A body whose quote is whole cents, so both methods are offered. */
  function centsBody(): Record<string, unknown> {
    for (let max = 1000; max <= 32_768; max++) {
      for (const text of ['wire', 'wire x', 'wire x x']) {
        const body = chatBody(MODEL, text, { max_tokens: max });
        if (kasir.quote(body) % 10_000 === 0) return body;
      }
    }
    throw new Error('no whole-cent quote');
  }

  const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    postJson(kasir, `${URL_BASE}/v1/chat/completions`, body, headers);

  const secrets = () =>
    kasir.deps.db.kysely
      .selectFrom('mpp_secrets')
      .select('secret')
      .where('retired_at', 'is', null)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();

  it('lists one challenge per method on one header line, each with the required parameters and an HMAC id', async () => {
    const body = centsBody();
    const res = await post(body);
    expect(res.status).toBe(402);
    // The prepaid key's Bearer challenge comes first (how to pay without a wallet), then one Payment per method.
    expect(parseChallenges(res.headers.get('www-authenticate') ?? '').map((c) => c.scheme)).toEqual([
      'Bearer',
      'Payment',
      'Payment',
    ]);
    const challenges = paymentChallenges(res.headers.get('www-authenticate') ?? '');
    expect(challenges.map((c) => [c.scheme, c.params.method, c.params.intent])).toEqual([
      ['Payment', 'tempo', 'charge'],
      ['Payment', 'stripe', 'charge'],
    ]);
    const [secret] = await secrets();
    for (const { params } of challenges) {
      for (const required of ['id', 'realm', 'method', 'intent', 'request'])
        expect(params[required]).toBeTruthy();
      expect(params.realm).toBe('kasir.test');
      // request = base64url(JCS(JSON)), no padding
      const raw = Buffer.from(params.request as string, 'base64url').toString('utf8');
      expect(raw).toBe(jcs(JSON.parse(raw)));
      expect(params.request).not.toContain('=');
      // opaque carries the route scope and the body digest
      expect(b64urlJson(params.opaque as string)).toMatchObject({
        _mppx_scope: 'POST /v1/chat/completions',
        digest: expect.stringMatching(/^sha-256=:/),
      });
      expect(Date.parse(params.expires as string)).toBeGreaterThan(Date.now());
      const slots = ['realm', 'method', 'intent', 'request', 'expires', 'digest', 'opaque'].map(
        (k) => params[k] ?? '',
      );
      const id = createHmac('sha256', secret?.secret as string)
        .update(slots.join('|'))
        .digest('base64url');
      expect(params.id).toBe(id);
    }
    const amounts = challenges.map((c) => b64urlJson(c.params.request as string).amount);
    const quote = kasir.quote(body);
    expect(amounts).toEqual([String(quote), String(quote / 10_000)]);
  });

  it('answers payment errors as RFC 9457 problem documents with the payment problem types', async () => {
    const res = await post(centsBody(), { authorization: 'Payment e30' });
    expect(res.status).toBe(402);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const problem = (await res.json()) as Record<string, unknown>;
    expect(problem).toMatchObject({
      type: 'https://paymentauth.org/problems/malformed-credential',
      title: 'Malformed Credential',
      status: 402,
      detail: expect.any(String),
    });
    // and a fresh challenge to pay with
    expect(paymentChallenges(res.headers.get('www-authenticate') ?? '').length).toBe(2);
  });

  it('reads challenges whatever the order of their parameters, and credentials of either shape', async () => {
    const res = await post(centsBody());
    const [first] = paymentChallenges(res.headers.get('www-authenticate') ?? '');
    const params = first?.params as Record<string, string>;
    // The same challenge with its parameters reversed and spaced out pays the call as well (the card challenge here).
    const card = paymentChallenges(res.headers.get('www-authenticate') ?? '')[1]?.params as Record<
      string,
      string
    >;
    const reordered = `Payment ${Object.entries(card)
      .reverse()
      .map(([k, v]) => `${k} = "${v}"`)
      .join(' ,  ')}`;
    const mppx = Mppx.create({
      polyfill: false,
      methods: [stripe({ createToken: async () => 'spt_test_wire', paymentMethod: 'pm_card_visa' })],
    });
    const credential = await mppx.createCredential(
      new Response(null, { status: 402, headers: { 'www-authenticate': reordered } }),
    );
    const paid = await post(centsBody(), { authorization: credential });
    expect(paid.status).toBe(200);
    expect(params.method).toBe('tempo');
  });

  it('keeps paying challenges issued before a secret rotation, and signs new ones with the new secret', async () => {
    const body = centsBody();
    const before = await post(body);
    const mppx = Mppx.create({
      polyfill: false,
      methods: [stripe({ createToken: async () => 'spt_test_rotation', paymentMethod: 'pm_card_visa' })],
    });
    const credential = await mppx.createCredential(before);
    const [old] = await secrets();
    await rotateSecret(kasir.deps.db);
    await kasir.deps.mpp?.reload();
    const [current] = await secrets();
    expect(current?.secret).not.toBe(old?.secret);

    expect((await post(body, { authorization: credential })).status).toBe(200);
    const after = paymentChallenges((await post(body)).headers.get('www-authenticate') ?? '')[0]
      ?.params as Record<string, string>;
    const slots = ['realm', 'method', 'intent', 'request', 'expires', 'digest', 'opaque'].map(
      (k) => after[k] ?? '',
    );
    expect(after.id).toBe(
      createHmac('sha256', current?.secret as string)
        .update(slots.join('|'))
        .digest('base64url'),
    );
  });
});
