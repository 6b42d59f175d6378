/**
 * Settings of the MPP rail (the `Payment` HTTP authentication scheme on every /v1/* paid route): a Tempo
 * stablecoin charge (on when MPP_TEMPO_RECIPIENT or KASIR_PAY_TO is set) and a card charge through Stripe (on when
 * MPP_STRIPE_SECRET_KEY is set). The challenge secret lives in the database (see rails/mpp/secrets.ts).
 */
import { z } from 'zod';
import type { SettingsArea } from './setting.js';

export interface MppTempoConfig {
  rpcUrl: string;
  chainId: number;
  /** The TIP-20 USD stablecoin accepted (6 decimals). */
  currency: `0x${string}`;
  recipient: `0x${string}`;
  /** The operator's key that pays the payers' network fees (fee sponsorship); absent: payers pay their own. */
  feePayerKey: `0x${string}` | undefined;
  /**
   * The key of the wallet that sends refunds (normally the payout wallet's): a push payment (the payer broadcast it
   * itself) for a call that then failed is sent back from it. Absent: push payments are not accepted.
   */
  refundKey: `0x${string}` | undefined;
}

export interface MppStripeConfig {
  secretKey: string;
  /** Where the Stripe API is (tests: a local server speaking Stripe's API). */
  baseUrl: string;
  networkId: string;
  /** Card calls below this are not offered a card challenge (card networks' minimum charge). */
  minMicroUsd: number;
}

/** Payment channels on the Tempo escrow (TIP-1034): on when MPP_CHANNEL_OPERATOR_KEY is set with Tempo. */
export interface MppChannelConfig {
  /** The escrow (the TIP-1034 precompile unless overridden). */
  escrow: `0x${string}`;
  /** The key kasir settles and closes channels with (the channels' payee or operator). */
  operatorKey: `0x${string}`;
  /** A metered stream holds the price of this many output tokens ahead of what it delivered. */
  streamTrancheTokens: number;
  /** How long a metered stream waits for a voucher it asked for before it ends. */
  voucherWaitMs: number;
  /** The deposit session challenges suggest a new channel opens with (base units; the payer's client caps it). */
  suggestedDeposit: number;
}

export interface MppConfig {
  tempo: MppTempoConfig | undefined;
  channels: MppChannelConfig | undefined;
  stripe: MppStripeConfig | undefined;
  /** The realm challenges name (default: the public base URL's host). */
  realm: string | undefined;
  /** How long a challenge may be paid after it was issued. */
  challengeTtlSeconds: number;
}

const optional = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/** Tempo mainnet: chain 4217, USDC (TIP-20). */
const TEMPO_MAINNET = { chainId: 4217, rpcUrl: 'https://rpc.tempo.xyz' };
const TEMPO_USDC = '0x20C000000000000000000000b9537d11c60E8b50';
/** The TIP-1034 escrow precompile (payment channels). */
const TIP1034_ESCROW = '0x4d50500000000000000000000000000000000000';

export const mppEnvShape = {
  MPP_REALM: optional,
  MPP_CHALLENGE_TTL_SECONDS: z.coerce.number().int().min(30).max(3600).default(300),
  MPP_TEMPO_RECIPIENT: optional,
  MPP_TEMPO_RPC_URL: optional,
  MPP_TEMPO_CHAIN_ID: optional,
  MPP_TEMPO_CURRENCY: optional,
  MPP_TEMPO_FEE_PAYER_KEY: optional,
  MPP_TEMPO_REFUND_KEY: optional,
  MPP_STRIPE_SECRET_KEY: optional,
  STRIPE_BASE_URL: optional,
  MPP_STRIPE_NETWORK_ID: optional,
  MPP_CARD_MIN_MICRO_USD: z.coerce.number().int().min(1).default(500_000),
  MPP_CHANNEL_OPERATOR_KEY: optional,
  MPP_CHANNEL_ESCROW: optional,
  MPP_CHANNEL_STREAM_TRANCHE_TOKENS: z.coerce.number().int().min(1).max(100_000).default(256),
  MPP_CHANNEL_VOUCHER_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
  MPP_CHANNEL_SUGGESTED_DEPOSIT: z.coerce.number().int().min(1).max(1e15).default(10_000_000),
} as Record<string, z.ZodType>;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const KEY = /^0x[0-9a-fA-F]{64}$/;

export function parseMpp(values: Record<string, unknown>, problems: string[]): MppConfig {
  const v = values as Record<string, string | number | undefined>;
  const str = (name: string) => v[name] as string | undefined;
  let tempo: MppTempoConfig | undefined;
  // KASIR_PAY_TO (declared with the x402 settings) is the recipient when MPP_TEMPO_RECIPIENT is not set.
  const recipient = str('MPP_TEMPO_RECIPIENT') ?? str('KASIR_PAY_TO');
  if (recipient) {
    const currency = str('MPP_TEMPO_CURRENCY') ?? TEMPO_USDC;
    const feePayerKey = str('MPP_TEMPO_FEE_PAYER_KEY');
    const refundKey = str('MPP_TEMPO_REFUND_KEY');
    const chainId = Number(str('MPP_TEMPO_CHAIN_ID') ?? TEMPO_MAINNET.chainId);
    if (!ADDRESS.test(recipient)) {
      problems.push(
        `${str('MPP_TEMPO_RECIPIENT') ? 'MPP_TEMPO_RECIPIENT' : 'KASIR_PAY_TO'}: must be a 0x address`,
      );
    }
    if (!ADDRESS.test(currency)) problems.push('MPP_TEMPO_CURRENCY: must be a TIP-20 token address');
    if (feePayerKey && !KEY.test(feePayerKey)) problems.push('MPP_TEMPO_FEE_PAYER_KEY: must be a 0x hex key');
    if (refundKey && !KEY.test(refundKey)) problems.push('MPP_TEMPO_REFUND_KEY: must be a 0x hex key');
    if (!Number.isInteger(chainId) || chainId <= 0) problems.push('MPP_TEMPO_CHAIN_ID: must be a chain id');
    tempo = {
      rpcUrl: str('MPP_TEMPO_RPC_URL') ?? TEMPO_MAINNET.rpcUrl,
      chainId,
      currency: currency as `0x${string}`,
      recipient: recipient as `0x${string}`,
      feePayerKey: feePayerKey as `0x${string}` | undefined,
      refundKey: refundKey as `0x${string}` | undefined,
    };
  }
  const secretKey = str('MPP_STRIPE_SECRET_KEY');
  const stripe = secretKey
    ? {
        secretKey,
        baseUrl: (str('STRIPE_BASE_URL') ?? 'https://api.stripe.com').replace(/\/+$/, ''),
        networkId: str('MPP_STRIPE_NETWORK_ID') ?? 'internal',
        minMicroUsd: v.MPP_CARD_MIN_MICRO_USD as number,
      }
    : undefined;
  const operatorKey = str('MPP_CHANNEL_OPERATOR_KEY');
  const escrow = str('MPP_CHANNEL_ESCROW') ?? TIP1034_ESCROW;
  if (operatorKey && !KEY.test(operatorKey)) problems.push('MPP_CHANNEL_OPERATOR_KEY: must be a 0x hex key');
  if (!ADDRESS.test(escrow)) problems.push('MPP_CHANNEL_ESCROW: must be a 0x address');
  if (operatorKey && !tempo)
    problems.push('MPP_CHANNEL_OPERATOR_KEY: channels need the Tempo charge (MPP_TEMPO_RECIPIENT)');
  const channels =
    operatorKey && tempo
      ? {
          escrow: escrow as `0x${string}`,
          operatorKey: operatorKey as `0x${string}`,
          streamTrancheTokens: v.MPP_CHANNEL_STREAM_TRANCHE_TOKENS as number,
          voucherWaitMs: v.MPP_CHANNEL_VOUCHER_WAIT_MS as number,
          suggestedDeposit: v.MPP_CHANNEL_SUGGESTED_DEPOSIT as number,
        }
      : undefined;
  return {
    tempo,
    channels,
    stripe,
    realm: str('MPP_REALM'),
    challengeTtlSeconds: v.MPP_CHALLENGE_TTL_SECONDS as number,
  };
}

export const mppSettings: SettingsArea = {
  name: 'mpp',
  shape: mppEnvShape,
  rows: [
    {
      vars: ['MPP_TEMPO_RECIPIENT'],
      default: '`KASIR_PAY_TO` (else Tempo off)',
      meaning: 'Address receiving Tempo payments.',
    },
    {
      vars: ['MPP_TEMPO_RPC_URL'],
      default: '`https://rpc.tempo.xyz`',
      meaning: 'Tempo node kasir verifies and broadcasts through.',
    },
    { vars: ['MPP_TEMPO_CHAIN_ID'], default: '`4217` (Tempo mainnet)', meaning: 'Chain id.' },
    {
      vars: ['MPP_TEMPO_CURRENCY'],
      default: 'USDC `0x20C000000000000000000000b9537d11c60E8b50`',
      meaning: 'TIP-20 USD stablecoin accepted (6 decimals; amounts are the micro-USD quote exactly).',
    },
    {
      vars: ['MPP_TEMPO_FEE_PAYER_KEY'],
      default: '—',
      meaning: "Key that sponsors payers' network fees. A secret: never logged.",
    },
    {
      vars: ['MPP_TEMPO_REFUND_KEY'],
      default: '— (push off)',
      meaning:
        "Key of the wallet that sends refunds of failed calls' push payments (normally the payout wallet's; it pays the refunds' network fees in `MPP_TEMPO_CURRENCY`). Unset: only pull payments are accepted. A secret: never logged.",
    },
    {
      vars: ['MPP_STRIPE_SECRET_KEY'],
      default: '(card off)',
      meaning: 'Stripe secret key. A secret: never logged.',
    },
    {
      vars: ['STRIPE_BASE_URL'],
      default: '`https://api.stripe.com`',
      meaning: 'Stripe API base URL (tests point it at a local server).',
    },
    {
      vars: ['MPP_STRIPE_NETWORK_ID'],
      default: '`internal`',
      meaning: 'Stripe business network id named in card challenges.',
    },
    {
      vars: ['MPP_CARD_MIN_MICRO_USD'],
      default: '`500000`',
      meaning: 'Smallest quote a card challenge is offered for.',
    },
    { vars: ['MPP_REALM'], default: "the public base URL's host", meaning: 'Realm named in challenges.' },
    { vars: ['MPP_CHALLENGE_TTL_SECONDS'], default: '`300`', meaning: 'How long a challenge can be paid.' },
    {
      vars: ['MPP_CHANNEL_OPERATOR_KEY'],
      default: '(channels off)',
      meaning: 'Key kasir closes payment channels with (their payee or operator). A secret: never logged.',
    },
    {
      vars: ['MPP_CHANNEL_ESCROW'],
      default: '`0x4d50…0000` (the TIP-1034 precompile)',
      meaning: 'Channel escrow.',
    },
    {
      vars: ['MPP_CHANNEL_STREAM_TRANCHE_TOKENS'],
      default: '`256`',
      meaning: 'Output tokens a metered stream on a channel is paid ahead of what it delivered.',
    },
    {
      vars: ['MPP_CHANNEL_VOUCHER_WAIT_MS'],
      default: '`30000`',
      meaning: 'How long a metered stream waits for the voucher it asked for before it ends.',
    },
    {
      vars: ['MPP_CHANNEL_SUGGESTED_DEPOSIT'],
      default: '`10000000`',
      meaning:
        "The deposit (base units, i.e. micro-USD) the session challenge suggests a new channel opens with; the payer's client caps it at its own maximum.",
    },
  ],
};
