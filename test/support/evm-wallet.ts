// An x402 wallet on a local EVM devnet (anvil + TestUSDC): kasir's env for the chain, and a payer using the stock client.

import { afterAll, beforeAll } from 'vitest';
import { type EvmDevnetOptions, erc20BalanceOf, startEvmDevnet } from '../../src/devnet/evm.js';
import { evmPayer } from './evm-payer.js';
import { type PaidKasir, startPaidKasir } from './paid.js';
import type { WalletFixture } from './wallet-suite.js';

/** Base (`/x402`, 6 decimals) or BNB Smart Chain (`/b402`): its devnet started, its payer funded. */
export async function evmFixture(chain: 'BASE' | 'BNB', opts: EvmDevnetOptions): Promise<WalletFixture> {
  const devnet = await startEvmDevnet({ payerFunds: 10n ** BigInt((opts.decimals ?? 6) + 6), ...opts });
  const payer = evmPayer(devnet);
  return {
    prefix: chain === 'BASE' ? '/x402' : '/b402',
    network: devnet.network,
    decimals: devnet.decimals,
    env: {
      [`X402_${chain}_PAY_TO`]: devnet.payTo,
      [`X402_${chain}_NETWORK`]: devnet.network,
      [`X402_${chain}_${chain === 'BASE' ? 'ASSET' : 'ASSETS'}`]: devnet.asset,
      [`X402_${chain}_RPC_URL`]: devnet.rpcUrl,
      [`X402_${chain}_PRIVATE_KEY`]: devnet.facilitator.privateKey,
    },
    ...payer,
    payerBalance: () => erc20BalanceOf(devnet.rpcUrl, devnet.asset, devnet.payer.address),
    payToBalance: () => erc20BalanceOf(devnet.rpcUrl, devnet.asset, devnet.payTo),
    close: () => devnet.stop(),
  };
}

/**
 * For the enclosing describe block: an x402 wallet on a local Base chain and a kasir on SQLite that takes it,
 * started before its tests and stopped after them. Tests read them through `.fx` and `.kasir`.
 */
export function useBaseWalletKasir(): { readonly fx: WalletFixture; readonly kasir: PaidKasir } {
  let fx: WalletFixture | undefined;
  let kasir: PaidKasir | undefined;
  beforeAll(async () => {
    fx = await evmFixture('BASE', {});
    kasir = await startPaidKasir('sqlite', fx.env);
  }, 60_000);
  afterAll(async () => {
    await kasir?.stop();
    await fx?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (!value) throw new Error('the wallet and kasir start in beforeAll: read them inside a test');
    return value;
  };
  return {
    get fx() {
      return started(fx);
    },
    get kasir() {
      return started(kasir);
    },
  };
}
