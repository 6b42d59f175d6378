// x402 on Algorand (/a402): the stock @x402/avm client pays kasir; the real facilitator settles on a local ledger.
import { generateAccount } from 'algosdk';
import { expect, it } from 'vitest';
import { type AvmLedger, createAvmLedger } from '../support/avm-ledger.js';
import { describeWalletRail } from '../support/wallet-suite.js';

let ledger: AvmLedger;

describeWalletRail(
  'Algorand',
  'sqlite',
  async () => {
    ledger = await createAvmLedger({ payerAsset: 1_000_000_000n });
    const other = generateAccount().addr.toString();
    return {
      prefix: '/a402',
      network: ledger.network,
      decimals: 6,
      env: {
        X402_ALGORAND_PAY_TO: ledger.payTo,
        X402_ALGORAND_NETWORK: ledger.network,
        X402_ALGORAND_ASSET: ledger.assetId,
        X402_ALGORAND_ALGOD_URL: ledger.algodUrl,
        // The fee payer's key lives in the test's ledger; the signer below stands in for it.
        X402_ALGORAND_PRIVATE_KEY: 'unused-with-a-local-signer',
      },
      signers: { avm: ledger.facilitatorSigner },
      pay: (r) => ledger.pay(r),
      underpay: async (r) => ledger.payWith(r, { amount: BigInt(r.amount) - 1n }),
      wrongPayTo: async (r) => ledger.payWith(r, { payTo: other }),
      payerBalance: async () => ledger.assetBalance(ledger.payer.address),
      payToBalance: async () => ledger.assetBalance(ledger.payTo),
      close: () => ledger.close(),
    };
  },
  (_fx, calls) => {
    it('costs the payer no ALGO: the fee payer pays the pooled fee', async () => {
      const [payerAlgo, feePayerAlgo] = [
        ledger.algoBalance(ledger.payer.address),
        ledger.algoBalance(ledger.feePayer),
      ];
      const res = await calls.paidCall('Who pays the fee?');
      expect(res.status).toBe(200);
      expect(ledger.algoBalance(ledger.payer.address)).toBe(payerAlgo);
      expect(ledger.algoBalance(ledger.feePayer)).toBeLessThan(feePayerAlgo);
    });
  },
);
