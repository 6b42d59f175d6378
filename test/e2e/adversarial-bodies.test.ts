// Bodies built to make validation and quoting expensive are answered within a bound (the cost is linear in their
// size), and the shapes that used to fail inside kasir (deep nesting, special-token text) are refused or served.
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMITS } from '../../src/http/body-limits.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';

const MODEL = 'openai/gpt-4.1-mini';
/** Each body is about 1 MB; before counting became linear the first of these took minutes. */
const MB = 1024 * 1024;
/** A generous bound: the slowest shape (random base64) takes under a second on a laptop core. */
const ANSWER_WITHIN_MS = 8000;

const chat = (content: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: MODEL, messages: [{ role: 'user', content }], ...extra });

const ADVERSARIAL: Array<[string, () => string, number]> = [
  ['one character repeated', () => chat('x'.repeat(MB)), 402],
  ['two characters repeated', () => chat('ab'.repeat(MB / 2)), 402],
  ['random base64', () => chat(randomBytes((MB * 3) / 4).toString('base64')), 402],
  ['a run of CJK', () => chat('中文字'.repeat(MB / 9)), 402],
  ['a run of emoji', () => chat('😀'.repeat(MB / 4)), 402],
  ['a run of spaces and newlines', () => chat(' \n'.repeat(MB / 2)), 402],
  ['special-token text', () => chat('<|endoftext|>'.repeat(MB / 13)), 402],
  [
    '10,000 tiny messages',
    () =>
      JSON.stringify({
        model: MODEL,
        messages: Array.from({ length: 10_000 }, (_, i) => ({
          role: i % 2 ? 'assistant' : 'user',
          content: 'hi',
        })),
      }),
    402,
  ],
  [
    'JSON nested 100,000 levels deep',
    () =>
      chat('hi', { tools: [{ type: 'function', function: { name: 'f', parameters: '__DEEP__' } }] }).replace(
        '"__DEEP__"',
        `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
      ),
    400,
  ],
  ['a body one byte over the limit', () => chat('y'.repeat(BODY_LIMITS.chat)), 413],
];

describe('adversarial bodies on POST /v1/chat/completions', () => {
  let kasir: PaidKasir;
  let server: RunningServer;
  beforeAll(async () => {
    kasir = await startPaidKasir('sqlite');
    server = await startServer(kasir.app, '127.0.0.1', 0);
  });
  afterAll(async () => {
    await server.stop(1000);
    await kasir.stop();
  });

  it.each(ADVERSARIAL)('answers %s within the bound', async (_name, build, status) => {
    const body = build();
    const started = performance.now();
    const res = await request(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
      headersTimeout: ANSWER_WITHIN_MS,
    });
    const text = await res.body.text();
    expect(res.statusCode, text.slice(0, 200)).toBe(status);
    expect(performance.now() - started).toBeLessThan(ANSWER_WITHIN_MS);
    if (status === 402) expect(JSON.parse(text).error.details.quote.costMicroUsd).toBeGreaterThan(0);
  });

  it('keeps answering other requests while a long body is being counted', async () => {
    const long = request(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      body: chat(randomBytes(MB).toString('base64')),
      headers: { 'content-type': 'application/json' },
    });
    // Wait until the long body has arrived and counting has begun, then ask for something small.
    await new Promise((r) => setTimeout(r, 150));
    const started = performance.now();
    const small = await request(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      body: chat('Hello'),
      headers: { 'content-type': 'application/json' },
    });
    const smallMs = performance.now() - started;
    await small.body.text();
    const longRes = await long;
    await longRes.body.text();
    const longDone = performance.now() - started;
    expect(small.statusCode).toBe(402);
    expect(longRes.statusCode).toBe(402);
    // The small request did not wait for the long count to finish.
    expect(smallMs).toBeLessThan(longDone / 2);
  });
});
