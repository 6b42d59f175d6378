/**
 * The payment methods the MPP rail offers, as mppx server methods: a Tempo stablecoin charge (pull; push too when a
 * refund wallet is set; the operator optionally paying the payers' network fees) and a card charge through Stripe. mppx verifies and
 * settles; kasir configures them and keeps its own books.
 */
import type { Store } from 'mppx';
import { stripe, tempo } from 'mppx/server';
import Stripe from 'stripe';
import { createClient, defineChain, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { tempo as tempoMainnet } from 'viem/chains';
import type { MppStripeConfig, MppTempoConfig } from '../../config-mpp.js';

/** Stripe's official client, pointed at STRIPE_BASE_URL (the real API unless a test replaces it). */
export function stripeClient(config: MppStripeConfig): Stripe {
  const url = new URL(config.baseUrl);
  return new Stripe(config.secretKey, {
    host: url.hostname,
    port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
    protocol: url.protocol === 'https:' ? 'https' : 'http',
    maxNetworkRetries: 1,
  });
}

export function tempoMethod(config: MppTempoConfig, store: Store.AtomicStore) {
  // The chain is Tempo's own definition (its transaction type and fee token), at the configured id and RPC.
  const chain = defineChain({
    ...tempoMainnet,
    id: config.chainId,
    rpcUrls: { default: { http: [config.rpcUrl] } },
  });
  const client = createClient({ chain, transport: http(config.rpcUrl) });
  return tempo.charge({
    currency: config.currency,
    recipient: config.recipient,
    chainId: config.chainId,
    getClient: () => client,
    store,
    // A push payment (the payer broadcasts) moves before the call runs: accepted only when a failed call's payment
    // can be sent back (a refund wallet); otherwise the challenges ask for pull (kasir broadcasts after success).
    supportedModes: config.refundKey ? ['pull', 'push'] : ['pull'],
    ...(config.feePayerKey ? { feePayer: privateKeyToAccount(config.feePayerKey) } : {}),
  });
}

export function cardMethod(config: MppStripeConfig, client: Stripe) {
  return stripe.charge({
    secretKey: undefined,
    // Stripe's own client satisfies mppx's structural StripeClient; its types differ only in the SDK's overloads.
    client: client as unknown as Extract<Parameters<typeof stripe.charge>[0], { client: unknown }>['client'],
    networkId: config.networkId,
    currency: 'usd',
    decimals: 2,
    paymentMethodTypes: ['card'],
  });
}
