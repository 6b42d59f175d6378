// Pays x402 requirements on a local EVM devnet with the stock @x402/evm client (and forges payments for refusals).
import { x402Client } from '@x402/core/client';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { toClientEvmSigner } from '@x402/evm';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { createPublicClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devnetChain, type EvmDevnet, newKey } from '../../src/devnet/evm.js';

export function evmPayer(devnet: EvmDevnet, privateKey: `0x${string}` = devnet.payer.privateKey) {
  const publicClient = createPublicClient({
    chain: devnetChain(devnet.chainId, devnet.rpcUrl),
    transport: http(devnet.rpcUrl),
  });
  const client = registerExactEvmScheme(new x402Client().setSpendControls(false), {
    signer: toClientEvmSigner(privateKeyToAccount(privateKey), publicClient),
  });
  const sign = (requirements: PaymentRequirements) =>
    client.createPaymentPayload({
      x402Version: 2,
      resource: { url: 'http://kasir.test', description: 'test', mimeType: 'application/json' },
      accepts: [requirements],
    });
  /** Signs `{...requirements, ...change}` but claims to pay `requirements`, as a cheating client would. */
  const forge = async (requirements: PaymentRequirements, change: Partial<PaymentRequirements>) => {
    const payload: PaymentPayload = await sign({ ...requirements, ...change });
    return { ...payload, accepted: requirements };
  };
  return {
    pay: sign,
    underpay: (r: PaymentRequirements) => forge(r, { amount: (BigInt(r.amount) - 1n).toString() }),
    wrongPayTo: (r: PaymentRequirements) => forge(r, { payTo: newKey().address }),
  };
}
