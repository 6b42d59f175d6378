/**
 * What kasir says at start about the rails: which take payments on this server, and for each one that is off, the
 * setting that would turn it on — so a server started without the devnet's (or a chain's) settings says so at once.
 */
import type { Config } from '../config/load.js';

const X402_CHAINS = ['base', 'solana', 'algorand', 'bnb'] as const;

/** One line per rail: `on` with where it pays, or `off` with the setting it needs. */
export function railSummary(config: Pick<Config, 'x402' | 'mpp'>): string[] {
  const lines = ['prepaid: on (API keys)'];
  for (const id of X402_CHAINS) {
    const chain = config.x402.chains.find((c) => c.id === id);
    lines.push(
      chain
        ? `x402 ${id}: on (${chain.network}, paid to ${chain.payTo})`
        : `x402 ${id}: off (set X402_${id.toUpperCase()}_PAY_TO)`,
    );
  }
  const { tempo, stripe, channels } = config.mpp;
  lines.push(
    tempo
      ? `mpp tempo: on (chain ${tempo.chainId}, paid to ${tempo.recipient})`
      : 'mpp tempo: off (set MPP_TEMPO_RECIPIENT)',
    stripe ? 'mpp card: on (Stripe)' : 'mpp card: off (set MPP_STRIPE_SECRET_KEY)',
    channels
      ? `channels: on (escrow ${channels.escrow})`
      : tempo
        ? 'channels: off (set MPP_CHANNEL_OPERATOR_KEY)'
        : 'channels: off (needs mpp tempo, then MPP_CHANNEL_OPERATOR_KEY)',
  );
  return lines;
}
