// A call on a payment channel whose process dies mid-call leaves its hold in the channel's row: the close answers
// 409 until the sweeper gives the lapsed hold back (HOLD_TTL_SECONDS after it was taken or last raised), then closes
// capturing exactly what ended calls spent. A call that ends after its hold was swept is not given back twice: it is
// charged what it delivered when the vouchers still cover it, else nothing. Real vouchers, the in-process escrow.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { sweepOnce } from '../../src/checkout/sweeper.js';
import {
  type ChannelHold,
  newChannelHold,
  raiseChannelHold,
  settleChannelCall,
} from '../../src/rails/channel/holds.js';
import { spendFromChannel } from '../../src/rails/channel/store.js';
import { type FakeEscrow, startFakeEscrow } from '../fakes/channel-escrow.js';
import { DB_TARGETS, type DbTarget } from '../support/app.js';
import {
  CHAIN_ID,
  type ChannelPayer,
  channelEnv,
  chatWithVoucher,
  openChannelOn,
} from '../support/channel-payer.js';
import { chatBody, type PaidKasir, startPaidKasir } from '../support/paid.js';

const MODEL = 'openai/gpt-4.1-mini';
const TTL_SECONDS = 60;

describe.each(DB_TARGETS)('payment-channel holds left by a dead call on %s', (db: DbTarget) => {
  let escrow: FakeEscrow;
  let kasir: PaidKasir;
  beforeAll(async () => {
    escrow = startFakeEscrow(CHAIN_ID);
    kasir = await startPaidKasir(db, { ...channelEnv, HOLD_TTL_SECONDS: String(TTL_SECONDS) }, undefined, {
      channelBackend: escrow,
    });
  });
  afterAll(() => kasir?.stop());
  afterEach(() => {
    vi.useRealTimers();
  });

  const body = chatBody(MODEL, 'on a channel');
  const price = () => kasir.quote(body);
  const store = () => kasir.deps.db;

  const openChannel = (deposit: bigint) => openChannelOn(kasir, escrow, deposit);
  const call = (voucher: string, payload: Record<string, unknown> = body) =>
    chatWithVoucher(kasir, voucher, payload);
  const view = async (id: string) =>
    (await (await kasir.app.request(`/v1/channels/${id}`)).json()) as Record<string, number | string | null>;
  const close = (id: string) => kasir.app.request(`/v1/channels/${id}/close`, { method: 'POST' });

  /**
   * A call authorized through the channel rail itself (as the checkout does), left running: the test decides when,
   * and whether, it ends. `end()` captures it as served.
   */
  async function runningCall(p: ChannelPayer, cumulative: number, amount: number, requestId: string) {
    const rail = kasir.deps.rails.all().find((r) => r.id === 'channel');
    if (!rail) throw new Error('no channel rail');
    const header = await p.voucher(cumulative);
    const req = {
      method: 'POST',
      path: '/v1/chat/completions',
      resourceUrl: 'http://kasir.test/v1/chat/completions',
      header: (name: string) => (name === 'payment-voucher' ? header : undefined),
      requestId,
      bodyDigest: 'sha-256=:AAAA:',
    };
    const quote = { costMicroUsd: amount, unit: 'call', units: 1 };
    const auth = await rail.authorize(
      await rail.identify(req),
      { offerId: MODEL, description: MODEL, quote },
      req,
    );
    const usage = {
      requestId,
      offerId: MODEL,
      quoteMicroUsd: amount,
      httpStatus: 200,
      latencyMs: 1,
      errorCode: null,
    };
    return { end: () => auth.capture(usage) };
  }
  /** What a paid call on the channel reserves before it runs (the rail's own step); nothing settles it after. */
  async function deadCall(p: ChannelPayer, cumulative: number, amount: number): Promise<ChannelHold> {
    const hold = newChannelHold(p.id, kasir.config.holdTtlSeconds);
    const voucher = { channelId: p.id, cumulative: BigInt(cumulative), signature: await p.sign(cumulative) };
    await spendFromChannel(store(), kasir.deps.channels?.backend ?? escrow, voucher, amount, hold);
    return hold;
  }
  /** The sweeper's pass as of `seconds` from now, its log lines collected. */
  async function sweepIn(seconds: number) {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const swept = await sweepOnce(store(), kasir.config.holdTtlSeconds, {
      now: new Date(Date.now() + seconds * 1000),
      log: pino({ level: 'info' }, sink),
    });
    return { swept, lines };
  }

  it('takes the test TTL from HOLD_TTL_SECONDS', () => {
    expect(kasir.config.holdTtlSeconds).toBe(TTL_SECONDS);
  });

  it('blocks the close while a dead call holds part of the channel, until the sweeper releases the lapsed hold', async () => {
    const p = await openChannel(3_000_000n);
    const q = price();
    const voucher = await p.voucher(3 * q);
    expect((await call(voucher)).status).toBe(200);
    const dead = await deadCall(p, 3 * q, q);
    expect(await view(p.id)).toMatchObject({ spent: 2 * q, in_flight: q, units: 1 });
    expect((await close(p.id)).status).toBe(409);
    // Before the hold lapses the sweeper leaves it alone.
    const early = await sweepIn(TTL_SECONDS - 5);
    expect(early.swept.channelHoldsReleased).toBe(0);
    expect(await view(p.id)).toMatchObject({ spent: 2 * q, in_flight: q });
    const { swept, lines } = await sweepIn(TTL_SECONDS + 1);
    expect(swept.channelHoldsReleased).toBe(1);
    const warned = lines.filter((l) => l.level === 40);
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ hold: dead.id, channel: p.id.toLowerCase(), amount: q });
    expect(JSON.stringify(lines)).not.toContain((await p.sign(3 * q)).slice(2, 40));
    // Spend is again what the ended call spent; the admin view agrees.
    expect(await view(p.id)).toMatchObject({ spent: q, in_flight: 0, units: 1, available: 2 * q });
    const admin = (await (
      await kasir.app.request('/v1/admin/channels', {
        headers: { authorization: `Bearer ${channelEnv.ADMIN_TOKEN}` },
      })
    ).json()) as { items: Array<{ channel_id: string; in_flight: number; spent: number }> };
    expect(admin.items.find((c) => c.channel_id === p.id.toLowerCase())).toMatchObject({
      spent: q,
      in_flight: 0,
    });
    const closed = await close(p.id);
    expect(closed.status).toBe(200);
    expect(escrow.closed.at(-1)).toEqual({ id: p.id, cumulative: BigInt(3 * q), capture: BigInt(q) });
    // The dead call coming back after all is not given back twice, nor charged once the channel closed.
    const late = await settleChannelCall(store(), dead, q, true);
    expect(late.charged).toBe(0);
    expect(await view(p.id)).toMatchObject({ spent: q, in_flight: 0, units: 1 });
  });

  it('charges a call that ends after its hold was swept what it delivered while the vouchers cover it, else nothing', async () => {
    const p = await openChannel(3_000_000n);
    const q = price();
    const first = await deadCall(p, 2 * q, q);
    const second = await deadCall(p, 2 * q, q);
    expect(await view(p.id)).toMatchObject({ spent: 2 * q, in_flight: 2 * q });
    expect((await sweepIn(TTL_SECONDS + 1)).swept.channelHoldsReleased).toBe(2);
    expect(await view(p.id)).toMatchObject({ spent: 0, in_flight: 0, units: 0 });
    // The first comes back: the vouchers still cover it, so it is charged.
    expect(await settleChannelCall(store(), first, q, true)).toEqual({
      accepted: 2 * q,
      spent: q,
      charged: q,
    });
    // Another call takes the rest of the voucher meanwhile.
    expect((await call(await p.voucher(2 * q))).status).toBe(200);
    // The second comes back: nothing left to cover it, so it is charged nothing and nothing goes negative.
    expect(await settleChannelCall(store(), second, q, true)).toEqual({
      accepted: 2 * q,
      spent: 2 * q,
      charged: 0,
    });
    // A failed call whose hold was swept gives nothing back either.
    const failed = await deadCall(p, 3 * q, q);
    expect((await sweepIn(TTL_SECONDS + 1)).swept.channelHoldsReleased).toBe(1);
    await settleChannelCall(store(), failed, 0, false);
    expect(await view(p.id)).toMatchObject({ spent: 2 * q, in_flight: 0, units: 2 });
    const closed = await close(p.id);
    expect(closed.status).toBe(200);
    expect(escrow.closed.at(-1)).toEqual({ id: p.id, cumulative: BigInt(3 * q), capture: BigInt(2 * q) });
  });

  it('puts a hold off each time its stream raises it, and refuses to raise one already swept', async () => {
    const p = await openChannel(3_000_000n);
    const q = price();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const hold = await deadCall(p, 4 * q, q);
    vi.setSystemTime(Date.now() + (TTL_SECONDS - 10) * 1000);
    expect(await raiseChannelHold(store(), hold, 2 * q, 2 * q)).toMatchObject({ raised: true, held: 2 * q });
    // Past the first lapse, not the second: kept.
    expect((await sweepIn(20)).swept.channelHoldsReleased).toBe(0);
    expect(await view(p.id)).toMatchObject({ spent: 2 * q, in_flight: 2 * q });
    expect((await sweepIn(TTL_SECONDS + 1)).swept.channelHoldsReleased).toBe(1);
    expect(await view(p.id)).toMatchObject({ spent: 0, in_flight: 0 });
    expect(await raiseChannelHold(store(), hold, 3 * q, 3 * q)).toMatchObject({
      raised: false,
      lapsed: true,
    });
    expect(await view(p.id)).toMatchObject({ spent: 0, in_flight: 0 });
  });

  it("keeps a running call's hold alive however long it runs, and stops once the call ends", async () => {
    const p = await openChannel(3_000_000n);
    const q = price();
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'], now: Date.now() });
    const call = await runningCall(p, 2 * q, q, 'req_long_call');
    // Two TTLs of a call that is still running: the hold is renewed a third of a TTL apart.
    for (let i = 0; i < 6; i++) {
      await vi.advanceTimersByTimeAsync((TTL_SECONDS * 1000) / 3);
      for (let j = 0; j < 5; j++) await new Promise((r) => setTimeout(r, 5));
    }
    // Lapsed long ago had it not been renewed; renewed 20 s ago, it lapses 40 s from now.
    expect((await sweepIn(TTL_SECONDS - 25)).swept.channelHoldsReleased).toBe(0);
    expect(await view(p.id)).toMatchObject({ spent: q, in_flight: q });
    await call.end();
    expect(await view(p.id)).toMatchObject({ spent: q, in_flight: 0 });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('states the charge a late call really paid: nothing once its channel closed', async () => {
    const p = await openChannel(3_000_000n);
    const q = price();
    const call = await runningCall(p, 2 * q, q, 'req_late_call');
    expect((await sweepIn(TTL_SECONDS + 1)).swept.channelHoldsReleased).toBe(1);
    expect((await close(p.id)).status).toBe(200);
    const receipt = await call.end();
    // The answer's costMicroUsd comes from chargedMicroUsd (the checkout states what the rail took).
    expect(receipt.chargedMicroUsd).toBe(0);
    expect(receipt.receipt).toMatchObject({ charged_micro_usd: 0 });
    expect(escrow.closed.at(-1)).toEqual({ id: p.id, cumulative: BigInt(2 * q), capture: 0n });
  });

  it('counts a stream that outlived its swept hold once, when it ends, for what it delivered', async () => {
    const p = await openChannel(3_000_000n);
    const stream = chatBody(MODEL, 'on a channel', { stream: true });
    const q = kasir.quote(stream);
    kasir.openai.setScript({ events: 4, delayMs: 150 });
    const running = Promise.resolve(call(await p.voucher(2 * q), stream)).then((r) => r.text());
    for (let i = 0; i < 100 && (await view(p.id)).in_flight === 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(await view(p.id)).toMatchObject({ spent: q, in_flight: q });
    expect((await sweepIn(TTL_SECONDS + 1)).swept.channelHoldsReleased).toBe(1);
    expect(await view(p.id)).toMatchObject({ spent: 0, in_flight: 0 });
    const text = await running;
    kasir.openai.setScript({});
    expect(text).toContain('data: [DONE]');
    // Charged as a stream is: the output the upstream reported (the fake's 13 tokens).
    const delivered = kasir.quote({ ...stream, max_tokens: 13 });
    expect(await view(p.id)).toMatchObject({ spent: delivered, in_flight: 0, units: 1 });
    expect((await close(p.id)).status).toBe(200);
    expect(escrow.closed.at(-1)).toEqual({ id: p.id, cumulative: BigInt(2 * q), capture: BigInt(delivered) });
  });
});
