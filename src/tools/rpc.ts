/**
 * tools/rpc: one JSON-RPC call to the operator's node of the named chain. Only read methods on an allowlist go
 * through; eth_sendRawTransaction (the one state-changing call) only when RPC_ALLOW_SEND_RAW_TRANSACTION is on.
 * A JSON-RPC error is the caller's (bad params, a revert): 400 with the node's message, nothing charged; a node
 * that is rate-limiting or failing is a 502.
 */
import { ApiError, invalidInput } from '../http/errors.js';
import { UpstreamError } from '../http/upstream-error.js';
import type { ToolFactory } from './types.js';
import { chainRpc } from './upstreams/json-rpc.js';

/** Read-only methods of EVM nodes (execution API) and Solana's RPC. */
const READ_METHODS = new Set([
  'eth_blockNumber',
  'eth_call',
  'eth_chainId',
  'eth_estimateGas',
  'eth_feeHistory',
  'eth_gasPrice',
  'eth_getBalance',
  'eth_getBlockByHash',
  'eth_getBlockByNumber',
  'eth_getBlockReceipts',
  'eth_getBlockTransactionCountByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getCode',
  'eth_getLogs',
  'eth_getProof',
  'eth_getStorageAt',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionByHash',
  'eth_getTransactionCount',
  'eth_getTransactionReceipt',
  'eth_maxPriorityFeePerGas',
  'eth_syncing',
  'net_version',
  'web3_clientVersion',
  'getAccountInfo',
  'getBalance',
  'getBlock',
  'getBlockHeight',
  'getBlockTime',
  'getEpochInfo',
  'getGenesisHash',
  'getHealth',
  'getLatestBlockhash',
  'getMinimumBalanceForRentExemption',
  'getMultipleAccounts',
  'getRecentPrioritizationFees',
  'getSignatureStatuses',
  'getSignaturesForAddress',
  'getSlot',
  'getTokenAccountBalance',
  'getTokenAccountsByOwner',
  'getTokenSupply',
  'getTransaction',
  'getVersion',
]);
const SEND_RAW = 'eth_sendRawTransaction';

/** JSON-RPC error codes that mean the node is busy or limiting us, not that the call was wrong. */
const NODE_TROUBLE = new Set([-32005, -32603, 429]);

export const rpc: ToolFactory = (deps) => {
  const nodes = chainRpc(deps);
  const allowSend = deps.config.tools.rpcAllowSendRawTransaction;
  return {
    async run(input, call) {
      const chain = String(input.chain).trim().toLowerCase();
      const method = String(input.method);
      const params = input.params as unknown[];
      if (!nodes.chains.includes(chain)) {
        throw invalidInput([
          { field: 'chain', message: `no node for "${chain}"; chains: ${nodes.chains.join(', ')}` },
        ]);
      }
      if (!READ_METHODS.has(method) && !(allowSend && method === SEND_RAW)) {
        const why =
          method === SEND_RAW
            ? 'sending transactions is not enabled on this server'
            : 'only read methods are allowed (eth_call, eth_getBalance, getSlot, …)';
        throw invalidInput([{ field: 'method', message: `${method}: ${why}` }]);
      }
      const outcome = await nodes.call(chain, method, params, call.signal);
      if (outcome.ok) return { chain, result: outcome.result };
      if (NODE_TROUBLE.has(outcome.code)) {
        throw new UpstreamError('upstream', `the ${chain} rpc node failed: ${outcome.message}`, {
          beforeFirstByte: true,
        });
      }
      throw new ApiError(
        'invalid_input',
        `the ${chain} node refused the call: ${outcome.message}; nothing was charged`,
        [{ field: 'params', message: `JSON-RPC error ${outcome.code}: ${outcome.message}` }],
      );
    },
  };
};
