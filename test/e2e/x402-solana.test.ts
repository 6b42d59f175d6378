// x402 on Solana: the stock @x402/svm client pays kasir's /x402/{model}; the real facilitator settles on litesvm.
import { createSvmChain, type SvmChain } from '../support/svm-chain.js';
import { describeWalletRail } from '../support/wallet-suite.js';

describeWalletRail('Solana', 'sqlite', async () => {
  const chain: SvmChain = await createSvmChain({ payerFunds: 1_000_000_000n });
  const stranger = (await import('@solana/kit')).generateKeyPairSigner;
  const other = (await stranger()).address;
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
});
