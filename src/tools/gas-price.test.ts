// tools/gas-price on each database: gas from eth_feeHistory (or eth_gasPrice) priced in dollars, and
// refusals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeCoinGecko } from '../../test/fakes/coingecko.js';
import { type FakeRpcNode, startFakeRpcNode } from '../../test/fakes/json-rpc-node.js';
import type { FakeJsonUpstream } from '../../test/fakes/json-upstream.js';
import { DB_TARGETS } from '../../test/support/app.js';
import { startToolKit, type ToolKit } from '../../test/support/tool-kit.js';

describe.each(DB_TARGETS)('tools/gas-price on %s', (db) => {
  let node: FakeRpcNode;
  let gecko: FakeJsonUpstream;
  let kit: ToolKit;
  beforeAll(async () => {
    node = await startFakeRpcNode();
    gecko = await startFakeCoinGecko();
    kit = await startToolKit(db, {
      RPC_URLS: `ethereum=${node.url},base=${node.url},bsc=${node.url}`,
      COINGECKO_BASE_URL: gecko.url,
    });
  });
  afterAll(async () => {
    await kit.stop();
    await node.close();
    await gecko.close();
  });

  it('prices gas from eth_feeHistory (next base fee + median tip) and the coin in dollars; cached', async () => {
    const { body, res } = await kit.paid('gas-price', { chain: 'ethereum' });
    expect(res.headers.get('x-cache')).toBe('miss');
    const { tool: _t, costMicroUsd: _c, receipt: _r, ...fields } = body;
    expect(fields).toEqual({
      chain: 'ethereum',
      gas_price_gwei: 1.2,
      priority_fee_gwei: 0.1,
      native_symbol: 'ETH',
      gas_limit: 21000,
      estimated_cost_native: 0.0000252,
      estimated_cost_usd: 0.0832298,
    });
    expect(node.requests.at(-1)?.body).toMatchObject({
      method: 'eth_feeHistory',
      params: ['0x5', 'latest', [50]],
    });
    expect(gecko.requests.at(-1)?.query.get('ids')).toBe('ethereum');
    const seen = node.requests.length;
    expect((await kit.paid('gas-price', { chain: 'ethereum' })).res.headers.get('x-cache')).toBe('hit');
    expect(node.requests.length).toBe(seen);
  });

  it('falls back to eth_gasPrice where the node has no fee history, and prices the chain’s own coin', async () => {
    node.setNoFeeHistory(true);
    try {
      const { body } = await kit.paid('gas-price', { chain: 'bsc', gasLimit: 100_000 });
      expect(body).toMatchObject({
        gas_price_gwei: 20,
        priority_fee_gwei: null,
        native_symbol: 'BNB',
        gas_limit: 100000,
      });
      expect(body.estimated_cost_native).toBe(0.002);
      expect(body.estimated_cost_usd).toBe(1.8256);
    } finally {
      node.setNoFeeHistory(false);
    }
  });

  it('refuses a chain outside the list or a gas limit out of range; 502 when the node is down; nothing charged', async () => {
    expect((await kit.refused('gas-price', { chain: 'solana' }, 400)).error.param).toBe('chain');
    expect((await kit.refused('gas-price', { chain: 'base', gasLimit: 100 }, 400)).error.param).toBe(
      'gasLimit',
    );
    node.fail('down');
    try {
      expect((await kit.refused('gas-price', { chain: 'base' }, 502)).error.message).toContain(
        'base rpc node',
      );
    } finally {
      node.fail(null);
    }
  });
});
