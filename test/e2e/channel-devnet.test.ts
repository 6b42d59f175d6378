// Payment channels against a real node: registering a channel never answers 500 — a Tempo node without the escrow
// is a 503 naming MPP_CHANNEL_ESCROW, a node that cannot be reached a 502.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTempoDevnet, type TempoDevnet } from '../../src/devnet/tempo.js';
import type { ChannelDescriptor } from '../../src/rails/channel/backend.js';
import { postJson } from '../support/app.js';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';

const ZERO = '0x0000000000000000000000000000000000000000';

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

  const kasirOn = async (rpcUrl: string) => {
    const kasir = await startPaidKasir('sqlite', {
      MPP_TEMPO_RECIPIENT: tempo.recipient.address,
      MPP_TEMPO_RPC_URL: rpcUrl,
      MPP_TEMPO_CHAIN_ID: String(tempo.chainId),
      MPP_TEMPO_CURRENCY: tempo.currency,
      MPP_CHANNEL_OPERATOR_KEY: generatePrivateKey(),
    });
    kasirs.push(kasir);
    return kasir;
  };

  it('answers 503 naming the escrow setting when the node has no escrow contract', async () => {
    const kasir = await kasirOn(tempo.rpcUrl);
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
});
