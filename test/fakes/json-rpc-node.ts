/**
 * A fake EVM / Solana JSON-RPC 2.0 node: POST / with {jsonrpc, id, method, params} answers {jsonrpc, id, result}
 * for the read methods the tools use (eth_feeHistory from a recorded mainnet answer, eth_blockNumber, eth_chainId,
 * eth_getBalance, eth_call, eth_gasPrice, getSlot, eth_sendRawTransaction), and geth's error objects otherwise:
 * -32601 for an unknown method, -32602 for bad params, 3 "execution reverted" for eth_call to 0x…dead.
 * `setNoFeeHistory(true)` makes eth_feeHistory unknown (as on some nodes), so callers fall back to eth_gasPrice.
 */
import feeHistory from './fixtures/eth-fee-history.json' with { type: 'json' };
import { type FakeJsonUpstream, startFakeJsonUpstream } from './json-upstream.js';

export interface FakeRpcNode extends FakeJsonUpstream {
  setNoFeeHistory(on: boolean): void;
}

interface RpcRequest {
  jsonrpc?: string;
  id?: number | string;
  method?: string;
  params?: unknown;
}

export async function startFakeRpcNode(): Promise<FakeRpcNode> {
  const state = { noFeeHistory: false };
  const results: Record<string, (params: unknown[]) => unknown> = {
    eth_blockNumber: () => '0x1588c4f',
    eth_chainId: () => '0x1',
    eth_gasPrice: () => '0x4a817c800',
    eth_getBalance: (p) => {
      if (typeof p[0] !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(p[0]))
        throw {
          code: -32602,
          message: 'invalid argument 0: hex string has length 3, want 40 for common.Address',
        };
      return '0xde0b6b3a7640000';
    },
    eth_call: (p) => {
      const to = (p[0] as { to?: string } | undefined)?.to ?? '';
      if (to.toLowerCase().endsWith('dead')) throw { code: 3, message: 'execution reverted', data: '0x' };
      return '0x0000000000000000000000000000000000000000000000000000000000000012';
    },
    eth_feeHistory: () => {
      if (state.noFeeHistory)
        throw { code: -32601, message: 'the method eth_feeHistory does not exist/is not available' };
      return feeHistory;
    },
    eth_sendRawTransaction: () => '0x2f1c5c2b44f771e942a8506148e256f94f1a464babc938ae0690c6e34cd79190',
    getSlot: () => 302123456,
  };
  const fake = await startFakeJsonUpstream({
    errorBody: (status, message) => ({
      jsonrpc: '2.0',
      id: null,
      error: { code: status === 429 ? -32005 : -32603, message },
    }),
    routes: [
      {
        method: 'POST',
        path: /^\/.*$/,
        answer(req) {
          const r = req.body as RpcRequest;
          const id = r?.id ?? null;
          if (r?.jsonrpc !== '2.0' || typeof r.method !== 'string') {
            return { body: { jsonrpc: '2.0', id, error: { code: -32600, message: 'invalid request' } } };
          }
          const run = results[r.method];
          if (!run) {
            return {
              body: {
                jsonrpc: '2.0',
                id,
                error: { code: -32601, message: `the method ${r.method} does not exist/is not available` },
              },
            };
          }
          try {
            return { body: { jsonrpc: '2.0', id, result: run(Array.isArray(r.params) ? r.params : []) } };
          } catch (error) {
            return { body: { jsonrpc: '2.0', id, error } };
          }
        },
      },
    ],
  });
  return Object.assign(fake, {
    setNoFeeHistory(on: boolean) {
      state.noFeeHistory = on;
    },
  });
}
