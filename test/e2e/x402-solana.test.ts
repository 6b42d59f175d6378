// x402 on Solana: the stock @x402/svm client pays kasir's /x402/{model}; the real facilitator settles on litesvm.
import { address, generateKeyPairSigner } from '@solana/kit';
import { expect, it } from 'vitest';
import { createSvmChain, type SvmChain } from '../support/svm-chain.js';
import { describeWalletRail } from '../support/wallet-suite.js';

let chain: SvmChain;
const lamportsOf = (owner: string) => chain.svm.getBalance(address(owner)) ?? 0n;

describeWalletRail(
  'Solana',
  'sqlite',
  async () => {
    chain = await createSvmChain({ payerFunds: 1_000_000_000n });
    const other = (await generateKeyPairSigner()).address;
    await chain.openTokenAccount(other);
    return {
      prefix: '/x402',
      network: chain.network,
      decimals: 6,
      env: {
        X402_SOLANA_PAY_TO: chain.payTo,
        X402_SOLANA_NETWORK: chain.network,
        X402_SOLANA_ASSET: chain.mint,
        // The fee payer's key lives in the test's ledger; the signer below stands in for it.
        X402_SOLANA_PRIVATE_KEY: 'unused-with-a-local-signer',
      },
      signers: { svm: chain.facilitatorSigner },
      pay: (r) => chain.pay(r),
      underpay: (r) => chain.payWith(r, { amount: String(BigInt(r.amount) - 1n) }),
      wrongPayTo: (r) => chain.payWith(r, { payTo: other }),
      payerBalance: async () => chain.tokenBalance(chain.payer.address),
      payToBalance: async () => chain.tokenBalance(chain.payTo),
      close: () => chain.close(),
    };
  },
  (_fx, calls) => {
    it('costs the payer no SOL: the fee payer pays the transaction fee', async () => {
      const [payerSol, feePayerSol] = [lamportsOf(chain.payer.address), lamportsOf(chain.feePayer)];
      const res = await calls.paidCall('Who pays the fee?');
      expect(res.status).toBe(200);
      expect(lamportsOf(chain.payer.address)).toBe(payerSol);
      expect(lamportsOf(chain.feePayer)).toBeLessThan(feePayerSol);
    });
  },
);
