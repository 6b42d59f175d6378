/** Opens the x402 rail's chains from the configuration; null when no chain is configured (the rail is off). */
import type { FacilitatorAvmSigner } from '@x402/avm';
import type { FacilitatorSvmSigner } from '@x402/svm';
import type { X402Config } from '../../config/x402.js';
import type { Logger } from '../../http/logger.js';
import type { Db } from '../../store/db.js';
import type { Rail } from '../types.js';
import type { Chain } from './chain.js';
import { createX402Rail } from './rail.js';

/** Signers that replace the configured ones: a local Solana or Algorand ledger in tests. */
export interface X402SignerOverrides {
  svm?: FacilitatorSvmSigner;
  avm?: FacilitatorAvmSigner;
}

export async function openX402Rail(
  config: X402Config,
  deps: { db: Db; log: Logger },
  signers: X402SignerOverrides = {},
): Promise<Rail | null> {
  if (config.chains.length === 0) return null;
  // Each kind of chain's SDK loads only when a chain of that kind is configured (Base alone needs no Solana SDK).
  const chains: Chain[] = await Promise.all(
    config.chains.map(async (c) => {
      if (c.kind === 'evm') return (await import('./evm-chain.js')).openEvmChain(c, deps.log);
      if (c.kind === 'svm') return (await import('./svm-chain.js')).openSvmChain(c, signers.svm);
      return (await import('./avm-chain.js')).openAvmChain(c, signers.avm);
    }),
  );
  return createX402Rail({ ...deps, config, chains });
}
