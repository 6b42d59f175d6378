/** Algorand on the a402 rail: USDC (an ASA), the payer signs its transfer, the operator's fee payer pays the fee. */
import { type FacilitatorAvmSigner, toFacilitatorAvmSigner } from '@x402/avm';
import { ExactAvmScheme as AvmFacilitatorScheme } from '@x402/avm/exact/facilitator';
import { ExactAvmScheme as AvmServerScheme } from '@x402/avm/exact/server';
import { x402Facilitator } from '@x402/core/facilitator';
import { HTTPFacilitatorClient } from '@x402/core/server';
import type { X402ChainConfig } from '../../config/x402.js';
import { type Chain, localFacilitator } from './chain.js';
import { USDC_DECIMALS } from './svm-chain.js';

export function openAvmChain(config: X402ChainConfig, signerOverride?: FacilitatorAvmSigner): Chain {
  let facilitator: Chain['facilitator'];
  if (config.facilitatorUrl && !signerOverride) {
    facilitator = new HTTPFacilitatorClient({ url: config.facilitatorUrl });
  } else {
    const signer =
      signerOverride ??
      toFacilitatorAvmSigner(config.signerKey ?? '', {
        mainnetUrl: config.rpcUrl,
        testnetUrl: config.rpcUrl,
      });
    const fac = new x402Facilitator();
    // @x402/avm carries its own copy of @x402/core's types; the scheme object is the same shape.
    fac.register(
      config.network as `${string}:${string}`,
      new AvmFacilitatorScheme(signer) as unknown as Parameters<typeof fac.register>[1],
    );
    facilitator = localFacilitator(fac);
  }
  return {
    config,
    assets: async () => config.assets.map((asset) => ({ asset, decimals: USDC_DECIMALS })),
    facilitator,
    serverScheme: new AvmServerScheme(),
  };
}
