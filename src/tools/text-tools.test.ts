// tools/embed and tools/moderate on each database: embeddings and moderation, limits, provider failures and
// answers too large to cache.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeJsonUpstream } from '../../test/fakes/json-upstream.js';
import { startFakeOpenAiText } from '../../test/fakes/openai-text.js';
import { DB_TARGETS } from '../../test/support/app.js';
import { startToolKit, type ToolKit } from '../../test/support/tool-kit.js';

describe.each(DB_TARGETS)('tools/embed and tools/moderate on %s', (db) => {
  let fake: FakeJsonUpstream;
  let kit: ToolKit;
  beforeAll(async () => {
    fake = await startFakeOpenAiText('sk-together-fake');
    kit = await startToolKit(db, {
      TOGETHER_API_KEY: 'sk-together-fake',
      TOGETHER_BASE_URL: fake.url,
      EMBED_PROVIDER: 'together',
      EMBED_MODEL: 'intfloat/multilingual-e5-large-instruct',
      MODERATION_PROVIDER: 'together',
    });
  });
  afterAll(async () => {
    await kit.stop();
    await fake.close();
  });

  it('embeds texts in order, one vector each in one space; the same call again is a paid cache hit', async () => {
    const { body, res } = await kit.paid('embed', { texts: ['apa kabar', 'how are you', 'apa kabar'] });
    expect(res.headers.get('x-cache')).toBe('miss');
    expect(fake.requests.at(-1)?.body).toEqual({
      model: 'intfloat/multilingual-e5-large-instruct',
      input: ['apa kabar', 'how are you', 'apa kabar'],
    });
    expect(body).toMatchObject({
      model: 'intfloat/multilingual-e5-large-instruct',
      count: 3,
      dimensions: 1536,
    });
    const vectors = body.embeddings as number[][];
    expect(vectors).toHaveLength(3);
    expect(vectors[0]).toEqual(vectors[2]);
    expect(vectors[0]).not.toEqual(vectors[1]);
    const seen = fake.requests.length;
    expect(
      (await kit.paid('embed', { texts: ['apa kabar', 'how are you', 'apa kabar'] })).res.headers.get(
        'x-cache',
      ),
    ).toBe('hit');
    expect(fake.requests.length).toBe(seen);
    const one = await kit.paid('embed', { text: 'satu teks' });
    expect(one.body.count).toBe(1);
  });

  it('refuses more than 100 texts or 32,000 characters, naming the field; nothing charged', async () => {
    expect((await kit.refused('embed', { texts: Array(101).fill('x') }, 400)).error.param).toBe('texts');
    expect(
      (await kit.refused('embed', { texts: ['x'.repeat(16_001), 'y'.repeat(16_000)] }, 400)).error.param,
    ).toBe('texts');
    expect((await kit.refused('embed', {}, 400)).error.code).toBe('invalid_input');
  });

  it('moderates a text: flagged, the categories, a verdict and the length in characters', async () => {
    const { body } = await kit.paid('moderate', { text: 'I will kill you 🙂' });
    expect(body).toMatchObject({
      model: 'omni-moderation-latest-2024-09-26',
      flagged: true,
      categories: ['violence'],
      verdict: 'flagged: violence',
      chars: 17,
    });
    expect(fake.requests.at(-1)?.body).toEqual({
      model: 'omni-moderation-latest',
      input: 'I will kill you 🙂',
    });
    const { body: clean } = await kit.paid('moderate', { text: 'have a nice day' });
    expect(clean).toMatchObject({ flagged: false, categories: [], verdict: 'not flagged' });
  });

  it('refuses a text over 8,000 characters; 502 naming the provider when it fails; nothing charged', async () => {
    expect((await kit.refused('moderate', { text: 'x'.repeat(8001) }, 400)).error.param).toBe('text');
    fake.fail('malformed');
    try {
      expect((await kit.refused('moderate', { text: 'upstream broken' }, 502)).error.message).toContain(
        'together',
      );
      expect((await kit.refused('embed', { text: 'upstream broken' }, 502)).error.message).toContain(
        'together',
      );
    } finally {
      fake.fail(null);
    }
  });
});

describe.each(DB_TARGETS)('tools/embed with a provider that refuses the key, on %s', (db) => {
  let fake: FakeJsonUpstream;
  let kit: ToolKit;
  beforeAll(async () => {
    fake = await startFakeOpenAiText('the-right-key');
    kit = await startToolKit(db, {
      TOGETHER_API_KEY: 'a-wrong-key',
      TOGETHER_BASE_URL: fake.url,
      EMBED_PROVIDER: 'together',
    });
  });
  afterAll(async () => {
    await kit.stop();
    await fake.close();
  });

  it("answers 502 (the operator's key, not the caller's fault) and never echoes the key; nothing charged", async () => {
    const err = await kit.refused('embed', { text: 'hello' }, 502);
    expect(err.error.message).toContain('credentials');
    expect(JSON.stringify(err)).not.toContain('a-wrong-key');
  });
});

describe.each(DB_TARGETS)('tools/embed answers too large to keep, on %s', (db) => {
  let fake: FakeJsonUpstream;
  let kit: ToolKit;
  beforeAll(async () => {
    fake = await startFakeOpenAiText('k-large');
    kit = await startToolKit(db, {
      TOGETHER_API_KEY: 'k-large',
      TOGETHER_BASE_URL: fake.url,
      EMBED_PROVIDER: 'together',
    });
  });
  afterAll(async () => {
    await kit.stop();
    await fake.close();
  });

  it('are answered fresh each time (a paid call buys no lasting memory), and still charged', async () => {
    const body = { texts: Array.from({ length: 40 }, (_, i) => `teks nomor ${i}`) };
    const first = await kit.paid('embed', body);
    expect(JSON.stringify(first.body).length).toBeGreaterThan(256 * 1024);
    const second = await kit.paid('embed', body);
    expect(second.res.headers.get('x-cache')).toBe('miss');
    expect(fake.requests).toHaveLength(2);
  });
});
