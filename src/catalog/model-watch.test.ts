// What configured providers actually serve: their model lists read in each provider's real format (fakes), catalog
// models a provider does not list shown unavailable and refused before payment, and `kasir doctor`'s report.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeModelList, startFakeModelList } from '../../test/fakes/model-lists.js';
import { type PaidKasir, startPaidKasir } from '../../test/support/paid.js';
import { postPaid } from '../../test/support/paid-call.js';
import { loadConfig } from '../config/load.js';
import { listModels } from '../providers/model-lists.js';
import { runDoctor } from './doctor.js';
import { listsModel } from './model-watch.js';

const settings = (baseUrl: string, apiKey: string) => ({ baseUrl, apiKey });

describe('reading a model list in each provider’s format', () => {
  const fakes: FakeModelList[] = [];
  afterAll(async () => {
    for (const f of fakes) await f.close();
  });
  const start = async (...args: Parameters<typeof startFakeModelList>) => {
    const fake = await startFakeModelList(...args);
    fakes.push(fake);
    return fake;
  };

  it('OpenAI-compatible: Bearer key, data list', async () => {
    const fake = await start('openai', { apiKey: 'sk-x', models: ['gpt-4.1', 'gpt-4.1-2025-04-14'] });
    const listed = await listModels('openai', 'openai-compatible', settings(fake.url, 'sk-x'), 2000);
    expect(listed.map((m) => m.id)).toEqual(['gpt-4.1', 'gpt-4.1-2025-04-14']);
    await expect(listModels('openai', 'openai-compatible', settings(fake.url, 'bad'), 2000)).rejects.toThrow(
      /HTTP 401/,
    );
  });

  it('Together: the bare array', async () => {
    const fake = await start('together', {
      apiKey: 'tg',
      models: ['meta-llama/Llama-3.3-70B-Instruct-Turbo'],
    });
    const listed = await listModels('together', 'openai-compatible', settings(fake.url, 'tg'), 2000);
    expect(listed).toEqual([
      { id: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', created: 1_730_000_000, contextLength: 131_072 },
    ]);
  });

  it('Anthropic: x-api-key and anthropic-version, every page', async () => {
    const models = ['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-4-5-20251001'];
    const fake = await start('anthropic', { apiKey: 'ak', models, pageCap: 2 });
    const listed = await listModels('anthropic', 'anthropic', settings(fake.url, 'ak'), 2000);
    expect(listed.map((m) => m.id)).toEqual(models);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]?.path).toContain('after_id=claude-sonnet-5-5');
    expect(fake.requests[0]?.headers['anthropic-version']).toBe('2023-06-01');
  });

  it('Gemini: x-goog-api-key, models/ prefix dropped, every page', async () => {
    const models = ['gemini-2.5-flash', 'gemini-2.5-pro', 'gemini-3-pro-preview'];
    const fake = await start('gemini', { apiKey: 'gk', models, pageCap: 2 });
    const listed = await listModels('google', 'gemini', settings(fake.url, 'gk'), 2000);
    expect(listed.map((m) => m.id)).toEqual(models);
    expect(listed[0]?.contextLength).toBe(1_048_576);
    expect(fake.requests[1]?.path).toContain('pageToken=2');
    // the key goes in the header, never in the URL
    expect(fake.requests.every((r) => !r.path.includes('gk'))).toBe(true);
  });

  it('takes a dated snapshot as the undated alias, nothing looser', () => {
    const ids = new Set(['claude-sonnet-4-5-20250929', 'gpt-4.1-2025-04-14', 'grok-4-0709', 'gpt-4.1-mini']);
    for (const alias of ['claude-sonnet-4-5', 'gpt-4.1', 'grok-4', 'gpt-4.1-mini'])
      expect(listsModel(ids, alias), alias).toBe(true);
    for (const other of ['claude-sonnet-4', 'gpt-4', 'grok-4-1-fast-reasoning'])
      expect(listsModel(ids, other), other).toBe(false);
  });
});

describe('a configured provider that does not list a catalog model', () => {
  let anthropic: FakeModelList;
  let kasir: PaidKasir;
  beforeAll(async () => {
    // Lists two current models and a dated Haiku snapshot; not claude-sonnet-4-6 nor claude-opus-4-5.
    anthropic = await startFakeModelList('anthropic', {
      apiKey: 'sk-ant-fake',
      models: ['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-4-5-20251001'],
    });
    kasir = await startPaidKasir('sqlite', {
      ANTHROPIC_BASE_URL: anthropic.url,
      UPSTREAM_MODEL_CHECK: 'true',
    });
    await kasir.deps.modelWatch?.ready;
  });
  afterAll(async () => {
    await kasir?.stop();
    await anthropic?.close();
  });

  it('is shown available: false with the reason; listed models (snapshots too) stay available', async () => {
    const body = (await (await kasir.app.request('/v1/models')).json()) as {
      models: Array<{ id: string; available: boolean; unavailableReason?: string }>;
      data: Array<{ id: string }>;
    };
    const row = (id: string) => body.models.find((m) => m.id === id);
    expect(row('anthropic/claude-sonnet-4-6')).toMatchObject({ available: false });
    expect(row('anthropic/claude-sonnet-4-6')?.unavailableReason).toMatch(
      /anthropic does not list claude-sonnet-4-6/,
    );
    expect(row('anthropic/claude-haiku-4-5')?.available).toBe(true);
    expect(row('anthropic/claude-opus-5-5')?.available).toBe(true);
    expect(body.data.map((d) => d.id)).not.toContain('anthropic/claude-sonnet-4-6');
  });

  it('is refused before any payment (503 unavailable), and nothing reaches the provider', async () => {
    const { key, accountId } = await kasir.fundedKey(1_000_000);
    const before = await kasir.balance(accountId);
    const sent = kasir.anthropic.requests.length;
    const answer = await postPaid<{ error: { code: string; message: string } }>(
      kasir,
      key,
      '/v1/chat/completions',
      {
        model: 'anthropic/claude-sonnet-4-6',
        messages: [{ role: 'user', content: 'hi' }],
      },
    );
    expect(answer.status).toBe(503);
    expect(answer.json.error.code).toBe('unavailable');
    expect((await kasir.balance(accountId)).balance).toBe(before.balance);
    expect(kasir.anthropic.requests.length).toBe(sent);
    // without any payment it is the same answer, not a 402 challenge
    const unpaid = await kasir.app.request('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'anthropic/claude-sonnet-4-6',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(unpaid.status).toBe(503);
  });

  it('kasir doctor reports it, per provider', async () => {
    const report = await runDoctor(
      loadConfig({ ANTHROPIC_API_KEY: 'sk-ant-fake', ANTHROPIC_BASE_URL: anthropic.url }),
    );
    expect(report.ok).toBe(false);
    const line = report.providers.find((p) => p.provider === 'anthropic');
    expect(line?.error).toBeUndefined();
    expect(line?.count).toBe(3);
    expect(line?.missing).toContain('anthropic/claude-sonnet-4-6');
    expect(line?.missing).not.toContain('anthropic/claude-haiku-4-5');
  });

  it('kasir doctor names a list it cannot read, without the key', async () => {
    const report = await runDoctor(
      loadConfig({ ANTHROPIC_API_KEY: 'sk-ant-wrong', ANTHROPIC_BASE_URL: anthropic.url }),
    );
    const line = report.providers.find((p) => p.provider === 'anthropic');
    expect(line?.error).toMatch(/HTTP 401/);
    expect(JSON.stringify(report)).not.toContain('sk-ant-wrong');
  });
});
