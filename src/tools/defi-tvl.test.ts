// tools/defi-tvl on each database: a protocol's or chain's TVL from DefiLlama, and its refusals and failures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDefiLlama } from '../../test/fakes/defillama.js';
import type { FakeJsonUpstream } from '../../test/fakes/json-upstream.js';
import { DB_TARGETS } from '../../test/support/app.js';
import { startToolKit, type ToolKit } from '../../test/support/tool-kit.js';

describe.each(DB_TARGETS)('tools/defi-tvl on %s', (db) => {
  let fake: FakeJsonUpstream;
  let kit: ToolKit;
  beforeAll(async () => {
    fake = await startFakeDefiLlama();
    kit = await startToolKit(db, { DEFILLAMA_BASE_URL: fake.url });
  });
  afterAll(async () => {
    await kit.stop();
    await fake.close();
  });

  it("answers a protocol's TVL without borrowed or staking rows; the same call again is a paid cache hit", async () => {
    const { body, res } = await kit.paid('defi-tvl', { protocol: 'Aave' });
    expect(res.headers.get('x-cache')).toBe('miss');
    const { receipt, ...fields } = body;
    expect(receipt).toMatchObject({ rail: 'prepaid', charged_micro_usd: 10_000 });
    expect(fields).toEqual({
      tool: 'tools/defi-tvl',
      costMicroUsd: 10_000,
      protocol: 'Aave',
      symbol: 'AAVE',
      tvl_usd: 23000000000.75,
      change_1d_pct: -2.1277,
      change_7d_pct: 4.5455,
      market_cap_usd: 4213456789.12,
      chains: [
        { chain: 'Ethereum', tvl_usd: 21000000000.5 },
        { chain: 'Arbitrum', tvl_usd: 1200000000.25 },
        { chain: 'Base', tvl_usd: 800000000 },
      ],
      source: 'defillama',
    });
    const seen = fake.requests.length;
    expect((await kit.paid('defi-tvl', { protocol: 'Aave' })).res.headers.get('x-cache')).toBe('hit');
    expect(fake.requests.length).toBe(seen);
  });

  it("answers a chain's TVL and rank, and the largest chains with the total", async () => {
    const { body: base } = await kit.paid('defi-tvl', { chain: 'base' });
    expect(base).toMatchObject({
      chain: 'Base',
      tvl_usd: 4123456789,
      rank: 4,
      chains_ranked: 5,
      source: 'defillama',
    });
    const { body: top } = await kit.paid('defi-tvl', { limit: 2 });
    expect(top.top_chains).toEqual([
      { chain: 'Ethereum', tvl_usd: 63123456789.1 },
      { chain: 'Solana', tvl_usd: 9123456789.4 },
    ]);
    expect(top.total_defi_tvl_usd).toBe(84217283945.7);
  });

  it('refuses bad input or an unknown protocol or chain, naming the field; nothing charged', async () => {
    expect((await kit.refused('defi-tvl', { limit: 0 }, 400)).error.param).toBe('limit');
    expect((await kit.refused('defi-tvl', { protocol: 'nope-finance' }, 404)).error.param).toBe('protocol');
    expect((await kit.refused('defi-tvl', { chain: 'atlantis' }, 404)).error.param).toBe('chain');
  });

  it('answers 502 naming defillama when it is down; nothing charged', async () => {
    fake.fail('down');
    try {
      expect((await kit.refused('defi-tvl', { chain: 'solana' }, 502)).error.message).toContain('defillama');
    } finally {
      fake.fail(null);
    }
  });
});
