// Payment channels against a real node: registering a channel never answers 500 — an escrow setting that names an
// address without the escrow is a 503 naming MPP_CHANNEL_ESCROW, a node that cannot be reached a 502, a channel the
// devnet's escrow does not hold a 410. And no channel route answers 500 to any input, with channels on or off.
import { Challenge, Credential } from 'mppx';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTempoDevnet, type TempoDevnet } from '../../src/devnet/tempo.js';
import type { ChannelDescriptor } from '../../src/rails/channel/backend.js';
import { postJson } from '../support/app.js';
import { chatBody, type PaidKasir, startPaidKasir } from '../support/paid.js';

const ZERO = '0x0000000000000000000000000000000000000000';
const NO_ESCROW = '0x00000000000000000000000000000000000e5c00';

function descriptorTo(payee: `0x${string}`, token: `0x${string}`): ChannelDescriptor {
  return {
    payer: privateKeyToAccount(generatePrivateKey()).address,
    payee,
    operator: ZERO,
    token,
    salt: `0x${'11'.repeat(32)}`,
    authorizedSigner: ZERO,
    expiringNonceHash: `0x${'22'.repeat(32)}`,
  };
}

describe('registering a payment channel when the chain cannot answer', () => {
  let tempo: TempoDevnet;
  const kasirs: PaidKasir[] = [];
  beforeAll(async () => {
    tempo = await startTempoDevnet();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(kasirs.map((k) => k.stop()));
    await tempo?.stop();
  });

  const kasirOn = async (rpcUrl: string, escrow?: string) => {
    const kasir = await startPaidKasir('sqlite', {
      MPP_TEMPO_RECIPIENT: tempo.recipient.address,
      MPP_TEMPO_RPC_URL: rpcUrl,
      MPP_TEMPO_CHAIN_ID: String(tempo.chainId),
      MPP_TEMPO_CURRENCY: tempo.currency,
      MPP_CHANNEL_OPERATOR_KEY: generatePrivateKey(),
      ...(escrow ? { MPP_CHANNEL_ESCROW: escrow } : {}),
    });
    kasirs.push(kasir);
    return kasir;
  };

  it('answers 503 naming the escrow setting when the node has no escrow contract', async () => {
    // The devnet's node has the escrow at the TIP-1034 address; this setting names an address with no code.
    const kasir = await kasirOn(tempo.rpcUrl, NO_ESCROW);
    const res = await postJson(kasir, '/v1/channels', {
      descriptor: descriptorTo(tempo.recipient.address, tempo.currency),
    });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('not_configured');
    expect(body.error.message).toContain('MPP_CHANNEL_ESCROW');
  });

  it('answers 502 when the node cannot be reached', async () => {
    const kasir = await kasirOn('http://127.0.0.1:9');
    const res = await postJson(kasir, '/v1/channels', {
      descriptor: descriptorTo(tempo.recipient.address, tempo.currency),
    });
    expect(res.status).toBe(502);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('upstream_error');
  });

  /** Every channel route and credential with bad, unknown or forged input: all answered, none with a 500. */
  async function neverFails(kasir: PaidKasir, on: boolean) {
    const chat = chatBody('openai/gpt-4.1-mini', 'hi');
    const unpaid = await postJson(kasir, '/v1/chat/completions', chat);
    const session = Challenge.fromResponseList(unpaid).find((c) => c.intent === 'session');
    expect(Boolean(session)).toBe(on);
    const id = `0x${'ab'.repeat(32)}`;
    const signature = `0x${'11'.repeat(65)}`;
    const descriptor = descriptorTo(tempo.recipient.address, tempo.currency);
    const credential = (payload: Record<string, unknown>, challenge = session) =>
      Credential.serialize({ challenge: challenge as Challenge.Challenge, payload } as never);
    const forged = session && { ...session, id: 'not-issued-here' };
    const asSession = (payload: Record<string, unknown>, init: { body?: unknown } = { body: chat }) =>
      session
        ? kasir.app.request('/v1/chat/completions', {
            method: 'POST',
            headers: {
              authorization: credential(payload),
              ...(init.body ? { 'content-type': 'application/json' } : {}),
            },
            ...(init.body ? { body: JSON.stringify(init.body) } : {}),
          })
        : null;
    const cases: Array<[string, Response | Promise<Response> | null, { status?: number; field?: string }]> = [
      ['register: no descriptor', postJson(kasir, '/v1/channels', {}), { status: 400, field: 'descriptor' }],
      ['register: not JSON', postJson(kasir, '/v1/channels', '{'), { status: 400 }],
      [
        'register: bad payer',
        postJson(kasir, '/v1/channels', { descriptor: { ...descriptor, payer: '0x12' } }),
        { status: 400, field: 'descriptor.payer' },
      ],
      [
        'register: unknown channel',
        postJson(kasir, '/v1/channels', { descriptor }),
        { status: on ? 410 : 503 },
      ],
      ['read: bad id', kasir.app.request('/v1/channels/0x1234'), { status: 400, field: 'id' }],
      ['read: unknown id', kasir.app.request(`/v1/channels/${id}`), { status: on ? 404 : 503 }],
      [
        'voucher: bad body',
        postJson(kasir, `/v1/channels/${id}/vouchers`, { cumulative: -1 }),
        { status: 400, field: 'cumulative' },
      ],
      [
        'voucher: unknown channel',
        postJson(kasir, `/v1/channels/${id}/vouchers`, { cumulative: '5', signature }),
        { status: on ? 410 : 503 },
      ],
      ['close: unknown channel', postJson(kasir, `/v1/channels/${id}/close`, {}), { status: on ? 410 : 503 }],
      [
        'Payment-Voucher: unreadable',
        postJson(kasir, '/v1/chat/completions', chat, { 'payment-voucher': 'channel=nope' }),
        {},
      ],
      [
        'Payment credential: unreadable',
        postJson(kasir, '/v1/chat/completions', chat, { authorization: 'Payment !!!' }),
        {},
      ],
      [
        'session: forged challenge',
        forged
          ? postJson(kasir, '/v1/chat/completions', chat, {
              authorization: credential(
                { action: 'voucher', channelId: id, cumulativeAmount: '5', signature },
                forged,
              ),
            })
          : null,
        { status: 402 },
      ],
      ['session: no action', asSession({ channelId: id }), { status: 402 }],
      [
        'session: voucher on an unknown channel',
        asSession({ action: 'voucher', channelId: id, cumulativeAmount: '5', signature }),
        { status: 410 },
      ],
      [
        'session: voucher with a bad amount',
        asSession({ action: 'voucher', channelId: id, cumulativeAmount: 'lots', signature }),
        { status: 402 },
      ],
      [
        'session: open without a descriptor',
        asSession({ action: 'open', type: 'transaction', channelId: id, cumulativeAmount: '5', signature }),
        { status: 400, field: 'payload.descriptor' },
      ],
      [
        'session: open with an unreadable transaction',
        asSession({
          action: 'open',
          type: 'transaction',
          channelId: id,
          transaction: '0x76deadbeef',
          descriptor: { ...descriptor, operator: ZERO },
          cumulativeAmount: '5',
          signature,
        }),
        {},
      ],
      [
        'session: close of an unknown channel',
        asSession({ action: 'close', channelId: id, cumulativeAmount: '5', signature }, {}),
        { status: 410 },
      ],
      [
        'session: top-up with a bad amount',
        asSession({ action: 'topUp', channelId: id, additionalDeposit: 7, transaction: '0x76' }, {}),
        { status: 410 },
      ],
    ];
    for (const [what, pending, expected] of cases) {
      if (pending === null) continue;
      const res = await pending;
      const text = await res.text();
      expect(res.status, `${what}: ${text}`).not.toBe(500);
      // Bad input is the caller's (4xx); only channels being off here is the server's (503 naming the settings).
      if (expected.status) expect(res.status, `${what}: ${text}`).toBe(expected.status);
      else expect([res.status >= 400, res.status < 500], `${what}: ${text}`).toEqual([true, true]);
      if (expected.field) expect(text, what).toContain(expected.field);
    }
  }

  it('never answers 500 on a channel route or credential with channels on (the devnet escrow)', async () => {
    await neverFails(await kasirOn(tempo.rpcUrl, tempo.escrow), true);
  });

  it('never answers 500 on a channel route or credential with channels off', async () => {
    const kasir = await startPaidKasir('sqlite', {
      MPP_TEMPO_RECIPIENT: tempo.recipient.address,
      MPP_TEMPO_RPC_URL: tempo.rpcUrl,
      MPP_TEMPO_CHAIN_ID: String(tempo.chainId),
      MPP_TEMPO_CURRENCY: tempo.currency,
    });
    kasirs.push(kasir);
    await neverFails(kasir, false);
  });
});
