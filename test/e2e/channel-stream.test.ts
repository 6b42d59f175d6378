// A streamed chat paid from a payment channel is metered: kasir holds the price of the input and a tranche of output
// ahead, asks for more with `event: payment-need-voucher` when the output reaches it, pauses until a higher voucher
// arrives at POST /v1/channels/{id}/vouchers (or ends cleanly when none does), and charges what was delivered.
// Real voucher signing, the in-process escrow and the fake OpenAI upstream streaming many tokens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens } from '../../src/catalog/tokenizer.js';
import { type FakeEscrow, startFakeEscrow } from '../fakes/channel-escrow.js';
import { DB_TARGETS, type DbTarget } from '../support/app.js';
import {
  CHAIN_ID,
  type ChannelPayer,
  channelEnv,
  chatWithVoucher,
  openChannelOn,
  payerOn,
} from '../support/channel-payer.js';
import { chatBody, type PaidKasir, startPaidKasir, startTwoPaidKasirs } from '../support/paid.js';
import { freshPostgres, postgresUp } from '../support/services.js';

const MODEL = 'openai/gpt-4.1';
const TRANCHE = 32;
const WAIT_MS = 1500;
const env = {
  ...channelEnv,
  MPP_CHANNEL_STREAM_TRANCHE_TOKENS: String(TRANCHE),
  MPP_CHANNEL_VOUCHER_WAIT_MS: String(WAIT_MS),
};
/** About a thousand tokens of answer, streamed as 100 deltas. */
const TEXT = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
const body = chatBody(MODEL, 'Count for me', { stream: true, max_tokens: 2000 });

interface SseEvent {
  event: string;
  data: string;
}

/** Reads an event stream as it comes: up to an event, whether it goes quiet, or to its end. */
class StreamReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private pending: ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']> | undefined;
  text = '';
  done = false;

  constructor(res: Response) {
    this.reader = (res.body as ReadableStream<Uint8Array>).getReader();
  }

  private async readOnce(ms = 10_000): Promise<boolean> {
    this.pending ??= this.reader.read();
    const read = this.pending;
    const timeout = new Promise<'quiet'>((r) => setTimeout(() => r('quiet'), ms));
    const got = await Promise.race([read, timeout]);
    if (got === 'quiet') return false;
    this.pending = undefined;
    if (got.done) this.done = true;
    else this.text += this.decoder.decode(got.value, { stream: true });
    return true;
  }

  /** Reads until the `nth` event named `name` has arrived; returns its data. */
  async until(name: string, nth = 1): Promise<Record<string, string>> {
    for (;;) {
      const found = this.events().filter((e) => e.event === name);
      if (found.length >= nth) return JSON.parse((found[nth - 1] as SseEvent).data);
      if (this.done || !(await this.readOnce())) throw new Error(`no ${name} event in ${this.text}`);
    }
  }

  /** Hangs up, as a caller that leaves mid-stream. */
  cancel(): Promise<void> {
    return this.reader.cancel();
  }

  /** True when nothing arrives for `ms`. */
  async quiet(ms: number): Promise<boolean> {
    return !(await this.readOnce(ms));
  }

  async rest(): Promise<SseEvent[]> {
    while (!this.done) if (!(await this.readOnce())) throw new Error('the stream stalled');
    return this.events();
  }

  events(): SseEvent[] {
    return this.text
      .split('\n\n')
      .filter((block) => block.trim() !== '')
      .map((block) => {
        const lines = block.split('\n');
        const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
        const data = lines.find((l) => l.startsWith('data: '))?.slice(6) ?? '';
        return { event, data };
      });
  }

  /** The output delivered so far, counted as kasir counts it: each delta's text with the tokenizer. */
  deliveredTokens(): number {
    let tokens = 0;
    for (const e of this.events()) {
      if (e.event !== 'message' || e.data === '[DONE]') continue;
      for (const choice of (JSON.parse(e.data).choices ?? []) as Array<{ delta?: { content?: string } }>)
        if (choice.delta?.content) tokens += countTokens(choice.delta.content);
    }
    return tokens;
  }
}

/** The data chunks of a finished stream: the finish chunk(s), the closing chunk with the cost, the receipt event. */
function ending(events: SseEvent[]) {
  const chunks = events
    .filter((e) => e.event === 'message' && e.data !== '[DONE]')
    .map((e) => JSON.parse(e.data) as Record<string, unknown>);
  const closing = chunks.at(-1) as {
    usage: { completion_tokens: number };
    costMicroUsd: number;
    receipt: Record<string, unknown>;
  };
  const finishes = chunks.flatMap((c) =>
    ((c.choices ?? []) as Array<{ finish_reason?: string | null }>).map((ch) => ch.finish_reason),
  );
  const receipt = events.find((e) => e.event === 'payment-receipt');
  return {
    closing,
    finish: finishes.filter(Boolean).at(-1),
    receipt: receipt ? (JSON.parse(receipt.data) as Record<string, string>) : undefined,
    done: events.at(-1)?.data === '[DONE]',
  };
}

describe.each(DB_TARGETS)('metered streams on a payment channel on %s', (db: DbTarget) => {
  let escrow: FakeEscrow;
  let kasir: PaidKasir;
  beforeAll(async () => {
    escrow = startFakeEscrow(CHAIN_ID);
    kasir = await startPaidKasir(db, env, undefined, { channelBackend: escrow });
  });
  afterAll(() => kasir?.stop());

  /** The price of the call had it produced `tokens` of output: the same rule and rounding as a quote. */
  const price = (tokens: number) => kasir.quote({ ...body, max_tokens: tokens });
  const quote = () => kasir.quote(body);

  const openChannel = (deposit: bigint) => openChannelOn(kasir, escrow, deposit);
  const stream = async (voucher: string) => chatWithVoucher(kasir, voucher, body);
  const sendVoucher = async (p: ChannelPayer, cumulative: number, signature?: string) =>
    kasir.app.request(`/v1/channels/${p.id}/vouchers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        cumulative: String(cumulative),
        signature: signature ?? (await p.sign(cumulative)),
      }),
    });
  const view = async (id: string) =>
    (await (await kasir.app.request(`/v1/channels/${id}`)).json()) as Record<string, number | string | null>;
  const usageOf = (requestId: string) =>
    kasir.deps.db.kysely
      .selectFrom('usage_records')
      .select(['quote_micro_usd', 'charged_micro_usd', 'rail'])
      .where('request_id', '=', requestId)
      .executeTakeFirstOrThrow();
  /** The next frames' output is somewhere in the next few deltas (a network read may carry several). */
  const requiredFor = (delivered: number) => {
    const pieces: number[] = [];
    for (let at = 0, size = Math.ceil(TEXT.length / 100); at < TEXT.length; at += size)
      pieces.push(countTokens(TEXT.slice(at, at + size)));
    let seen = 0;
    let i = 0;
    while (seen < delivered) seen += pieces[i++] as number;
    const candidates: number[] = [];
    for (let extra = 0, j = i; j < Math.min(i + 5, pieces.length); j++) {
      extra += pieces[j] as number;
      candidates.push(price(delivered + extra + TRANCHE));
    }
    return candidates;
  };

  it('needs a voucher for the input and the first tranche only, not the whole ceiling', async () => {
    const p = await openChannel(1_000_000n);
    kasir.openai.setScript({ text: TEXT, events: 100 });
    const short = await stream(await p.voucher(price(TRANCHE) - 1));
    expect(short.status).toBe(402);
    expect(await short.json()).toMatchObject({
      error: { details: { refused: { required_cumulative: price(TRANCHE) } } },
    });
    expect(price(TRANCHE)).toBeLessThan(quote() / 10);
  });

  it('pauses with payment-need-voucher, resumes on a voucher sent to the channel, and charges the output delivered', async () => {
    const p = await openChannel(1_000_000n);
    const first = price(TRANCHE);
    const completion = countTokens(TEXT);
    kasir.openai.setScript({ text: TEXT, events: 100, delayMs: 2, usage: { prompt: 12, completion } });
    const res = await stream(await p.voucher(first));
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id') as string;
    const reader = new StreamReader(res);

    const ask = await reader.until('payment-need-voucher');
    const delivered = reader.deliveredTokens();
    expect(price(delivered)).toBeLessThanOrEqual(first);
    expect(ask).toMatchObject({
      channelId: p.id.toLowerCase(),
      acceptedCumulative: String(first),
      deposit: '1000000',
    });
    expect(requiredFor(delivered)).toContain(Number(ask.requiredCumulative));
    // Paused: nothing more comes while no voucher does.
    expect(await reader.quiet(300)).toBe(true);
    expect(await view(p.id)).toMatchObject({ spent: first, in_flight: first });

    const sent = await sendVoucher(p, Number(ask.requiredCumulative));
    expect(sent.status).toBe(200);
    expect(await sent.json()).toMatchObject({ accepted_cumulative: Number(ask.requiredCumulative) });
    // It resumes and, a tranche later, asks again.
    const again = await reader.until('payment-need-voucher', 2);
    expect(again.acceptedCumulative).toBe(ask.requiredCumulative);
    expect(Number(again.requiredCumulative)).toBeGreaterThan(Number(ask.requiredCumulative));

    // A voucher for the whole ceiling lets it finish.
    expect((await sendVoucher(p, quote())).status).toBe(200);
    const end = ending(await reader.rest());
    const cost = price(completion);
    expect(end.done).toBe(true);
    expect(end.finish).toBe('stop');
    expect(end.closing).toMatchObject({ usage: { completion_tokens: completion }, costMicroUsd: cost });
    expect(end.closing.receipt).toMatchObject({ rail: 'channel', charged_micro_usd: cost, spent: cost });
    expect(end.receipt).toMatchObject({
      intent: 'session',
      channelId: p.id.toLowerCase(),
      acceptedCumulative: String(quote()),
      spent: String(cost),
    });
    expect(cost).toBeLessThan(quote());
    expect(await view(p.id)).toMatchObject({
      spent: cost,
      in_flight: 0,
      units: 1,
      accepted_cumulative: quote(),
    });
    expect(await usageOf(requestId)).toEqual({
      quote_micro_usd: quote(),
      charged_micro_usd: cost,
      rail: 'channel',
    });
  });

  it('ends cleanly when no voucher comes within the wait, charging what was delivered', async () => {
    const p = await openChannel(1_000_000n);
    const first = price(TRANCHE);
    // Paced so that the upstream is still sending when the wait ends.
    kasir.openai.setScript({ text: TEXT, events: 100, delayMs: 30 });
    const res = await stream(await p.voucher(first));
    const reader = new StreamReader(res);
    const started = Date.now();
    const events = await reader.rest();
    expect(Date.now() - started).toBeGreaterThanOrEqual(WAIT_MS - 100);
    expect(events.filter((e) => e.event === 'payment-need-voucher')).toHaveLength(1);
    const delivered = reader.deliveredTokens();
    const end = ending(events);
    expect(end.done).toBe(true);
    expect(end.finish).toBe('length');
    expect(end.closing).toMatchObject({
      usage: { completion_tokens: delivered },
      costMicroUsd: price(delivered),
    });
    expect(end.receipt).toMatchObject({ spent: String(price(delivered)) });
    expect(price(delivered)).toBeLessThanOrEqual(first);
    expect(await view(p.id)).toMatchObject({ spent: price(delivered), in_flight: 0, units: 1 });
    // The upstream was stopped.
    const upstream = kasir.openai.requests.at(-1);
    for (let i = 0; i < 100 && !upstream?.clientClosed; i++) await new Promise((r) => setTimeout(r, 10));
    expect(upstream?.clientClosed).toBe(true);
  });

  it('ends at once, without asking, when the deposit cannot cover more', async () => {
    const first = price(TRANCHE);
    const p = await openChannel(BigInt(first));
    kasir.openai.setScript({ text: TEXT, events: 100 });
    const reader = new StreamReader(await stream(await p.voucher(first)));
    const events = await reader.rest();
    expect(events.some((e) => e.event === 'payment-need-voucher')).toBe(false);
    const delivered = reader.deliveredTokens();
    expect(ending(events)).toMatchObject({ done: true, finish: 'length' });
    expect(ending(events).closing.costMicroUsd).toBe(price(delivered));
    expect(await view(p.id)).toMatchObject({ spent: price(delivered), in_flight: 0 });
  });

  it('keeps the channel exact while other calls spend from it during the stream', async () => {
    const p = await openChannel(1_000_000n);
    const other = chatBody(MODEL, 'meanwhile', { max_tokens: 16 });
    const q2 = kasir.quote(other);
    const v1 = price(TRANCHE) + 3 * q2;
    kasir.openai.setScript({ text: TEXT, events: 100, delayMs: 2 });
    const res = await stream(await p.voucher(v1));
    expect(res.status).toBe(200);
    const reader = new StreamReader(res);
    const voucher = await p.voucher(v1);
    const others = await Promise.all(Array.from({ length: 5 }, () => chatWithVoucher(kasir, voucher, other)));
    const served = others.filter((r) => r.status === 200).length;
    expect(others.filter((r) => r.status === 402)).toHaveLength(5 - served);
    await reader.until('payment-need-voucher');
    const paused = await view(p.id);
    expect(paused.spent as number).toBeLessThanOrEqual(v1);
    expect((await sendVoucher(p, v1 + quote())).status).toBe(200);
    const end = ending(await reader.rest());
    expect(end.finish).toBe('stop');
    const after = await view(p.id);
    expect(after).toMatchObject({
      spent: end.closing.costMicroUsd + served * q2,
      in_flight: 0,
      units: 1 + served,
    });
  });

  it('charges nothing when the upstream fails mid-stream', async () => {
    const p = await openChannel(1_000_000n);
    kasir.openai.setScript({ text: TEXT, events: 100, failure: { kind: 'die', afterEvents: 20 } });
    const res = await stream(await p.voucher(quote()));
    const requestId = res.headers.get('x-request-id') as string;
    const events = await new StreamReader(res).rest();
    expect(events.at(-1)?.event).toBe('error');
    expect(await view(p.id)).toMatchObject({ spent: 0, in_flight: 0, units: 0 });
    expect((await usageOf(requestId)).charged_micro_usd).toBe(0);
  });

  it('charges a caller who leaves mid-stream for what was delivered', async () => {
    const p = await openChannel(1_000_000n);
    const first = price(TRANCHE);
    kasir.openai.setScript({ text: TEXT, events: 100, delayMs: 2 });
    const reader = new StreamReader(await stream(await p.voucher(first)));
    await reader.until('payment-need-voucher');
    const delivered = reader.deliveredTokens();
    await reader.cancel();
    for (let i = 0; i < 200 && (await view(p.id)).in_flight !== 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(await view(p.id)).toMatchObject({ spent: price(delivered), in_flight: 0, units: 1 });
  });

  it('takes a voucher on its own as a call does: lower, badly signed or malformed refused', async () => {
    const p = await openChannel(1_000_000n);
    expect((await sendVoucher(p, 5000)).status).toBe(200);
    expect((await sendVoucher(p, 5000)).status).toBe(200);
    const lower = await sendVoucher(p, 4000);
    expect(lower.status).toBe(402);
    expect(await lower.json()).toMatchObject({
      type: 'https://paymentauth.org/problems/session/delta-too-small',
    });
    const other = payerOn(escrow, 1_000_000n);
    const forged = await sendVoucher(p, 6000, await other.sign(6000));
    expect(forged.status).toBe(402);
    expect(await forged.json()).toMatchObject({
      type: 'https://paymentauth.org/problems/session/invalid-signature',
    });
    const above = await sendVoucher(p, 1_000_001);
    expect(await above.json()).toMatchObject({
      type: 'https://paymentauth.org/problems/session/amount-exceeds-deposit',
    });
    const malformed = await kasir.app.request(`/v1/channels/${p.id}/vouchers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ cumulative: -1, signature: '0x12' }),
    });
    expect(malformed.status).toBe(400);
    expect(JSON.stringify(await malformed.json())).toContain('cumulative');
    expect(await view(p.id)).toMatchObject({ accepted_cumulative: 5000, spent: 0 });
  });
});

describe('a metered stream on one instance, its voucher sent to another', () => {
  it.runIf(postgresUp)(
    'resumes when the voucher lands on the other instance (PostgreSQL)',
    async () => {
      const pg = await freshPostgres();
      const escrow = startFakeEscrow(CHAIN_ID);
      const shared = { ...env, DATABASE_URL: pg.url };
      const [one, two] = await startTwoPaidKasirs('postgres', shared, { channelBackend: escrow });
      try {
        const p = await openChannelOn(one, escrow, 1_000_000n);
        const q = one.quote(body);
        one.openai.setScript({ text: TEXT, events: 100, delayMs: 2 });
        const res = await one.app.request('/v1/chat/completions', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'payment-voucher': await p.voucher(one.quote({ ...body, max_tokens: TRANCHE })),
          },
          body: JSON.stringify(body),
        });
        const reader = new StreamReader(res);
        await reader.until('payment-need-voucher');
        const sent = await two.app.request(`/v1/channels/${p.id}/vouchers`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ cumulative: String(q), signature: await p.sign(q) }),
        });
        expect(sent.status).toBe(200);
        const end = ending(await reader.rest());
        expect(end).toMatchObject({ done: true, finish: 'stop' });
        const row = await one.deps.db.kysely
          .selectFrom('payment_channels')
          .select(['spent', 'in_flight'])
          .where('id', '=', p.id.toLowerCase())
          .executeTakeFirstOrThrow();
        expect(row).toEqual({ spent: end.closing.costMicroUsd, in_flight: 0 });
      } finally {
        await two.stop();
        await one.stop();
        await pg.drop();
      }
    },
    60_000,
  );
});
