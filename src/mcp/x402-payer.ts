/**
 * A local wallet paying x402 over MCP for the `kasir mcp` bridge: it reads the PaymentRequired that kasir's
 * payment-required error carries (`x402Version`, `accepts`, `resource`), signs an `exact` EVM payment with the stock
 * @x402/evm client, and the bridge repeats the call with it in `_meta["x402/payment"]`.
 */
import { x402Client } from '@x402/core/client';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { toClientEvmSigner } from '@x402/evm';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { createPublicClient, defineChain, type Hex, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/** The x402 part of a payment-required error's data, when it has one. */
export function x402Required(data: unknown): PaymentRequired | undefined {
  const d = data as Partial<PaymentRequired> | undefined;
  return d && typeof d.x402Version === 'number' && Array.isArray(d.accepts) && d.accepts.length > 0
    ? (d as PaymentRequired)
    : undefined;
}

/** What kasir states the x402 rail charges for this call (its entry in the error's `rails`), in micro-USD. */
export function x402Price(data: unknown): number | undefined {
  const rails = (data as { rails?: Array<{ rail?: string; price_micro_usd?: number }> } | undefined)?.rails;
  return rails?.find((r) => r.rail === 'x402')?.price_micro_usd;
}

export interface X402Payer {
  pay(required: PaymentRequired): Promise<PaymentPayload>;
}

/** A payer on EVM chains for `privateKey`; `rpcUrl` is the chain's RPC (read for the token's details). */
export function createX402Payer(privateKey: Hex, rpcUrl: string | undefined): X402Payer {
  const account = privateKeyToAccount(privateKey);
  return {
    pay(required) {
      const evm = required.accepts.filter((a) => a.network.startsWith('eip155:'));
      const chainId = Number(evm[0]?.network.slice('eip155:'.length));
      const publicClient = createPublicClient({
        chain: defineChain({
          id: chainId,
          name: `eip155:${chainId}`,
          nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
          rpcUrls: { default: { http: rpcUrl ? [rpcUrl] : [] } },
        }),
        transport: http(rpcUrl),
      });
      // The bridge's own caps decide what may be paid; the client's default USD cap would second-guess them.
      const client = registerExactEvmScheme(new x402Client().setSpendControls(false), {
        signer: toClientEvmSigner(account, publicClient),
      });
      return client.createPaymentPayload({ ...required, accepts: evm });
    },
  };
}
