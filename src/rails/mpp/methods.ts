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
import type { MppStripeConfig, MppTempoConfig } from '../../config/mpp.js';

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

/**
 * The Stripe client mppx's card method gets: every PaymentIntent it creates is authorized only
 * (`capture_method: manual`), so the card is charged when kasir captures it after the call succeeded and released
 * (canceled) when the call fails. mppx accepts only a `succeeded` intent; an authorized one (`requires_capture`) is
 * what kasir wants at that point, so it is reported to mppx as such — mppx reads nothing else of it but its id.
 */
function authorizeOnly(client: Stripe) {
  return {
    paymentIntents: {
      async create(params: Record<string, unknown>, options?: Record<string, unknown>) {
        const intent = await client.paymentIntents.create(
          { ...params, capture_method: 'manual' } as Stripe.PaymentIntentCreateParams,
          options as Stripe.RequestOptions,
        );
        if (intent.status === 'requires_capture') return Object.assign(intent, { status: 'succeeded' });
        return intent;
      },
    },
  };
}

export function cardMethod(config: MppStripeConfig, client: Stripe) {
  return stripe.charge({
    secretKey: undefined,
    // A structural StripeClient (mppx calls only paymentIntents.create).
    client: authorizeOnly(client) as unknown as Extract<
      Parameters<typeof stripe.charge>[0],
      { client: unknown }
    >['client'],
    networkId: config.networkId,
    currency: 'usd',
    decimals: 2,
    paymentMethodTypes: ['card'],
  });
}
