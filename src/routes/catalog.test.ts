// The catalog routes: GET /v1/models, GET /v1/schema, GET and POST /v1/price, GET /v1/consult, and their
// place in /openapi.json and /skill.md.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKasir, type TestKasir } from '../../test/support/app.js';

let kasir: TestKasir;

beforeAll(async () => {
  // A configured provider makes its models available; the others are listed but not available.
  kasir = await startKasir('sqlite', { OPENAI_API_KEY: 'sk-test', PROVIDER_MARGIN_PERCENT: 'fal=20' });
});

afterAll(async () => {
  await kasir?.close();
});

async function get(path: string) {
  const res = await kasir.app.request(path);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function post(path: string, body: unknown) {
  const res = await kasir.app.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

interface ModelRow {
  id: string;
  category: string;
  route: string;
  available: boolean;
  provider: string;
  price: { unit: string; rateMicroUsd: number; per: number; minMicroUsd: number; maxMicroUsd: number };
  fileRefs: string[];
  priceUnconfirmed?: boolean;
}

describe('GET /v1/models', () => {
  it('lists every model with its route, availability, price summary and file inputs, and the tools apart', async () => {
    const { status, body } = await get('/v1/models');
    expect(status).toBe(200);
    const models = body.models as ModelRow[];
    expect(models.length).toBeGreaterThanOrEqual(100);
    expect(new Set(models.map((m) => m.category)).size).toBe(8);
    const veo = models.find((m) => m.id === 'google/veo-3.1');
    expect(veo).toMatchObject({
      category: 'text-to-video',
      route: '/v1/video/generations',
      available: false,
      provider: 'fal',
      output: 'video',
      fileRefs: [],
      // fal margin 20%: $0.60/s → $0.72/s; 4 s × $0.20 × 1.2 = $0.96 … 8 s × $0.60 × 1.2 = $5.76
      price: { unit: 'second', per: 1, rateMicroUsd: 720_000, minMicroUsd: 960_000, maxMicroUsd: 5_760_000 },
    });
    // availability follows the server's configuration: OpenAI is configured here, fal is not
    expect(models.find((m) => m.id === 'openai/gpt-4o')?.available).toBe(true);
    expect(models.find((m) => m.id === 'google/veo-3.1-i2v')?.fileRefs).toEqual(['image_url']);
    expect(models.find((m) => m.id === 'openai/gpt-4o')?.fileRefs).toEqual([
      'messages[].content[].image_url.url',
    ]);
    expect(models.find((m) => m.id === 'runwayml/gen4.5')?.priceUnconfirmed).toBe(true);
    const tools = body.tools as Array<Record<string, unknown>>;
    expect(tools).toHaveLength(30);
    expect(tools.find((t) => t.id === 'tools/embed')).toMatchObject({
      category: 'tool',
      method: 'POST',
      path: '/v1/tools/embed',
      available: expect.any(Boolean),
      price: { unit: 'call', rateMicroUsd: 500, prepaidMicroUsd: 1000 },
    });
    expect(tools.find((t) => t.id === 'tools/face-compare')?.fileRefs).toEqual([
      'a.image_url',
      'a.image_base64',
      'b.image_url',
      'b.image_base64',
    ]);
  });

  it('speaks of kasir’s own prices in its notes, never of a document the caller has not seen', async () => {
    const { body } = await get('/v1/models');
    const tools = body.tools as Array<{ id: string; description?: string; walletPriceNote?: string }>;
    expect(tools.filter((t) => t.walletPriceNote).length).toBeGreaterThan(0);
    expect(JSON.stringify(body)).not.toMatch(/\bspec\b/i);
  });
});

describe('GET /v1/schema', () => {
  it('answers the required inputs and the schema of each, with fileRef flags', async () => {
    const { status, body } = await get('/v1/schema?model=kwaivgi/kling-v2.5-turbo-pro-i2v');
    expect(status).toBe(200);
    expect(body.model).toBe('kwaivgi/kling-v2.5-turbo-pro-i2v');
    expect(body.required).toEqual(['image_url', 'prompt']);
    expect(body.props).toMatchObject({
      image_url: { type: 'string', fileRef: true },
      duration: { type: 'string', enum: ['5', '10'], default: '5' },
    });
  });

  it('resolves aliases and shows the per-model chat limits', async () => {
    const { body } = await get('/v1/schema?model=gpt-4o');
    expect(body.model).toBe('openai/gpt-4o');
    expect(body.required).toEqual(['messages']);
    expect((body.props as Record<string, { maximum?: number }>).max_tokens?.maximum).toBe(16384);
  });

  it('answers 400 without a model and 404 with three suggestions for an unknown one', async () => {
    expect((await get('/v1/schema')).status).toBe(400);
    const { status, body } = await get('/v1/schema?model=openai/gpt-4.2');
    expect(status).toBe(404);
    const error = body.error as { code: string; details: { suggestions: string[] } };
    expect(error.code).toBe('model_not_found');
    expect(error.details.suggestions).toHaveLength(3);
  });
});

describe('GET and POST /v1/price', () => {
  it('quotes the exact input given as query parameters', async () => {
    // 6 s × $0.40 (1080p, audio on) × 1.2 (fal margin) = $2.88
    const { status, body } = await get(
      '/v1/price?model=google/veo-3.1&duration=6s&resolution=1080p&generate_audio=true',
    );
    expect(status).toBe(200);
    expect(body).toEqual({ model: 'google/veo-3.1', costMicroUsd: 2_880_000, unit: 'second', units: 6 });
  });

  it('coerces query strings to the schema types', async () => {
    // 2 images × 3 MP (2048 × 1536) × $0.025 × 1.2 = $0.18
    const size = encodeURIComponent(JSON.stringify({ width: 2048, height: 1536 }));
    const { body } = await get(`/v1/price?model=black-forest-labs/flux-dev&num_images=2&image_size=${size}`);
    expect(body).toMatchObject({ costMicroUsd: 180_000, unit: 'megapixel', units: 6 });
  });

  it('quotes the default request from the model alone (the prompt is not needed)', async () => {
    // Kling 2.5 Turbo default duration 5 s: $0.35 × 1.2 = $0.42
    expect((await get('/v1/price?model=kwaivgi/kling-v2.5-turbo-pro')).body).toEqual({
      model: 'kwaivgi/kling-v2.5-turbo-pro',
      costMicroUsd: 420_000,
      unit: 'video',
      units: 1,
    });
    // tools asked without a key quote both rails, labelled
    expect((await get('/v1/price?model=tools/embed')).body).toEqual({
      model: 'tools/embed',
      costMicroUsd: 500,
      unit: 'call',
      units: 1,
      rail: 'wallet',
      prepaidCostMicroUsd: 1000,
      walletCostMicroUsd: 500,
    });
  });

  it('quotes a caller with a prepaid key the prepaid price it will be charged, on GET and POST', async () => {
    const auth = { authorization: 'Bearer sk_test_any' };
    const got = await kasir.app.request('/v1/price?model=tools/embed', { headers: auth });
    expect(await got.json()).toEqual({
      model: 'tools/embed',
      costMicroUsd: 1000,
      unit: 'call',
      units: 1,
      rail: 'prepaid',
    });
    const posted = await kasir.app.request('/v1/price', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tools/embed', text: 'halo' }),
    });
    expect(await posted.json()).toMatchObject({ costMicroUsd: 1000, rail: 'prepaid' });
    // a model costs the same on every rail: the key changes nothing
    const model = await kasir.app.request('/v1/price?model=kwaivgi/kling-v2.5-turbo-pro', { headers: auth });
    expect(await model.json()).toEqual({
      model: 'kwaivgi/kling-v2.5-turbo-pro',
      costMicroUsd: 420_000,
      unit: 'video',
      units: 1,
    });
  });

  it('takes object and array inputs as JSON in the query', async () => {
    const messages = encodeURIComponent(JSON.stringify([{ role: 'user', content: 'Hello' }]));
    // same as the POST below: 8 × $2.50/1M + 100 × $10/1M = 1,020
    expect(
      (await get(`/v1/price?model=openai/gpt-4o&max_tokens=100&messages=${messages}`)).body,
    ).toMatchObject({
      costMicroUsd: 1_020,
      units: 108,
    });
    const bad = await get('/v1/price?model=openai/gpt-4o&messages=%5Bnot-json');
    expect(bad.status).toBe(400);
    expect((bad.body.error as { details: Array<{ field: string }> }).details[0]?.field).toBe('messages');
  });

  it('quotes a JSON body on POST, exactly as the paid route would bill it', async () => {
    // "Halo dunia" = 10 characters × $0.015/1k = 150 micro-USD (openai: no margin)
    const { status, body } = await post('/v1/price', {
      model: 'openai/tts-1',
      input: 'Halo dunia',
      voice: 'alloy',
    });
    expect(status).toBe(200);
    expect(body).toEqual({ model: 'openai/tts-1', costMicroUsd: 150, unit: 'character', units: 10 });
    // chat: 8 input tokens × $2.50/1M + 100 × $10/1M = 20 + 1000 = 1,020
    const chat = await post('/v1/price', {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Hello' }],
      max_tokens: 100,
    });
    expect(chat.body).toEqual({ model: 'openai/gpt-4o', costMicroUsd: 1_020, unit: 'token', units: 108 });
  });

  it('validates given inputs like the paid route: 400 with one error per field', async () => {
    const { status, body } = await get('/v1/price?model=google/veo-3.1&duration=5s&resolution=8k');
    expect(status).toBe(400);
    const error = body.error as { code: string; details: Array<{ field: string; message: string }> };
    expect(error.code).toBe('invalid_input');
    expect(error.details).toEqual([
      { field: 'duration', message: 'must be one of: "4s", "6s", "8s"' },
      { field: 'resolution', message: 'must be one of: "720p", "1080p", "4k"' },
    ]);
    const vision = await post('/v1/price', {
      model: 'deepseek/deepseek-chat',
      messages: [
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://e.com/a.png' } }] },
      ],
    });
    expect(vision.status).toBe(400);
    expect((vision.body.error as { details: unknown }).details).toEqual([
      {
        field: 'messages[0].content[0]',
        message: 'this model does not accept images; send text only or choose a model with vision',
      },
    ]);
  });

  it('refuses malformed JSON, a missing model and an unknown model', async () => {
    const bad = await post('/v1/price', '{"model": ');
    expect(bad.status).toBe(400);
    expect((bad.body.error as { code: string }).code).toBe('invalid_json');
    expect((await post('/v1/price', { input: 'x' })).status).toBe(400);
    const unknown = await get('/v1/price?model=flux-devv');
    expect(unknown.status).toBe(404);
    expect((unknown.body.error as { details: { suggestions: string[] } }).details.suggestions).toContain(
      'black-forest-labs/flux-dev',
    );
  });

  it('refuses an input that would cost more than $60', async () => {
    const { status, body } = await post('/v1/price', {
      model: 'meta-llama/llama-4-maverick',
      messages: [{ role: 'user', content: 'Hi' }],
      max_tokens: 100_000_000,
    });
    expect(status).toBe(400);
    expect((body.error as { details: Array<{ field: string }> }).details[0]?.field).toBe('max_tokens');
  });
});

describe('GET /v1/consult', () => {
  it('ranks endpoints for a plain-words intent, five by default', async () => {
    const { status, body } = await get(
      `/v1/consult?intent=${encodeURIComponent('turn a photo into a short video')}`,
    );
    expect(status).toBe(200);
    const candidates = body.candidates as Array<Record<string, unknown>>;
    expect(body.count).toBe(5);
    expect(candidates).toHaveLength(5);
    expect(candidates[0]).toMatchObject({
      method: 'POST',
      path: '/v1/video/generations',
      kind: 'model',
      category: 'image-to-video',
    });
    expect(candidates[0]?.example).toHaveProperty('model', candidates[0]?.model);
    expect(candidates[0]?.why).toMatch(/^matched /);
    expect(candidates[0]?.price).toHaveProperty('maxMicroUsd');
  });

  it('answers free lookups and takes a limit from 1 to 20', async () => {
    const { body } = await get('/v1/consult?intent=jadwal%20sholat%20Bandung&limit=1');
    expect(body.candidates).toEqual([
      expect.objectContaining({
        method: 'GET',
        path: '/v1/tools/prayer-times',
        tool: 'tools/prayer-times',
        free: true,
      }),
    ]);
    expect(((await get('/v1/consult?intent=image&limit=20')).body.candidates as unknown[]).length).toBe(20);
    for (const limit of ['0', '21', 'x', '2.5']) {
      const res = await get(`/v1/consult?intent=image&limit=${limit}`);
      expect(res.status, limit).toBe(400);
      expect((res.body.error as { details: Array<{ field: string }> }).details[0]?.field).toBe('limit');
    }
    expect((await get('/v1/consult')).status).toBe(400);
  });
});

describe('discovery', () => {
  it('documents the catalog routes in /openapi.json and the catalog in /skill.md', async () => {
    const doc = (await get('/openapi.json')).body as {
      paths: Record<string, Record<string, { tags?: string[] }>>;
    };
    for (const path of ['/v1/models', '/v1/schema', '/v1/price', '/v1/consult']) {
      expect(doc.paths[path], path).toBeDefined();
      expect(Object.values(doc.paths[path] ?? {})[0]?.tags).toEqual(['catalog']);
    }
    expect(Object.keys(doc.paths['/v1/price'] ?? {}).sort()).toEqual(['get', 'post']);
    const skill = await (await kasir.app.request('/skill.md')).text();
    expect(skill).toContain('The catalog holds 130 models');
    expect(skill).toContain('chat (37)');
  });
});
