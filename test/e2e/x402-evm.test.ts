// x402 on EVM chains: the stock @x402/evm client pays kasir, kasir's in-process facilitator settles on anvil with
// the operator's key. Base (/x402, USDC's 6 decimals) on SQLite and PostgreSQL; BNB Smart Chain (/b402, chain 56,
// an 18-decimal token) on SQLite.

import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequirements } from '@x402/core/types';
import { describe, expect, it } from 'vitest';
import { type EvmDevnetOptions, erc20BalanceOf, startEvmDevnet } from '../../src/devnet/evm.js';
import { DB_TARGETS } from '../support/app.js';
import { evmPayer } from '../support/evm-payer.js';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';
import { freshPostgres, postgresUp } from '../support/services.js';
import { describeWalletRail, paymentRequiredOf, type WalletFixture } from '../support/wallet-suite.js';

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

describe.runIf(postgresUp)('x402 with two instances on one PostgreSQL', () => {
  it('never lets both accept one payment, however the requests race', async () => {
    const pg = await freshPostgres();
    const fx = await evmFixture('BASE', {});
    const env = { ...fx.env, DATABASE_URL: pg.url };
    const one = await startPaidKasir('postgres', env);
    const two = await startPaidKasir('postgres', env, {
      openai: one.openai,
      anthropic: one.anthropic,
      gemini: one.gemini,
    });
    try {
      const path = '/x402/openai/gpt-4.1-mini';
      const post = (kasir: PaidKasir, body: string, headers: Record<string, string> = {}) =>
        kasir.app.request(path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body,
        });
      for (let round = 0; round < 5; round++) {
        const body = JSON.stringify({
          messages: [{ role: 'user', content: `race ${round}` }],
          max_tokens: 16,
        });
        const [requirements] = paymentRequiredOf(await post(one, body)).accepts;
        const payment = encodePaymentSignatureHeader(await fx.pay(requirements as PaymentRequirements));
        const before = await fx.payerBalance();
        const calls = one.openai.requests.length;
        const answers = await Promise.all(
          [one, two, one, two].map((k) => post(k, body, { 'payment-signature': payment })),
        );
        expect(answers.map((r) => r.status).sort()).toEqual([200, 402, 402, 402]);
        expect(one.openai.requests.length).toBe(calls + 1);
        expect(before - (await fx.payerBalance())).toBe(BigInt(requirements?.amount ?? 0));
      }
    } finally {
      await two.stop();
      await one.stop();
      await fx.close();
      await pg.drop();
    }
  }, 60_000);
});
