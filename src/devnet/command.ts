/**
 * `kasir devnet`: local chains to try the wallet rails with no real money. Starts an EVM chain (anvil) with an
 * EIP-3009 USDC-like token and a funded payer (x402), and a Tempo-mode chain (anvil --network tempo) with funded
 * payers (MPP); prints one JSON line on stdout once ready — `env` (every setting kasir needs to accept payments on
 * them), `evm` (the chain, the token and the payer's key) and `tempo` (the chain, the currency and the payers' keys)
 * — and runs until SIGTERM or SIGINT. Everything else goes to stderr.
 */
import { type EvmDevnet, startEvmDevnet } from './evm.js';
import { startTempoDevnet, type TempoDevnet } from './tempo.js';

/** How many funded Tempo payers the devnet hands out: anvil takes one expiring-nonce payment per sender. */
const TEMPO_PAYERS = 10;

/** The settings that make kasir accept x402 payments on the devnet's chain (as its Base chain). */
export function kasirEnv(evm: EvmDevnet): Record<string, string> {
  return {
    X402_BASE_NETWORK: evm.network,
    X402_BASE_RPC_URL: evm.rpcUrl,
    X402_BASE_ASSET: evm.asset,
    X402_BASE_PAY_TO: evm.payTo,
    X402_BASE_PRIVATE_KEY: evm.facilitator.privateKey,
  };
}

/**
 * The settings that make kasir accept MPP Tempo charges on the devnet's Tempo chain (fees sponsored; push payments
 * too, refunded from the payout wallet when their call fails).
 */
export function mppEnv(tempo: TempoDevnet): Record<string, string> {
  return {
    MPP_TEMPO_RECIPIENT: tempo.recipient.address,
    MPP_TEMPO_RPC_URL: tempo.rpcUrl,
    MPP_TEMPO_CHAIN_ID: String(tempo.chainId),
    MPP_TEMPO_CURRENCY: tempo.currency,
    MPP_TEMPO_FEE_PAYER_KEY: tempo.feePayer.privateKey,
    MPP_TEMPO_REFUND_KEY: tempo.recipient.privateKey,
  };
}

export async function runDevnet(): Promise<number> {
  const evm = await startEvmDevnet();
  const tempo = await startTempoDevnet().catch(async (err) => {
    await evm.stop();
    throw err;
  });
  const payers = [];
  for (let i = 0; i < TEMPO_PAYERS; i++) payers.push(await tempo.fundPayer());
  const line = {
    env: { ...kasirEnv(evm), ...mppEnv(tempo) },
    evm: {
      rpcUrl: evm.rpcUrl,
      network: evm.network,
      chainId: evm.chainId,
      asset: evm.asset,
      decimals: evm.decimals,
      payTo: evm.payTo,
      payer: evm.payer,
    },
    tempo: {
      rpcUrl: tempo.rpcUrl,
      chainId: tempo.chainId,
      currency: tempo.currency,
      recipient: tempo.recipient.address,
      // Each payer is good for one payment on anvil (one expiring-nonce transaction per sender).
      payers,
    },
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
  console.error(
    `kasir devnet: ${evm.network} at ${evm.rpcUrl}, Tempo chain ${tempo.chainId} at ${tempo.rpcUrl}; stop with Ctrl-C or SIGTERM`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await Promise.all([evm.stop(), tempo.stop()]);
  return 0;
}
