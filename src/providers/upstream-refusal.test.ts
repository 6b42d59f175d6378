// Classifying an upstream's refusal: which statuses are the caller's input, which kasir's key, and the message passed on.
import { describe, expect, it } from 'vitest';
import { classifyStatus, redact, upstreamMessageOf } from './upstream-refusal.js';

const body = (message: string) => JSON.stringify({ error: { message, type: 'x' } });

describe('classifyStatus', () => {
  it('treats 400, 404, 413 and 422 as the caller’s input, with the upstream’s message', () => {
    for (const status of [400, 404, 413, 422]) {
      const error = classifyStatus({ provider: 'openai', status, body: body('bad messages') });
      expect(error).toMatchObject({
        kind: 'bad_request',
        options: { status, beforeFirstByte: true, upstreamMessage: 'bad messages' },
      });
      expect(error.retryable).toBe(false);
    }
  });

  it('says kasir’s credentials were rejected on 401/403 and never passes the upstream text on', () => {
    for (const status of [401, 403]) {
      const error = classifyStatus({
        provider: 'openai',
        status,
        body: body('Incorrect API key provided: sk-secret-1234'),
      });
      expect(error.kind).toBe('upstream');
      expect(error.message).toContain("rejected kasir's credentials");
      expect(error.message).not.toContain('sk-secret');
      expect(error.options.upstreamMessage).toBeUndefined();
    }
  });

  it('lets an adapter recognise a key failure reported with another status', () => {
    const error = classifyStatus({
      provider: 'google',
      status: 400,
      body: body('API key not valid'),
      isCredentialFailure: (status, parsed) => status === 400 && JSON.stringify(parsed).includes('API key'),
    });
    expect(error.kind).toBe('upstream');
    expect(error.message).toContain('credentials');
  });

  it('makes 408, 429 and 5xx retryable upstream failures', () => {
    for (const status of [408, 429, 500, 502, 503, 529]) {
      const error = classifyStatus({ provider: 'anthropic', status, body: body('busy') });
      expect(error).toMatchObject({ kind: 'upstream', options: { status, beforeFirstByte: true } });
      expect(error.retryable).toBe(true);
    }
  });

  it('scrubs our key from any message it passes on', () => {
    const error = classifyStatus({
      provider: 'x',
      status: 400,
      body: body('key sk-secret-1234 is odd'),
      secret: 'sk-secret-1234',
    });
    expect(error.message).not.toContain('sk-secret-1234');
    expect(error.options.upstreamMessage).toBe('key [redacted] is odd');
  });
});

describe('upstreamMessageOf', () => {
  it('reads the usual error shapes and skips HTML pages', () => {
    expect(upstreamMessageOf({ error: { message: 'a' } }, '')).toBe('a');
    expect(upstreamMessageOf({ error: 'b' }, '')).toBe('b');
    expect(upstreamMessageOf({ detail: 'c' }, '')).toBe('c');
    expect(upstreamMessageOf(undefined, 'plain text\nfailure')).toBe('plain text failure');
    expect(upstreamMessageOf(undefined, '<html><body>502</body></html>')).toBe('');
  });

  it("names each field of a validation error's list (fal's 422 `detail: [{ loc, msg, type }]`)", () => {
    const detail = [
      { loc: ['body', 'prompt'], msg: 'field required', type: 'value_error.missing' },
      { loc: ['body', 'image_size'], msg: 'unexpected value', type: 'value_error' },
    ];
    expect(upstreamMessageOf({ detail }, '')).toBe(
      'body.prompt: field required; body.image_size: unexpected value',
    );
  });
});

describe('classifyStatus', () => {
  it("keeps a 429's Retry-After, in seconds or as a date, for the retry to honour", () => {
    const a = classifyStatus({ provider: 'fal', status: 429, body: '{}', retryAfter: '3' });
    expect(a.options.retryAfterMs).toBe(3000);
    const at = new Date(Date.now() + 10_000).toUTCString();
    const b = classifyStatus({ provider: 'fal', status: 503, body: '{}', retryAfter: at });
    expect(b.options.retryAfterMs).toBeGreaterThan(8000);
    expect(b.options.retryAfterMs).toBeLessThanOrEqual(10_000);
  });
});

describe('redact', () => {
  it('leaves texts alone when there is no key', () => {
    expect(redact('abc', undefined)).toBe('abc');
    expect(redact('abc', '')).toBe('abc');
  });
});
