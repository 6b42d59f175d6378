// x402 on EVM chains: the stock @x402/evm client pays kasir, kasir's in-process facilitator settles on anvil with
// the operator's key. Base (/x402, USDC's 6 decimals) on SQLite and PostgreSQL; BNB Smart Chain (/b402, chain 56,
// an 18-decimal token) on SQLite.
import { type EvmDevnetOptions, erc20BalanceOf, startEvmDevnet } from '../../src/devnet/evm.js';
import { DB_TARGETS } from '../support/app.js';
import { evmPayer } from '../support/evm-payer.js';
import { describeWalletRail, type WalletFixture } from '../support/wallet-suite.js';

async function evmFixture(chain: 'BASE' | 'BNB', opts: EvmDevnetOptions): Promise<WalletFixture> {
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

for (const target of DB_TARGETS) describeWalletRail('Base', target, () => evmFixture('BASE', {}));
describeWalletRail('BNB Smart Chain', 'sqlite', () => evmFixture('BNB', { chainId: 56, decimals: 18 }));
