// tools/rpc on each database: read calls relayed to a chain's node, and what is refused before any node call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeRpcNode, startFakeRpcNode } from '../../test/fakes/json-rpc-node.js';
import { DB_TARGETS } from '../../test/support/app.js';
import { startToolKit, type ToolKit } from '../../test/support/tool-kit.js';

describe.each(DB_TARGETS)('tools/rpc on %s', (db) => {
  let node: FakeRpcNode;
  let kit: ToolKit;
  let sending: ToolKit;
  beforeAll(async () => {
    node = await startFakeRpcNode();
    const RPC_URLS = `ethereum=${node.url}/eth,solana=${node.url}/sol`;
    kit = await startToolKit(db, { RPC_URLS });
    sending = await startToolKit(db, { RPC_URLS, RPC_ALLOW_SEND_RAW_TRANSACTION: 'true' });
  });
  afterAll(async () => {
    await kit.stop();
    await sending.stop();
    await node.close();
  });

  it('relays a read call to the chain’s node and answers its result, charged (never cached)', async () => {
    const body = { chain: 'Ethereum', method: 'eth_getBalance', params: [`0x${'ab'.repeat(20)}`, 'latest'] };
    const { body: answer, res } = await kit.paid('rpc', body);
    expect(answer).toMatchObject({ chain: 'ethereum', result: '0xde0b6b3a7640000' });
    expect(res.headers.get('x-cache')).toBeNull();
    expect(node.requests.at(-1)).toMatchObject({
      path: '/eth',
      body: { jsonrpc: '2.0', method: 'eth_getBalance', params: body.params },
    });
    const { body: slot } = await kit.paid('rpc', { chain: 'solana', method: 'getSlot', params: [] });
    expect(slot.result).toBe(302123456);
  });

  it('refuses unknown chains, methods off the allowlist and sending unless enabled, before any node call', async () => {
    const seen = node.requests.length;
    expect(
      (await kit.refused('rpc', { chain: 'atlantis', method: 'eth_blockNumber', params: [] }, 400)).error
        .param,
    ).toBe('chain');
    expect(
      (await kit.refused('rpc', { chain: 'ethereum', method: 'debug_traceCall', params: [] }, 400)).error
        .param,
    ).toBe('method');
    const send = { chain: 'ethereum', method: 'eth_sendRawTransaction', params: ['0x02f8'] };
    expect((await kit.refused('rpc', send, 400)).error.message).toContain('not enabled');
    expect(
      (await kit.refused('rpc', { chain: 'ethereum', method: 'eth_blockNumber' }, 400)).error.param,
    ).toBe('params');
    expect(node.requests.length).toBe(seen);
    const { body } = await sending.paid('rpc', send);
    expect(body.result).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("answers the node's JSON-RPC error as a 400 (a revert, bad params), nothing charged; a failing node is a 502", async () => {
    const revert = {
      chain: 'ethereum',
      method: 'eth_call',
      params: [{ to: `0x${'00'.repeat(18)}dead` }, 'latest'],
    };
    expect((await kit.refused('rpc', revert, 400)).error.message).toContain('execution reverted');
    const bad = await kit.refused(
      'rpc',
      { chain: 'ethereum', method: 'eth_getBalance', params: ['0x1'] },
      400,
    );
    expect(bad.error.message).toContain('invalid argument');
    node.fail('down');
    try {
      expect(
        (await kit.refused('rpc', { chain: 'ethereum', method: 'eth_chainId', params: [] }, 502)).error
          .message,
      ).toContain('ethereum rpc node');
    } finally {
      node.fail(null);
    }
  });
});
