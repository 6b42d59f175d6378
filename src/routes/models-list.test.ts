// GET /v1/models in the OpenAI list format (read with the official `openai` SDK against a running kasir), GET
// /v1/models/{id}, and the lifecycle of retired and deprecated models: shown, and refused before payment.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKasir, type TestKasir } from '../../test/support/app.js';
import { fundedAccount } from '../../test/support/ledger.js';
import type { PaidKasir } from '../../test/support/paid.js';
import { postPaid } from '../../test/support/paid-call.js';
import { isRetired } from '../catalog/lifecycle.js';
import { issueKey } from '../ledger/accounts.js';
import { type RunningServer, startServer } from '../server.js';

let kasir: TestKasir;
let server: RunningServer;

beforeAll(async () => {
  // Anthropic's own API (no base URL override): the catalog's lifecycle dates apply. Nothing is sent upstream here.
  kasir = await startKasir('sqlite', {
    OPENAI_API_KEY: 'sk-test',
    ANTHROPIC_API_KEY: 'sk-ant-test',
    RATE_LIMIT_PER_MINUTE: '0',
  });
  server = await startServer(kasir.app, '127.0.0.1', 0);
});

afterAll(async () => {
  await server?.stop(1000);
  await kasir?.close();
});

describe('the OpenAI list format', () => {
  it('openai SDK models.list() lists the models that can be sold here', async () => {
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused' });
    const ids: string[] = [];
    for await (const model of client.models.list()) {
      expect(model.object).toBe('model');
      expect(typeof model.created).toBe('number');
      ids.push(model.id);
    }
    expect(ids.length).toBeGreaterThan(10);
    expect(ids).toContain('openai/gpt-4.1-mini');
    expect(ids).not.toContain('anthropic/claude-opus-4-1');
    // fal is not configured: its models are not offered to OpenAI clients
    expect(ids).not.toContain('google/veo-3.1');
  });

  it('openai SDK models.retrieve() reads one model by its slashed id', async () => {
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused' });
    const model = await client.models.retrieve('openai/gpt-4.1-mini');
    expect(model).toMatchObject({ id: 'openai/gpt-4.1-mini', object: 'model', owned_by: 'openai' });
  });

  it('keeps the catalog’s own `models` list beside `data`', async () => {
    const body = (await (await kasir.app.request('/v1/models')).json()) as Record<string, unknown>;
    expect(body.object).toBe('list');
    expect((body.models as unknown[]).length).toBeGreaterThanOrEqual(100);
    expect(body.tools).toBeDefined();
  });
});

describe('model lifecycle', () => {
  it('/v1/models and /v1/models/{id} show retirement, deprecation and the successor', async () => {
    const opus = (await (await kasir.app.request('/v1/models/anthropic/claude-opus-4-1')).json()) as Record<
      string,
      unknown
    >;
    expect(opus).toMatchObject({
      id: 'anthropic/claude-opus-4-1',
      sunset: '2026-08-05',
      successor: 'anthropic/claude-opus-5-5',
      retired: true,
      available: false,
    });
    const sonnet = (await (await kasir.app.request('/v1/models/claude-sonnet-4-5')).json()) as Record<
      string,
      unknown
    >;
    expect(sonnet).toMatchObject({
      id: 'anthropic/claude-sonnet-4-5',
      sunset: '2026-11-30',
      successor: 'anthropic/claude-sonnet-5-5',
    });
    const unknown = await kasir.app.request('/v1/models/nobody/nothing');
    expect(unknown.status).toBe(404);
  });

  it('consult shows the dates too', async () => {
    const body = (await (await kasir.app.request('/v1/consult?intent=claude%20opus&limit=20')).json()) as {
      candidates: Array<Record<string, unknown>>;
    };
    const opus = body.candidates.find((c) => c.model === 'anthropic/claude-opus-4-1');
    expect(opus).toMatchObject({ retired: true, successor: 'anthropic/claude-opus-5-5', available: false });
  });

  it('a retired model answers 410 model_retired naming the successor, before any payment, and charges nothing', async () => {
    const accountId = await fundedAccount(kasir.deps.db, 1_000_000);
    const { key } = await issueKey(kasir.deps.db, accountId, { spendCapMicroUsd: null });
    const body = { model: 'claude-opus-4-1', messages: [{ role: 'user', content: 'hi' }] };
    const paid = await postPaid<{
      error: { code: string; message: string; details: Record<string, unknown> };
    }>(kasir as PaidKasir, key, '/v1/chat/completions', body);
    expect(paid.status).toBe(410);
    expect(paid.json.error.code).toBe('model_retired');
    expect(paid.json.error.message).toContain('anthropic/claude-opus-5-5');
    expect(paid.json.error.details).toMatchObject({
      successor: 'anthropic/claude-opus-5-5',
      sunset: '2026-08-05',
    });
    expect(paid.charged ?? '0').toBe('0');
    const unpaid = await kasir.app.request('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(unpaid.status).toBe(410);
  });

  it('a deprecated model is sold until its sunset day, refused from that day on', () => {
    const sonnet = kasir.deps.catalog.find('anthropic/claude-sonnet-4-5');
    if (!sonnet) throw new Error('no sonnet 4.5');
    expect(isRetired(sonnet, new Date('2026-11-29T23:59:59Z'))).toBe(false);
    expect(isRetired(sonnet, new Date('2026-11-30T00:00:00Z'))).toBe(true);
  });

  it('Imagen on the Gemini Developer API is listed unavailable with the reason', async () => {
    const k = await startKasir('sqlite', { GEMINI_API_KEY: 'g' });
    try {
      const row = (await (await k.app.request('/v1/models/google/imagen-4')).json()) as Record<
        string,
        unknown
      >;
      expect(row.available).toBe(false);
      expect(String(row.unavailableReason)).toMatch(/no longer serves Imagen/);
      expect(row.successor).toBe('google/gemini-2.5-flash-image');
    } finally {
      await k.close();
    }
  });
});
