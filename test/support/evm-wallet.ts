// An x402 wallet on a local EVM devnet (anvil + TestUSDC): kasir's env for the chain, and a payer using the stock client.

import { afterAll, beforeAll } from 'vitest';
import { type EvmDevnetOptions, erc20BalanceOf, startEvmDevnet } from '../../src/devnet/evm.js';
import { deployTestUsdt, fundPermit2Payer, installPermit2 } from '../../src/devnet/permit2.js';
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
 * BNB Smart Chain (`/b402`, chain 56) paid in a USDT-like token (18 decimals, no EIP-3009) through Permit2: the
 * canonical Permit2 and the exact Permit2 proxy installed, the payer funded and its one-time approval sent. The
 * devnet's EIP-3009 token is offered beside it (`usd1`), as USD1 is on BNB Smart Chain.
 */
export async function permit2Fixture(): Promise<
  WalletFixture & { usdt: `0x${string}`; usd1: `0x${string}` }
> {
  const devnet = await startEvmDevnet({ chainId: 56, decimals: 18, payerFunds: 10n ** 24n });
  await installPermit2(devnet);
  const usdt = await deployTestUsdt(devnet, devnet.deployer);
  await fundPermit2Payer(devnet, usdt, devnet.deployer, devnet.payer, 10n ** 24n);
  const payer = evmPayer(devnet);
  return {
    prefix: '/b402',
    network: devnet.network,
    decimals: 18,
    usdt,
    usd1: devnet.asset,
    env: {
      X402_BNB_PAY_TO: devnet.payTo,
      X402_BNB_NETWORK: devnet.network,
      X402_BNB_ASSETS: `${usdt},${devnet.asset}`,
      X402_BNB_RPC_URL: devnet.rpcUrl,
      X402_BNB_PRIVATE_KEY: devnet.facilitator.privateKey,
    },
    ...payer,
    payerBalance: () => erc20BalanceOf(devnet.rpcUrl, usdt, devnet.payer.address),
    payToBalance: () => erc20BalanceOf(devnet.rpcUrl, usdt, devnet.payTo),
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
