/** Opens the x402 rail's chains from the configuration; null when no chain is configured (the rail is off). */
import type { FacilitatorAvmSigner } from '@x402/avm';
import type { FacilitatorSvmSigner } from '@x402/svm';
import type { X402Config } from '../../config/x402.js';
import type { Logger } from '../../http/logger.js';
import type { Db } from '../../store/db.js';
import type { Rail } from '../types.js';
import { openAvmChain } from './avm-chain.js';
import type { Chain } from './chain.js';
import { openEvmChain } from './evm-chain.js';
import { createX402Rail } from './rail.js';
import { openSvmChain } from './svm-chain.js';

/** Signers that replace the configured ones: a local Solana or Algorand ledger in tests. */
export interface X402SignerOverrides {
  svm?: FacilitatorSvmSigner;
  avm?: FacilitatorAvmSigner;
}

export function openX402Rail(
  config: X402Config,
  deps: { db: Db; log: Logger },
  signers: X402SignerOverrides = {},
): Rail | null {
  if (config.chains.length === 0) return null;
  const chains: Chain[] = config.chains.map((c) => {
    if (c.kind === 'evm') return openEvmChain(c, deps.log);
    if (c.kind === 'svm') return openSvmChain(c, signers.svm);
    return openAvmChain(c, signers.avm);
  });
  return createX402Rail({ ...deps, config, chains });
}
