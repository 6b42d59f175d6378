/**
 * JSON-RPC 2.0 over HTTP to the operator's chain nodes (RPC_URLS, or the public defaults): one call, its result, or
 * the node's error object. Each chain is its own upstream (gate, name in messages).
 */
import type { CallSignal } from '../../http/call-signal.js';
import { UpstreamError } from '../../http/upstream-error.js';
import type { ToolDeps } from '../types.js';
import { JsonUpstream } from './json-upstream.js';

export type RpcOutcome =
  | { ok: true; result: unknown }
  | { ok: false; code: number; message: string; data?: unknown };

export interface ChainRpc {
  /** Chains with a node, lower case. */
  chains: string[];
  call(chain: string, method: string, params: unknown[], signal: CallSignal): Promise<RpcOutcome>;
}

function keyInPath(url: string): string | undefined {
  const longest = new URL(url).pathname.split('/').sort((a, b) => b.length - a.length)[0] ?? '';
  return longest.length >= 20 ? longest : undefined;
}

export function chainRpc(deps: ToolDeps): ChainRpc {
  const nodes = new Map(
    Object.entries(deps.config.tools.rpcUrls).map(([chain, url]) => [
      chain,
      // A provider's URL may carry its key as a long path segment: it is never echoed to a caller.
      new JsonUpstream(`${chain} rpc node`, url, deps.http, { secret: keyInPath(url) }),
    ]),
  );
  let nextId = 1;
  return {
    chains: [...nodes.keys()],
    async call(chain, method, params, signal) {
      const node = nodes.get(chain);
      if (!node) throw new Error(`no node for ${chain}`);
      const id = nextId++;
      const answer = await node.request<Record<string, unknown>>(
        { method: 'POST', path: '', body: { jsonrpc: '2.0', id, method, params } },
        signal,
      );
      if (answer && typeof answer === 'object' && 'result' in answer)
        return { ok: true, result: answer.result };
      const error = answer?.error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
      if (error && typeof error === 'object') {
        return {
          ok: false,
          code: typeof error.code === 'number' ? error.code : 0,
          message: typeof error.message === 'string' ? error.message : 'error',
          ...(error.data !== undefined ? { data: error.data } : {}),
        };
      }
      throw new UpstreamError('upstream', `the ${chain} rpc node answered something that is not JSON-RPC`, {
        beforeFirstByte: true,
      });
    },
  };
}
