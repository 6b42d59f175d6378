// x402 on BNB Smart Chain (/b402) paid in a token without EIP-3009 (USDT-like) through Permit2: the stock @x402/evm
// client signs a Permit2 witness transfer, kasir's in-process facilitator (the official exact scheme) verifies it
// and settles it through the exact Permit2 proxy into the canonical Permit2, on anvil. The whole wallet suite runs
// on it (exactly the quote on success, nothing on failure, replays and cheats refused). Where Permit2 is missing, such
// a token is left out of the 402.
import { PERMIT2_ADDRESS, x402ExactPermit2ProxyAddress } from '@x402/evm';
import { describe, expect, it } from 'vitest';
import { startEvmDevnet } from '../../src/devnet/evm.js';
import { deployTestUsdt } from '../../src/devnet/permit2.js';
import { postJson } from '../support/app.js';
import { permit2Fixture } from '../support/evm-wallet.js';
import { startPaidKasir } from '../support/paid.js';
import { describeWalletRail, paymentRequiredOf } from '../support/wallet-suite.js';

describeWalletRail('BNB Smart Chain, USDT through Permit2', 'sqlite', permit2Fixture, (fixture, calls) => {
  it('offers USDT through Permit2 and USD1 by authorization, and the USDT payment is a Permit2 witness transfer', async () => {
    const fx = fixture();
    const unpaid = await calls.challenge('Which tokens?');
    const accepts = paymentRequiredOf(unpaid).accepts;
    const usdt = accepts.find((a) => a.asset.toLowerCase() === fx.usdt.toLowerCase());
    const usd1 = accepts.find((a) => a.asset.toLowerCase() === fx.usd1.toLowerCase());
    expect(usdt?.extra).toEqual({ assetTransferMethod: 'permit2' });
    expect(usd1?.extra).toMatchObject({ name: 'USD Coin', version: '2' });
    expect(usd1?.extra?.assetTransferMethod).toBeUndefined();
    expect(usdt?.amount).toBe(usd1?.amount);
    const payment = await fx.pay(usdt as NonNullable<typeof usdt>);
    const auth = (payment.payload as { permit2Authorization: Record<string, unknown> }).permit2Authorization;
    expect(auth).toMatchObject({ spender: x402ExactPermit2ProxyAddress, witness: { to: usdt?.payTo } });
    expect(PERMIT2_ADDRESS).toBe('0x000000000022D473030F116dDEE9F6B43aC78BA3');
  });
});

describe('a token without EIP-3009 on a chain without Permit2', () => {
  it('is left out of the 402 while the EIP-3009 token beside it is still offered', async () => {
    const devnet = await startEvmDevnet({ chainId: 56, decimals: 18 });
    const usdt = await deployTestUsdt(devnet, devnet.deployer);
    const kasir = await startPaidKasir('sqlite', {
      X402_BNB_PAY_TO: devnet.payTo,
      X402_BNB_NETWORK: devnet.network,
      X402_BNB_ASSETS: `${usdt},${devnet.asset}`,
      X402_BNB_RPC_URL: devnet.rpcUrl,
      X402_BNB_PRIVATE_KEY: devnet.facilitator.privateKey,
    });
    try {
      const res = await postJson(kasir, '/b402/openai/gpt-4.1-mini', {
        messages: [{ role: 'user', content: 'no Permit2 here' }],
        max_tokens: 16,
      });
      expect(res.status).toBe(402);
      expect(paymentRequiredOf(res).accepts.map((a) => a.asset.toLowerCase())).toEqual([
        devnet.asset.toLowerCase(),
      ]);
    } finally {
      await kasir.stop();
      await devnet.stop();
    }
  }, 60_000);
});
