/** Solana on the x402 rail: SPL USDC, the payer signs, the operator's fee payer pays the fee and settles. */
import { createKeyPairSignerFromBytes, getBase58Encoder } from '@solana/kit';
import { x402Facilitator } from '@x402/core/facilitator';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { type FacilitatorSvmSigner, toFacilitatorSvmSigner } from '@x402/svm';
import { registerExactSvmScheme } from '@x402/svm/exact/facilitator';
import { ExactSvmScheme } from '@x402/svm/exact/server';
import type { X402ChainConfig } from '../../config/x402.js';
import { type Chain, localFacilitator, memoRetry } from './chain.js';

/** USDC's decimals on Solana and Algorand; an operator's own mint or ASA must have the same. */
export const USDC_DECIMALS = 6;

export function openSvmChain(config: X402ChainConfig, signerOverride?: FacilitatorSvmSigner): Chain {
  let facilitator: Chain['facilitator'];
  if (config.facilitatorUrl && !signerOverride) {
    facilitator = new HTTPFacilitatorClient({ url: config.facilitatorUrl });
  } else {
    const signer = memoRetry(async () => {
      if (signerOverride) return signerOverride;
      const keyPair = await createKeyPairSignerFromBytes(getBase58Encoder().encode(config.signerKey ?? ''));
      return toFacilitatorSvmSigner(keyPair, { defaultRpcUrl: config.rpcUrl });
    });
    // The key pair is made asynchronously: the facilitator is built on first use.
    const fac = memoRetry(async () => {
      const f = new x402Facilitator();
      registerExactSvmScheme(f, {
        signer: await signer(),
        networks: config.network as `${string}:${string}`,
      });
      return localFacilitator(f);
    });
    facilitator = {
      verify: async (p, r) => (await fac()).verify(p, r),
      settle: async (p, r) => (await fac()).settle(p, r),
      getSupported: async () => (await fac()).getSupported(),
    };
  }
  return {
    config,
    assets: async () => config.assets.map((asset) => ({ asset, decimals: USDC_DECIMALS })),
    facilitator,
    serverScheme: new ExactSvmScheme(),
  };
}
