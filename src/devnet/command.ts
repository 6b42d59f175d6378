/**
 * `kasir devnet`: local chains to try the wallet rails with no real money. Starts an EVM chain (anvil) with an
 * EIP-3009 USDC-like token, funds a payer, prints one JSON line on stdout once ready — `env` (every setting kasir
 * needs to accept payments on it) and `evm` (the chain, the token and the payer's key) — and runs until SIGTERM or
 * SIGINT. Everything else goes to stderr.
 */
import { type EvmDevnet, startEvmDevnet } from './evm.js';

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

export async function runDevnet(): Promise<number> {
  const evm = await startEvmDevnet();
  const line = {
    env: kasirEnv(evm),
    evm: {
      rpcUrl: evm.rpcUrl,
      network: evm.network,
      chainId: evm.chainId,
      asset: evm.asset,
      decimals: evm.decimals,
      payTo: evm.payTo,
      payer: evm.payer,
    },
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
  console.error(`kasir devnet: ${evm.network} at ${evm.rpcUrl}; stop with Ctrl-C or SIGTERM`);
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await evm.stop();
  return 0;
}
