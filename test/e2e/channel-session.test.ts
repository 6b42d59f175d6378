// Payment channels paid by mppx's own session client, unmodified, on the devnet's Tempo chain (anvil with the
// TIP-1034 escrow contract at the precompile's address): it opens a channel from a 402's session challenge, pays
// many calls by voucher, answers a metered stream's `payment-need-voucher` with a higher voucher, and closes. Money
// is exact on chain and in kasir's books; a replayed or stale voucher is refused; no channel route answers 500.
import { Credential } from 'mppx';
import { sessionManager } from 'mppx/client';
import { Session } from 'mppx/tempo';
import { parseEventLogs, publicActions } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempoChargeEnv } from '../../src/devnet/command.js';
import { startTempoDevnet, type TempoDevnet } from '../../src/devnet/tempo.js';
import { chatBody, type PaidKasir, startPaidKasir } from '../support/paid.js';

const URL_BASE = 'http://kasir.test';
const CHAT = `${URL_BASE}/v1/chat/completions`;
const MODEL = 'openai/gpt-4.1-mini';
const TRANCHE = 16;
/** A long streamed answer (about a thousand tokens in 100 deltas): it outgrows its first tranche many times. */
const TEXT = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');

interface Sent {
  method: string;
  authorization: string | null;
  hasBody: boolean;
  status: number;
}

describe('payment channels with the mppx session client on the devnet', () => {
  let chain: TempoDevnet;
  let kasir: PaidKasir;

  beforeAll(async () => {
    chain = await startTempoDevnet();
    kasir = await startPaidKasir('sqlite', {
      ...tempoChargeEnv(chain),
      MPP_CHANNEL_OPERATOR_KEY: chain.channelOperator.privateKey,
      MPP_CHANNEL_ESCROW: chain.escrow,
      MPP_CHANNEL_STREAM_TRANCHE_TOKENS: String(TRANCHE),
      MPP_CHANNEL_VOUCHER_WAIT_MS: '10000',
      PUBLIC_BASE_URL: URL_BASE,
    });
  }, 60_000);
  afterAll(async () => {
    await kasir?.stop();
    await chain?.stop();
  });

  const reader = () => chain.client().extend(publicActions);
  const channelRow = (id: string) =>
    kasir.deps.db.kysely
      .selectFrom('payment_channels')
      .selectAll()
      .where('id', '=', id.toLowerCase())
      .executeTakeFirstOrThrow();
  const chargedOnChannel = async () => {
    const rows = await kasir.deps.db.kysely
      .selectFrom('usage_records')
      .select(['charged_micro_usd'])
      .where('rail', '=', 'channel')
      .execute();
    return rows.reduce((sum, r) => sum + Number(r.charged_micro_usd), 0);
  };

  it('opens, pays many calls, meters a stream with a voucher top-up, closes; money exact', async () => {
    const payer = await chain.fundPayer(50_000_000n);
    const sent: Sent[] = [];
    const fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      const res = await kasir.app.request(String(input), init);
      sent.push({
        method: init?.method ?? 'GET',
        authorization: headers.get('authorization'),
        hasBody: init?.body != null,
        status: res.status,
      });
      return res;
    };
    const manager = sessionManager({
      account: privateKeyToAccount(payer.privateKey),
      client: chain.client(),
      maxDeposit: '5',
      fetch: fetch as typeof globalThis.fetch,
    });
    const payerBefore = await chain.balanceOf(payer.address);
    const payeeBefore = await chain.balanceOf(chain.recipient.address);

    // Many calls, each paid by a voucher (the first one's credential also opens the channel).
    const CALLS = 6;
    for (let i = 0; i < CALLS; i++) {
      const res = await manager.fetch(CHAT, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(chatBody(MODEL, `call ${i}`)),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      expect(res.receipt?.channelId).toBe(manager.channelId);
    }
    const channelId = manager.channelId as `0x${string}`;
    expect(channelId).toMatch(/^0x[0-9a-f]{64}$/);
    const afterCalls = await channelRow(channelId);
    expect(afterCalls.spent).toBe(await chargedOnChannel());
    expect(BigInt(afterCalls.accepted)).toBe(manager.cumulative);
    const deposit = afterCalls.deposit;
    expect(deposit).toBe(5_000_000);
    // An earlier call's voucher, sent again: below what the channel accepted since, refused.
    const stale = sent.find(
      (s) => s.status === 200 && s.authorization && Credential.deserialize(s.authorization).payload,
    );
    const voucherCalls = sent.filter(
      (s) =>
        s.authorization &&
        (Credential.deserialize(s.authorization).payload as { action?: string }).action === 'voucher',
    );
    expect(voucherCalls.length).toBeGreaterThanOrEqual(CALLS - 1);
    const replay = await kasir.app.request(CHAT, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: voucherCalls[0]?.authorization as string,
      },
      body: JSON.stringify(chatBody(MODEL, 'replayed')),
    });
    expect(replay.status).toBe(402);
    expect(((await replay.json()) as { error: { code: string } }).error.code).toBe('voucher_too_low');
    // The open credential sent again: not broadcast again, and its voucher is stale too.
    const open = sent.find(
      (s) =>
        s.authorization &&
        (Credential.deserialize(s.authorization).payload as { action?: string }).action === 'open',
    );
    const reopened = await kasir.app.request(CHAT, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: open?.authorization as string },
      body: JSON.stringify(chatBody(MODEL, 'opened again')),
    });
    expect(reopened.status).toBe(402);
    expect(((await reopened.json()) as { error: { code: string } }).error.code).toBe('voucher_too_low');
    expect(stale).toBeDefined();

    // A metered stream: the voucher covers its first tranche; kasir asks for more, the client sends it, it goes on.
    const completion = 1000;
    kasir.openai.setScript({ text: TEXT, events: 100, delayMs: 2, usage: { prompt: 12, completion } });
    const before = sent.length;
    const stream = await manager.sse(CHAT, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chatBody(MODEL, 'Count for me', { stream: true, max_tokens: 2000 })),
    });
    let text = '';
    for await (const data of stream) {
      if (data === '[DONE]') break;
      const chunk = JSON.parse(data) as { choices?: Array<{ delta?: { content?: string } }> };
      text += chunk.choices?.map((c) => c.delta?.content ?? '').join('') ?? '';
    }
    expect(text).toBe(TEXT);
    // The top-ups: bodiless POSTs of a voucher credential (management), each answered 200 with a receipt.
    const topUps = sent
      .slice(before)
      .filter((s) => s.method === 'POST' && !s.hasBody && s.authorization?.startsWith('Payment'));
    expect(topUps.length).toBeGreaterThan(0);
    expect(topUps.every((s) => s.status === 200)).toBe(true);
    const afterStream = await channelRow(channelId);
    expect(afterStream.spent).toBeGreaterThan(afterCalls.spent);
    expect(afterStream.spent).toBe(await chargedOnChannel());
    expect(afterStream.in_flight).toBe(0);

    // Close: the payer's final voucher, the channel closed on chain capturing exactly what was spent.
    const receipt = await manager.close();
    expect(receipt?.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const closed = await channelRow(channelId);
    expect(closed.finalized_at).not.toBeNull();
    const spent = closed.spent;
    expect(spent).toBe(afterStream.spent);
    expect(spent).toBe(await chargedOnChannel());
    expect(Number(receipt?.spent)).toBe(spent);

    const tx = await reader().getTransactionReceipt({ hash: receipt?.txHash as `0x${string}` });
    expect(tx.status).toBe('success');
    const [event] = parseEventLogs({
      abi: Session.Precompile.escrowAbi,
      eventName: 'ChannelClosed',
      logs: tx.logs,
    });
    expect(event?.args.settledToPayee).toBe(BigInt(spent));
    expect(event?.args.refundedToPayer).toBe(BigInt(deposit - spent));
    // On chain: the payee got exactly what was spent; the escrow holds nothing of this channel.
    expect((await chain.balanceOf(chain.recipient.address)) - payeeBefore).toBe(BigInt(spent));
    expect(await chain.balanceOf(chain.escrow)).toBe(0n);
    // The payer paid the spend and its own network fees (in pathUSD) — never more than it spent plus the open's fee.
    const payerPaid = payerBefore - (await chain.balanceOf(payer.address));
    expect(payerPaid).toBeGreaterThanOrEqual(BigInt(spent));

    // After the close, any voucher on the channel is refused (410), the close itself is idempotent.
    const after = await kasir.app.request(CHAT, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: voucherCalls.at(-1)?.authorization as string,
      },
      body: JSON.stringify(chatBody(MODEL, 'after close')),
    });
    expect(after.status).toBe(410);
  }, 120_000);
});
