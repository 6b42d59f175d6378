// Payment channels: real EIP-712 vouchers (mppx's voucher primitives) against kasir's channel accounting, with an
// in-process escrow standing in for Tempo's TIP-1034 precompile (no local Tempo node has it). Monotonic vouchers,
// equal = retry, lower / above the deposit / badly signed refused, nothing after a close, 100 concurrent calls on one
// voucher, a restart, two instances on one PostgreSQL, and the close settling exactly what was spent.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelDescriptor } from '../../src/rails/channel/backend.js';
import { ESCROW, type FakeEscrow, startFakeEscrow } from '../fakes/channel-escrow.js';
import { DB_TARGETS, type DbTarget, postJson } from '../support/app.js';
import {
  ADMIN,
  CHAIN_ID,
  channelEnv,
  chatWithVoucher,
  openChannelOn,
  PAYEE,
  payerOn,
} from '../support/channel-payer.js';
import { chatBody, type PaidKasir, startPaidKasir, startTwoPaidKasirs } from '../support/paid.js';
import { freshPostgres, postgresUp } from '../support/services.js';

const MODEL = 'openai/gpt-4.1-mini';

describe.each(DB_TARGETS)('payment channels on %s', (db: DbTarget) => {
  let escrow: FakeEscrow;
  let kasir: PaidKasir;
  beforeAll(async () => {
    escrow = startFakeEscrow(CHAIN_ID);
    kasir = await startPaidKasir(db, channelEnv, undefined, { channelBackend: escrow });
  });
  afterAll(() => kasir?.stop());

  const register = (descriptor: ChannelDescriptor) => postJson(kasir, '/v1/channels', { descriptor });
  const call = (voucher: string, body = chatBody(MODEL, 'on a channel')) =>
    chatWithVoucher(kasir, voucher, body);
  const view = async (id: string) =>
    (await (await kasir.app.request(`/v1/channels/${id}`)).json()) as Record<string, number | string | null>;
  const price = () => kasir.quote(chatBody(MODEL, 'on a channel'));

  it('registers a channel from the chain, refusing one that does not pay this server or is not open', async () => {
    const p = payerOn(escrow, 5_000_000n);
    const res = await register(p.descriptor);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      channel_id: p.id.toLowerCase(),
      deposit: 5_000_000,
      spent: 0,
      units: 0,
    });
    const other = await register({
      ...p.descriptor,
      payee: privateKeyToAccount(generatePrivateKey()).address,
    });
    expect(other.status).toBe(400);
    const unopened = await register({ ...p.descriptor, salt: `0x${'00'.repeat(31)}01` });
    expect(unopened.status).toBe(410);
    // The 402 of an unpaid call points at the channel rail.
    const unpaid = await kasir.app.request('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chatBody(MODEL, 'x')),
    });
    const rails = ((await unpaid.json()) as { error: { details: { rails: Array<Record<string, unknown>> } } })
      .error.details.rails;
    expect(rails.find((r) => r.rail === 'channel')).toMatchObject({
      payee: PAYEE,
      escrow: ESCROW,
      chain_id: CHAIN_ID,
    });
  });

  it('pays calls from cumulative vouchers: equal is a retry, lower and above the deposit refused, badly signed refused', async () => {
    const p = payerOn(escrow, 2_000_000n);
    await register(p.descriptor);
    const q = price();
    const first = await call(await p.voucher(3 * q));
    expect(first.status).toBe(200);
    expect(((await first.json()) as { costMicroUsd: number }).costMicroUsd).toBe(q);
    expect(first.headers.get('payment-receipt')).toBeTruthy();
    // The same voucher pays two more calls (it covers three), then the channel asks for more.
    const same = await p.voucher(3 * q);
    expect((await call(same)).status).toBe(200);
    expect((await call(same)).status).toBe(200);
    const short = await call(same);
    expect(short.status).toBe(402);
    expect(await short.json()).toMatchObject({
      type: 'https://paymentauth.org/problems/payment-insufficient',
      error: { details: { refused: { required_cumulative: 4 * q } } },
    });
    const lower = await call(await p.voucher(2 * q));
    expect(lower.status).toBe(402);
    expect(await lower.json()).toMatchObject({
      type: 'https://paymentauth.org/problems/session/delta-too-small',
    });
    const above = await call(await p.voucher(2_000_001));
    expect(await above.json()).toMatchObject({
      type: 'https://paymentauth.org/problems/session/amount-exceeds-deposit',
    });
    const forged = await call(await p.voucher(5 * q, privateKeyToAccount(generatePrivateKey())));
    expect(await forged.json()).toMatchObject({
      type: 'https://paymentauth.org/problems/session/invalid-signature',
    });
    expect(await view(p.id)).toMatchObject({ accepted_cumulative: 3 * q, spent: 3 * q, units: 3 });
  });

  it('gives a failed call its reservation back', async () => {
    const p = payerOn(escrow, 2_000_000n);
    await register(p.descriptor);
    kasir.openai.setScript({ failure: { kind: 'status', status: 500 } });
    const failed = await call(await p.voucher(price()));
    kasir.openai.setScript({});
    expect(failed.status).toBe(502);
    expect(await view(p.id)).toMatchObject({ accepted_cumulative: price(), spent: 0, units: 0 });
  });

  it('serves 100 concurrent calls on one voucher without spending past it', async () => {
    const p = payerOn(escrow, 10_000_000n);
    await register(p.descriptor);
    const q = price();
    const voucher = await p.voucher(100 * q);
    const answers = await Promise.all(Array.from({ length: 100 }, () => call(voucher)));
    expect(answers.map((r) => r.status).filter((s) => s === 200)).toHaveLength(100);
    expect((await call(voucher)).status).toBe(402);
    expect(await view(p.id)).toMatchObject({ spent: 100 * q, units: 100, available: 0 });
  });

  it('does not close while a call holds part of the channel, then closes with it counted', async () => {
    const p = payerOn(escrow, 3_000_000n);
    await register(p.descriptor);
    const body = chatBody(MODEL, 'on a channel', { stream: true });
    const q = kasir.quote(body);
    kasir.openai.setScript({ events: 4, delayMs: 150 });
    const running = Promise.resolve(call(await p.voucher(2 * q), body)).then((r) => r.text());
    for (let i = 0; i < 100 && (await view(p.id)).in_flight === 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(await view(p.id)).toMatchObject({ in_flight: q });
    const early = await kasir.app.request(`/v1/channels/${p.id}/close`, { method: 'POST' });
    expect(early.status).toBe(409);
    expect(await running).toContain('data: [DONE]');
    kasir.openai.setScript({});
    // A stream on a channel is metered: charged the output the upstream reported (the fake's 13 tokens).
    const delivered = kasir.quote({ ...body, max_tokens: 13 });
    expect(await view(p.id)).toMatchObject({ spent: delivered, in_flight: 0, units: 1 });
    const closed = await kasir.app.request(`/v1/channels/${p.id}/close`, { method: 'POST' });
    expect(closed.status).toBe(200);
    expect(escrow.closed.at(-1)).toEqual({ id: p.id, cumulative: BigInt(2 * q), capture: BigInt(delivered) });
  });

  it('sells the inference routes on /v1/channels/{id}/…, paid only by a voucher of that channel', async () => {
    const p = payerOn(escrow, 2_000_000n);
    await register(p.descriptor);
    const other = payerOn(escrow, 2_000_000n);
    await register(other.descriptor);
    const q = price();
    const variant = async (route: string, body: Record<string, unknown>, headers: Record<string, string>) =>
      postJson(kasir, `/v1/channels/${p.id}/${route}`, body, headers);
    const chat = await variant('chat/completions', chatBody(MODEL, 'on a channel'), {
      'payment-voucher': await p.voucher(q),
    });
    expect(chat.status).toBe(200);
    expect(await chat.json()).toMatchObject({ model: MODEL, costMicroUsd: q, receipt: { rail: 'channel' } });
    const infer = await variant('infer', chatBody(MODEL, 'on a channel'), {
      'payment-voucher': await p.voucher(2 * q),
    });
    expect(infer.status).toBe(200);
    expect(await infer.json()).toMatchObject({
      model: MODEL,
      costMicroUsd: q,
      output: { object: 'chat.completion' },
    });
    // Another channel's voucher, or no voucher, is a 402 that lists the channel rail alone.
    const foreign = await variant('chat/completions', chatBody(MODEL, 'on a channel'), {
      'payment-voucher': await other.voucher(q),
    });
    expect(foreign.status).toBe(402);
    expect(JSON.stringify(await foreign.json())).toContain(`paid from channel ${p.id.toLowerCase()}`);
    const unnamed = await kasir.app.request('/v1/channels/not-a-channel/infer', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'payment-voucher': await p.voucher(3 * q) },
      body: JSON.stringify(chatBody(MODEL, 'x')),
    });
    expect(unnamed.status).toBe(402);
    const unpaid = await variant('infer', chatBody(MODEL, 'x'), {});
    expect(unpaid.status).toBe(402);
    const rails = ((await unpaid.json()) as { error: { details: { rails: Array<{ rail: string }> } } }).error
      .details.rails;
    expect(rails.map((r) => r.rail)).toEqual(['channel']);
    // Bad input: a 400 naming the field, nothing spent.
    const bad = await variant('infer', { messages: [] }, { 'payment-voucher': await p.voucher(3 * q) });
    expect(bad.status).toBe(400);
    expect(await view(p.id)).toMatchObject({ spent: 2 * q, units: 2 });
    expect(await view(other.id)).toMatchObject({ spent: 0 });
    const doc = (await (await kasir.app.request('/openapi.json')).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/channels/{id}/infer', '/v1/channels/{id}/chat/completions']),
    );
  });

  it('closes with the highest voucher, capturing exactly what was spent, and takes no voucher after', async () => {
    const p = payerOn(escrow, 3_000_000n);
    await register(p.descriptor);
    const q = price();
    expect((await call(await p.voucher(5 * q))).status).toBe(200);
    const closed = await kasir.app.request(`/v1/channels/${p.id}/close`, { method: 'POST' });
    expect(closed.status).toBe(200);
    expect(await closed.json()).toMatchObject({ spent: q, accepted_cumulative: 5 * q });
    expect(escrow.closed.at(-1)).toEqual({ id: p.id, cumulative: BigInt(5 * q), capture: BigInt(q) });
    const after = await call(await p.voucher(6 * q));
    expect(after.status).toBe(410);
    const listed = (await (
      await kasir.app.request('/v1/admin/channels', { headers: { authorization: `Bearer ${ADMIN}` } })
    ).json()) as { items: Array<{ channel_id: string; finalized_at: string | null }> };
    expect(listed.items.find((c) => c.channel_id === p.id.toLowerCase())?.finalized_at).toBeTruthy();
  });
});

describe('payment channels across a restart and two instances', () => {
  it('keeps a channel through a restart (SQLite file)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'kasir-channels-'));
    const escrow = startFakeEscrow(CHAIN_ID);
    const env = { ...channelEnv, DATABASE_URL: `sqlite:${path.join(dir, 'kasir.db')}` };
    try {
      const one = await startPaidKasir('sqlite', env, undefined, { channelBackend: escrow });
      const p = await openChannelOn(one, escrow, 1_000_000n);
      const q = one.quote(chatBody(MODEL, 'restart'));
      const voucher = await p.voucher(2 * q);
      const pay = (k: PaidKasir) => chatWithVoucher(k, voucher, chatBody(MODEL, 'restart'));
      expect((await pay(one)).status).toBe(200);
      await one.stop();
      const two = await startPaidKasir('sqlite', env, undefined, { channelBackend: escrow });
      expect((await pay(two)).status).toBe(200);
      expect((await pay(two)).status).toBe(402);
      await two.stop();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.runIf(postgresUp)(
    'never spends past a voucher when two instances on one PostgreSQL race',
    async () => {
      const pg = await freshPostgres();
      const escrow = startFakeEscrow(CHAIN_ID);
      const env = { ...channelEnv, DATABASE_URL: pg.url };
      const [one, two] = await startTwoPaidKasirs('postgres', env, { channelBackend: escrow });
      try {
        const p = await openChannelOn(one, escrow, 5_000_000n);
        const q = one.quote(chatBody(MODEL, 'race'));
        const voucher = await p.voucher(30 * q);
        const answers = await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            chatWithVoucher(i % 2 ? one : two, voucher, chatBody(MODEL, 'race')),
          ),
        );
        expect(answers.filter((r) => r.status === 200)).toHaveLength(30);
        expect(answers.filter((r) => r.status === 402)).toHaveLength(10);
        const row = await one.deps.db.kysely
          .selectFrom('payment_channels')
          .select(['spent', 'units'])
          .where('id', '=', p.id.toLowerCase())
          .executeTakeFirstOrThrow();
        expect(row).toEqual({ spent: 30 * q, units: 30 });
      } finally {
        await two.stop();
        await one.stop();
        await pg.drop();
      }
    },
    60_000,
  );
});
