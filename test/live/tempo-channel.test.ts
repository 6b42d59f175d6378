/**
 * The live tier of payment channels: against a real Tempo node with the TIP-1034 escrow (no local node has it), kasir
 * reads a channel opened there and registers it. Run by `npm run test:live` with TEMPO_LIVE_RPC_URL (the node),
 * TEMPO_LIVE_CHAIN_ID and TEMPO_LIVE_CHANNEL (the channel's descriptor as JSON, its payee the MPP_TEMPO_RECIPIENT
 * below); skipped with a notice otherwise, or when the node does not answer.
 */
import { generatePrivateKey } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import type { ChannelDescriptor } from '../../src/rails/channel/backend.js';
import { startPaidKasir } from '../support/paid.js';

const live = process.env.KASIR_LIVE === '1';
const rpcUrl = process.env.TEMPO_LIVE_RPC_URL;
const channel = process.env.TEMPO_LIVE_CHANNEL;

async function reachable(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(5000),
    });
    return res.ok;
  } catch {
    return false;
  }
}

describe.runIf(live)('payment channels on a real Tempo node', () => {
  it('registers a channel opened on the node, with its deposit read from the escrow', async () => {
    if (!rpcUrl || !channel || !(await reachable(rpcUrl))) {
      console.warn(
        'tempo channel tier skipped: set TEMPO_LIVE_RPC_URL, TEMPO_LIVE_CHAIN_ID and TEMPO_LIVE_CHANNEL to a reachable Tempo node and an open channel',
      );
      return;
    }
    const descriptor = JSON.parse(channel) as ChannelDescriptor;
    const kasir = await startPaidKasir('sqlite', {
      MPP_TEMPO_RECIPIENT: descriptor.payee,
      MPP_TEMPO_RPC_URL: rpcUrl,
      MPP_TEMPO_CHAIN_ID: process.env.TEMPO_LIVE_CHAIN_ID ?? '42431',
      MPP_TEMPO_CURRENCY: descriptor.token,
      MPP_CHANNEL_OPERATOR_KEY: generatePrivateKey(),
    });
    try {
      const res = await kasir.app.request('/v1/channels', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ descriptor }),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { deposit: number }).deposit).toBeGreaterThan(0);
    } finally {
      await kasir.stop();
    }
  }, 60_000);
});
