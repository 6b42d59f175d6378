// An x402 wallet on a local EVM devnet (anvil + TestUSDC): kasir's env for the chain, and a payer using the stock client.
import { type EvmDevnetOptions, erc20BalanceOf, startEvmDevnet } from '../../src/devnet/evm.js';
import { evmPayer } from './evm-payer.js';
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
