// tools/search on each database: web search through the providers in order, cache hits, empty results and
// failures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeJsonUpstream } from '../../test/fakes/json-upstream.js';
import {
  startFakeBrave,
  startFakeExa,
  startFakeSearxng,
  startFakeTavily,
} from '../../test/fakes/search-providers.js';
import { DB_TARGETS } from '../../test/support/app.js';
import { startToolKit, type ToolKit } from '../../test/support/tool-kit.js';

describe.each(DB_TARGETS)('tools/search on %s', (db) => {
  let brave: FakeJsonUpstream;
  let tavily: FakeJsonUpstream;
  let exa: FakeJsonUpstream;
  let searxng: FakeJsonUpstream;
  let kit: ToolKit;
  beforeAll(async () => {
    [brave, tavily, exa, searxng] = await Promise.all([
      startFakeBrave('brave-key'),
      startFakeTavily('tvly-key'),
      startFakeExa('exa-key'),
      startFakeSearxng(),
    ]);
    kit = await startToolKit(db, {
      BRAVE_API_KEY: 'brave-key',
      BRAVE_BASE_URL: brave.url,
      TAVILY_API_KEY: 'tvly-wrong-key',
      TAVILY_BASE_URL: tavily.url,
      EXA_API_KEY: 'exa-key',
      EXA_BASE_URL: exa.url,
      SEARXNG_URL: searxng.url,
    });
  });
  afterAll(async () => {
    await kit.stop();
    await Promise.all([brave, tavily, exa, searxng].map((f) => f.close()));
  });

  it('answers from the first provider with plain-text snippets; the same call again is a paid cache hit', async () => {
    const { body, res } = await kit.paid('search', {
      q: 'kasir gateway',
      count: 3,
      country: 'ID',
      lang: 'id',
    });
    expect(res.headers.get('x-cache')).toBe('miss');
    expect(brave.requests.at(-1)?.query.get('country')).toBe('id');
    expect(brave.requests.at(-1)?.query.get('search_lang')).toBe('id');
    expect(body).toMatchObject({ query: 'kasir gateway', provider: 'brave', count: 3 });
    expect((body.results as unknown[])[0]).toEqual({
      title: 'kasir gateway — result 1',
      url: 'https://example.org/kasir%20gateway/1',
      snippet: 'About kasir gateway: page 1',
    });
    const seen = brave.requests.length;
    expect(
      (await kit.paid('search', { q: 'kasir gateway', count: 3, country: 'ID', lang: 'id' })).res.headers.get(
        'x-cache',
      ),
    ).toBe('hit');
    expect(brave.requests.length).toBe(seen);
  });

  it('falls through a rate-limited provider and one that refuses the key, to the next', async () => {
    brave.fail('rate-limited', { retryAfter: '0' });
    try {
      const { body } = await kit.paid('search', { q: 'fall through', count: 4 });
      expect(body).toMatchObject({ provider: 'exa', count: 4 });
      expect(tavily.requests.at(-1)?.headers.authorization).toBe('Bearer tvly-wrong-key');
      expect(exa.requests.at(-1)?.body).toMatchObject({ query: 'fall through', numResults: 4 });
      exa.fail('slow');
      const { body: last } = await kit.paid('search', { q: 'to the last', count: 20 });
      expect(last).toMatchObject({ provider: 'searxng', count: 20 });
      expect(searxng.requests.at(-1)?.query.get('format')).toBe('json');
    } finally {
      brave.fail(null);
      exa.fail(null);
    }
  });

  it('answers an empty result list as a paid answer', async () => {
    const { body } = await kit.paid('search', { q: 'nothing at all' });
    expect(body).toMatchObject({ provider: 'brave', count: 0, results: [] });
  });

  it('refuses bad input naming the field; 502 when every provider fails; nothing charged', async () => {
    expect((await kit.refused('search', { q: '' }, 400)).error.param).toBe('q');
    expect((await kit.refused('search', { q: 'x', count: 21 }, 400)).error.param).toBe('count');
    expect((await kit.refused('search', { q: 'x', country: 'IDN' }, 400)).error.param).toBe('country');
    for (const f of [brave, exa, searxng]) f.fail('down');
    try {
      expect((await kit.refused('search', { q: 'all down' }, 502)).error.message).toContain('searxng');
    } finally {
      for (const f of [brave, exa, searxng]) f.fail(null);
    }
  });
});
