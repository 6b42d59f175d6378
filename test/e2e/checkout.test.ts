// The paid-call pipeline end to end, on a real offer (chat served by fake upstreams), on each database.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJournalLine } from '../../src/ledger/charge-journal.js';
import { recordsOf } from '../../src/ledger/pg-journal.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { DB_TARGETS, postJson } from '../support/app.js';
import { bearer, chatBody, type PaidKasir, startPaidKasir } from '../support/paid.js';

const MODEL = 'openai/gpt-4.1-mini';

interface ErrorJson {
  error: { code: string; message: string; details?: Record<string, unknown> | Array<{ field: string }> };
}

describe.each(DB_TARGETS)('checkout on %s', (db) => {
  let kasir: PaidKasir;
  let server: RunningServer;
  beforeAll(async () => {
    kasir = await startPaidKasir(db, { UPSTREAM_TIMEOUT_MS: '1000', CHAT_CALL_TIMEOUT_MS: '2000' });
    server = await startServer(kasir.app, '127.0.0.1', 0);
  });
  afterAll(async () => {
    await server.stop(1000);
    await kasir.stop();
  });

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    postJson(kasir, '/v1/chat/completions', body, headers);
  const totalHolds = async () =>
    (await kasir.deps.db.kysely.selectFrom('holds').select('id').execute()).length;

  it('answers 402 with the quote and every rail when no payment is attached, placing no hold', async () => {
    const before = await totalHolds();
    const body = chatBody(MODEL);
    const res = await post(body);
    expect(res.status).toBe(402);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const json = (await res.json()) as ErrorJson;
    expect(json.error.code).toBe('payment_required');
    const details = json.error.details as {
      model: string;
      quote: { costMicroUsd: number };
      rails: Array<{ rail: string; price_micro_usd: number }>;
    };
    expect(details.model).toBe(MODEL);
    expect(details.quote.costMicroUsd).toBe(kasir.quote(body));
    expect(details.rails.map((r) => r.rail)).toContain('prepaid');
    expect(details.rails[0]?.price_micro_usd).toBe(kasir.quote(body));
    expect(await totalHolds()).toBe(before);
  });

  it('refuses bad input with 400 before any 402 or hold, with or without a key', async () => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    const before = await totalHolds();
    const cases: unknown[] = [
      '{"model":',
      { model: MODEL },
      { model: MODEL, messages: [{ role: 'wizard', content: 'hi' }] },
      { model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 0 },
      { model: MODEL, messages: [{ role: 'user', content: 'hi' }], temperature: 'hot' },
    ];
    for (const body of cases) {
      for (const headers of [{}, bearer(key)]) {
        const res = await post(body, headers);
        expect(res.status, JSON.stringify(body)).toBe(400);
        const code = ((await res.json()) as ErrorJson).error.code;
        expect(['invalid_input', 'invalid_json']).toContain(code);
      }
    }
    expect(await totalHolds()).toBe(before);
    expect(await kasir.balance(accountId)).toEqual({ balance: 1_000_000, held: 0 });
  });

  it('states nothing charged and the balance on every refused or invalid call made with a known key', async () => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    const body = chatBody(MODEL);
    const quote = kasir.quote(body);
    const paid = await post(body, bearer(key));
    expect(paid.status).toBe(200);
    const balance = String(1_000_000 - quote);
    expect(paid.headers.get('x-service-balance-micro-usd')).toBe(balance);
    const refused: Array<[unknown, Record<string, string>, number]> = [
      ['{"model":', {}, 400],
      [{ model: MODEL, messages: [{ role: 'wizard', content: 'hi' }] }, {}, 400],
      [chatBody('openai/gpt-4.1-mimi'), {}, 404],
      [chatBody('black-forest-labs/flux-dev'), {}, 400],
      [body, { 'x-max-price': String(quote - 1) }, 402],
    ];
    for (const [refusedBody, headers, status] of refused) {
      const res = await post(refusedBody, { ...bearer(key), ...headers });
      expect(res.status, JSON.stringify(refusedBody)).toBe(status);
      expect(res.headers.get('x-service-charged-micro-usd')).toBe('0');
      expect(res.headers.get('x-service-balance-micro-usd')).toBe(balance);
    }
    // An account this instance has not served yet: its balance comes from the database.
    const fresh = await kasir.fundedKey(777_000);
    const unserved = await post('{"model":', bearer(fresh.key));
    expect(unserved.headers.get('x-service-charged-micro-usd')).toBe('0');
    expect(unserved.headers.get('x-service-balance-micro-usd')).toBe('777000');
    // Without a key, or with a key nobody holds, there is no balance to state.
    for (const headers of [{}, bearer(`ksr_${'x'.repeat(43)}`)]) {
      const res = await post('{"model":', headers);
      expect(res.status).toBe(400);
      expect(res.headers.get('x-service-charged-micro-usd')).toBeNull();
      expect(res.headers.get('x-service-balance-micro-usd')).toBeNull();
    }
    expect(await kasir.balance(accountId)).toEqual({ balance: 1_000_000 - quote, held: 0 });
  });

  it('names the model problem: 404 with the closest ids, 400 for a non-chat model', async () => {
    const unknown = await post(chatBody('openai/gpt-4.1-mimi'));
    expect(unknown.status).toBe(404);
    const json = (await unknown.json()) as ErrorJson;
    expect((json.error.details as { suggestions: string[] }).suggestions).toContain('openai/gpt-4.1-mini');
    const wrong = await post(chatBody('black-forest-labs/flux-dev'));
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as ErrorJson).error.message).toMatch(/not a chat model/);
  });

  it('honours X-Max-Price before any charge', async () => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    const body = chatBody(MODEL);
    const quote = kasir.quote(body);
    const tooLow = await post(body, { ...bearer(key), 'x-max-price': String(quote - 1) });
    expect(tooLow.status).toBe(402);
    expect(await tooLow.json()).toMatchObject({
      error: { code: 'price_above_max', details: { price_micro_usd: quote } },
    });
    expect((await post(body, { ...bearer(key), 'x-max-price': 'cheap' })).status).toBe(400);
    expect(await kasir.holdCount(accountId)).toBe(0);
    const enough = await post(body, { ...bearer(key), 'x-max-price': String(quote) });
    expect(enough.status).toBe(200);
  });

  it('refuses an unknown key with 401, and a short balance with 402 and the shortfall', async () => {
    expect((await post(chatBody(MODEL), bearer(`ksr_${'x'.repeat(43)}`))).status).toBe(401);
    const body = chatBody(MODEL);
    const quote = kasir.quote(body);
    const { accountId, key } = await kasir.fundedKey(quote - 10);
    const res = await post(body, bearer(key));
    expect(res.status).toBe(402);
    expect(res.headers.get('x-service-charged-micro-usd')).toBe('0');
    expect(res.headers.get('x-service-balance-micro-usd')).toBe(String(quote - 10));
    expect(await res.json()).toMatchObject({
      error: { code: 'insufficient_balance', details: { shortfall_micro_usd: 10, price_micro_usd: quote } },
    });
    expect(await kasir.holdCount(accountId)).toBe(0);
  });

  it('bounds a key by its spend cap', async () => {
    const body = chatBody(MODEL);
    const quote = kasir.quote(body);
    const { key } = await kasir.fundedKey(1_000_000, { spendCapMicroUsd: quote + quote / 2 });
    expect((await post(body, bearer(key))).status).toBe(200);
    const capped = await post(body, bearer(key));
    expect(capped.status).toBe(402);
    expect(await capped.json()).toMatchObject({ error: { code: 'spend_cap_exceeded' } });
  });

  it('charges nothing when the upstream fails, refuses the input, or times out', async () => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    const cases: Array<[Parameters<PaidKasir['openai']['setScript']>[0], number, string]> = [
      [{ failure: { kind: 'status', status: 500 } }, 502, 'upstream_error'],
      [{ failure: { kind: 'status', status: 400, message: 'messages is malformed' } }, 400, 'invalid_input'],
      [{ failure: { kind: 'invalid_json' } }, 502, 'upstream_error'],
      [{ failure: { kind: 'hang' } }, 504, 'upstream_timeout'],
    ];
    for (const [script, status, code] of cases) {
      kasir.openai.setScript(script);
      const res = await post(chatBody(MODEL), bearer(key));
      expect(res.status, code).toBe(status);
      expect(res.headers.get('x-service-charged-micro-usd')).toBe('0');
      expect(res.headers.get('x-service-balance-micro-usd')).toBe('1000000');
      expect(((await res.json()) as ErrorJson).error.code).toBe(code);
      expect(await kasir.balance(accountId)).toEqual({ balance: 1_000_000, held: 0 });
    }
    kasir.openai.setScript({});
    const usage = await kasir.usageRows(accountId);
    expect(usage.map((u) => [u.status, u.charged_micro_usd, u.http_status])).toEqual([
      ['voided', 0, 502],
      ['voided', 0, 400],
      ['voided', 0, 502],
      ['voided', 0, 504],
    ]);
    expect(await kasir.ledger(accountId)).toEqual({ balance: 1_000_000, held: 0 });
  });

  it('answers 503 for a model whose provider is not configured, with no hold', async () => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    const res = await post(chatBody('xai/grok-4'), bearer(key));
    expect(res.status).toBe(503);
    expect(((await res.json()) as ErrorJson).error.message).toContain('XAI_API_KEY');
    expect(await kasir.holdCount(accountId)).toBe(0);
  });

  it('records one usage row per paid call with the charge equal to the quote', async () => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    const body = chatBody(MODEL, 'usage row please');
    const res = await post(body, { ...bearer(key), 'x-request-id': 'usage-row-test' });
    expect(res.status).toBe(200);
    const [row] = await kasir.usageRows(accountId);
    expect(row).toMatchObject({
      request_id: 'usage-row-test',
      rail: 'prepaid',
      offer_id: MODEL,
      quote_micro_usd: kasir.quote(body),
      charged_micro_usd: kasir.quote(body),
      status: 'charged',
      http_status: 200,
    });
    expect(row?.latency_ms).toBeGreaterThanOrEqual(0);
  });

  it('replays an Idempotency-Key without a second charge, and refuses it with another body', async () => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    const body = chatBody(MODEL, 'idempotent please');
    const quote = kasir.quote(body);
    const headers = { ...bearer(key), 'idempotency-key': 'order-42' };
    const first = await post(body, headers);
    const firstBody = await first.text();
    expect(first.headers.get('x-service-charged-micro-usd')).toBe(String(quote));
    const again = await post(body, headers);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(firstBody);
    expect(await kasir.balance(accountId)).toEqual({ balance: 1_000_000 - quote, held: 0 });
    // the replay says it charged nothing, marks itself, and states the balance as it is now
    expect(again.headers.get('x-service-charged-micro-usd')).toBe('0');
    expect(again.headers.get('x-service-idempotent-replay')).toBe('true');
    expect(again.headers.get('x-service-balance-micro-usd')).toBe(String(1_000_000 - quote));
    expect(first.headers.get('x-service-idempotent-replay')).toBeNull();
    const other = await post(chatBody(MODEL, 'something else'), headers);
    expect(other.status).toBe(409);
    expect(await other.json()).toMatchObject({ error: { code: 'idempotency_conflict' } });
    expect(await kasir.holdCount(accountId)).toBe(1);
  });

  it('answers 409 with Retry-After while the first request with a key is still running', async () => {
    const { key } = await kasir.fundedKey(1_000_000);
    kasir.openai.setScript({ events: 5, delayMs: 100 });
    const body = chatBody(MODEL, 'slow', { stream: true });
    const headers = { ...bearer(key), 'idempotency-key': 'slow-1' };
    const first = post(body, headers);
    await new Promise((r) => setTimeout(r, 80));
    const second = await post(body, headers);
    expect(second.status).toBe(409);
    expect(second.headers.get('retry-after')).toBe('1');
    expect(await second.json()).toMatchObject({ error: { code: 'idempotency_in_progress' } });
    const done = await first;
    expect(done.status).toBe(200);
    await done.text();
    kasir.openai.setScript({});
    const replay = await post(body, headers);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.text()).toContain('data: [DONE]');
  });

  it('frees an Idempotency-Key after a failed call, so the retry runs', async () => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    const body = chatBody(MODEL, 'retry me');
    const headers = { ...bearer(key), 'idempotency-key': 'retry-7' };
    kasir.openai.setScript(
      { failure: { kind: 'status', status: 500 } },
      { failure: { kind: 'status', status: 500 } },
      {},
    );
    expect((await post(body, headers)).status).toBe(502);
    const retried = await post(body, headers);
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect((await kasir.balance(accountId)).balance).toBe(1_000_000 - kasir.quote(body));
  });

  it('sends an explicit SSE error and charges nothing when the upstream dies mid-stream', async () => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    kasir.openai.setScript({ events: 10, failure: { kind: 'die', afterEvents: 4 } });
    const res = await post(chatBody(MODEL, 'stream', { stream: true }), bearer(key));
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('event: error\ndata: {"error":{"code":"upstream_error"');
    expect(text).not.toContain('[DONE]');
    expect(text.match(/^data: \{"id"/gm)?.length).toBeGreaterThanOrEqual(3);
    expect(await kasir.balance(accountId)).toEqual({ balance: 1_000_000, held: 0 });
    const [row] = await kasir.usageRows(accountId);
    expect(row).toMatchObject({ status: 'voided', charged_micro_usd: 0, http_status: 502 });
    kasir.openai.setScript({});
  });

  it('stops the upstream and charges the quote when the caller disconnects mid-stream', async () => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    kasir.openai.setScript({ events: 40, delayMs: 25 });
    kasir.openai.requests.length = 0;
    const body = chatBody(MODEL, 'long stream', { stream: true });
    const quote = kasir.quote(body);
    const res = await request(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(key) },
      body: JSON.stringify(body),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-service-charged-micro-usd']).toBe(String(quote));
    for await (const _chunk of res.body) break; // read the first bytes, then hang up
    res.body.destroy();
    for (let i = 0; i < 100 && (await kasir.balance(accountId)).held > 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(await kasir.balance(accountId)).toEqual({ balance: 1_000_000 - quote, held: 0 });
    await new Promise((r) => setTimeout(r, 100));
    const upstream = kasir.openai.requests.at(-1);
    expect(upstream?.finished).toBe(false);
    expect(upstream?.eventsSent).toBeLessThan(40);
    const [row] = await kasir.usageRows(accountId);
    expect(row).toMatchObject({ status: 'charged', http_status: 499, error_code: 'client_disconnected' });
    kasir.openai.setScript({});
  });

  it('stops the upstream and charges nothing when the caller hangs up before a non-streamed answer', async () => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    kasir.openai.setScript({ failure: { kind: 'hang' } });
    kasir.openai.requests.length = 0;
    const hangUp = new AbortController();
    const pending = request(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(key) },
      body: JSON.stringify(chatBody(MODEL, 'slow answer')),
      signal: hangUp.signal,
    });
    for (let i = 0; i < 100 && kasir.openai.requests.length === 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    hangUp.abort();
    await expect(pending).rejects.toThrow();
    const rows = await kasir.usageRows(accountId, 1);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      status: 'voided',
      charged_micro_usd: 0,
      http_status: 499,
      error_code: 'client_disconnected',
    });
    expect(await kasir.balance(accountId)).toEqual({ balance: 1_000_000, held: 0 });
    // The upstream sees its connection close once kasir's abort reaches the socket.
    const upstream = kasir.openai.requests.at(-1);
    for (let i = 0; i < 100 && !upstream?.clientClosed; i++) await new Promise((r) => setTimeout(r, 10));
    expect(upstream?.clientClosed).toBe(true);
    kasir.openai.setScript({});
  });

  it("records a stream's charge only as its end leaves: one cut short before then is never charged", async () => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    kasir.openai.setScript({ text: 'tick '.repeat(20).trim(), events: 20, delayMs: 40 });
    const body = chatBody(MODEL, 'long', { stream: true });
    const quote = kasir.quote(body);
    // The charge journal: a file on SQLite, rows in PostgreSQL (deleted again once the ledger has the charge).
    const db = kasir.deps.db;
    const journalCharges = async () =>
      db.kind === 'postgres'
        ? recordsOf((await db.pool.query('SELECT record FROM charge_journal')).rows).filter(
            (r) => r.k === 'charge' && r.account === accountId,
          ).length
        : readdirSync(path.join(kasir.dataDir, 'journal'))
            .flatMap((f) =>
              readFileSync(path.join(kasir.dataDir, 'journal', f), 'utf8')
                .trim()
                .split('\n'),
            )
            .filter(Boolean)
            .map(parseJournalLine)
            .filter((r) => r.k === 'charge' && r.account === accountId).length;
    const res = await post(body, bearer(key));
    const reading = res.text();
    await new Promise((r) => setTimeout(r, 400));
    // Mid-stream: nothing recorded, so a process killed now would charge nothing (its lease is released).
    expect(await journalCharges()).toBe(0);
    expect(
      await kasir.deps.db.kysely
        .selectFrom('holds')
        .select('id')
        .where('account_id', '=', accountId)
        .where('kind', '=', 'call')
        .execute(),
    ).toEqual([]);
    await reading;
    // Recorded as the end left (on PostgreSQL the row may already be gone: the ledger has the charge).
    if (db.kind === 'sqlite') expect(await journalCharges()).toBe(1);
    else expect(await journalCharges()).toBeLessThanOrEqual(1);
    expect(await kasir.balance(accountId)).toEqual({ balance: 1_000_000 - quote, held: 0 });
    expect(await kasir.ledger(accountId)).toEqual({ balance: 1_000_000 - quote, held: 0 });
    kasir.openai.setScript({});
  });

  it('runs Anthropic and Gemini models through the same pipeline, plain and streamed', async () => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    let spent = 0;
    for (const model of ['anthropic/claude-haiku-4-5', 'google/gemini-2.5-flash']) {
      for (const stream of [false, true]) {
        const body = chatBody(model, 'hello', stream ? { stream: true } : {});
        const res = await post(body, bearer(key));
        expect(res.status, `${model} stream=${stream}`).toBe(200);
        const text = await res.text();
        const cost = stream
          ? (
              JSON.parse(
                text
                  .split('\n\n')
                  .filter((f) => f.startsWith('data: {'))
                  .at(-1)
                  ?.slice(6) ?? '{}',
              ) as { costMicroUsd: number }
            ).costMicroUsd
          : (JSON.parse(text) as { costMicroUsd: number }).costMicroUsd;
        expect(cost).toBe(kasir.quote(body));
        spent += cost;
      }
    }
    expect(await kasir.balance(accountId)).toEqual({ balance: 1_000_000 - spent, held: 0 });
  });

  it('lets exactly the calls the balance covers through, among 1000 concurrent ones', async () => {
    kasir.openai.setScript({});
    const body = chatBody(MODEL, 'race');
    const quote = kasir.quote(body);
    const { accountId, key } = await kasir.fundedKey(quote * 100);
    const statuses = await Promise.all(
      Array.from({ length: 1000 }, async () => {
        const res = await post(body, bearer(key));
        await res.arrayBuffer();
        return res.status;
      }),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.filter((s) => s === 402)).toHaveLength(900);
    expect(await kasir.balance(accountId)).toEqual({ balance: 0, held: 0 });
    expect(await kasir.ledger(accountId)).toEqual({ balance: 0, held: 0 });
    const usage = await kasir.usageRows(accountId);
    expect(usage).toHaveLength(100);
    expect(usage.reduce((sum, u) => sum + u.charged_micro_usd, 0)).toBe(quote * 100);
  });
});

describe.runIf(DB_TARGETS.includes('postgres'))('two kasir instances sharing one PostgreSQL', () => {
  it('never spend more than the balance between them', async () => {
    const a = await startPaidKasir('postgres');
    const b = await startPaidKasir(
      'postgres',
      { DATABASE_URL: a.config.database.kind === 'postgres' ? a.config.database.url : '' },
      a,
    );
    try {
      const body = chatBody(MODEL, 'shared');
      const quote = a.quote(body);
      const { accountId, key } = await a.fundedKey(quote * 100);
      const statuses = await Promise.all(
        Array.from({ length: 1000 }, async (_, i) => {
          const res = await (i % 2 ? a : b).app.request('/v1/chat/completions', {
            method: 'POST',
            body: JSON.stringify(body),
            headers: { 'content-type': 'application/json', ...bearer(key) },
          });
          await res.arrayBuffer();
          return res.status;
        }),
      );
      expect(statuses.filter((s) => s === 200)).toHaveLength(100);
      expect(statuses.filter((s) => s === 402)).toHaveLength(900);
      // Each instance writes its own charges (within 20 ms) and returns its own lease: both must have done so
      // before the shared account is read.
      await b.deps.reserves.returnUnused();
      expect(await a.balance(accountId)).toEqual({ balance: 0, held: 0 });
      expect(await b.ledger(accountId)).toEqual({ balance: 0, held: 0 });
    } finally {
      await b.stop();
      await a.stop();
    }
  });
});
