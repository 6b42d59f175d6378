// One local EVM devnet (anvil + TestUSDC) per vitest file, reverted to its state after setup before each test.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import {
  type DevnetKey,
  type EvmDevnet,
  type EvmDevnetOptions,
  erc20BalanceOf,
  mintTo,
  newKey,
  startEvmDevnet,
} from '../../src/devnet/evm.js';

export interface EvmChain {
  /** Available from beforeAll on. */
  readonly devnet: EvmDevnet;
  /** The devnet token's balance of `address`, in base units. */
  balanceOf(address: `0x${string}`): Promise<bigint>;
  /** A new key holding `amount` base units (1,000 whole tokens by default) and no ETH. */
  freshPayer(amount?: bigint): Promise<DevnetKey>;
}

/** Call at the top of a test file (or a describe block): hooks start, reset and stop the chain. */
export function useEvmChain(opts?: EvmDevnetOptions): EvmChain {
  let started: EvmDevnet | undefined;
  let snapshot: string | undefined;
  const devnet = () => {
    if (!started) throw new Error('the EVM devnet is not started yet (use it inside tests or hooks)');
    return started;
  };

  beforeAll(async () => {
    started = await startEvmDevnet(opts);
    snapshot = await rpc<string>(started.rpcUrl, 'evm_snapshot');
  });
  afterAll(async () => {
    await started?.stop();
  });
  beforeEach(async () => {
    const { rpcUrl } = devnet();
    // A snapshot is used up by reverting to it, so a new one is taken for the next test.
    if (!(await rpc<boolean>(rpcUrl, 'evm_revert', [snapshot]))) throw new Error('evm_revert failed');
    snapshot = await rpc<string>(rpcUrl, 'evm_snapshot');
  });

  return {
    get devnet() {
      return devnet();
    },
    balanceOf: (address) => erc20BalanceOf(devnet().rpcUrl, devnet().asset, address),
    async freshPayer(amount) {
      const key = newKey();
      await mintTo(devnet(), key.address, amount ?? 1_000n * 10n ** BigInt(devnet().decimals));
      return key;
    },
  };
}

async function rpc<T>(rpcUrl: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}
