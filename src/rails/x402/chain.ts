/** One chain the x402 rail accepts payments on: its assets, the facilitator that settles there, its server scheme. */
import type { FacilitatorClient } from '@x402/core/server';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { X402ChainConfig } from '../../config/x402.js';

/** A token accepted on a chain, with what a payer's client needs to sign for it. */
export interface AcceptedAsset {
  asset: string;
  decimals: number;
  /** Scheme-specific requirement fields (EVM: the token's EIP-712 name and version). */
  extra?: Record<string, unknown>;
}

export interface Chain {
  config: X402ChainConfig;
  /** The accepted assets, read from the chain once where that is needed (EVM tokens' EIP-712 domain). */
  assets(): Promise<AcceptedAsset[]>;
  /** Verifies and settles: in-process with the operator's signer, or a remote facilitator. */
  facilitator: FacilitatorClient;
  /** The x402 server scheme that builds this chain's requirements (registered on the resource server). */
  serverScheme: unknown;
  /**
   * The transaction in which this very payment already moved its amount to its pay-to on this chain, or null when
   * it did not (or the chain cannot tell). Asked when a payment fails verification: one that a process settled and
   * then died before it answered is spent on chain but owed its answer.
   */
  settlementOf?(payload: PaymentPayload, requirements: PaymentRequirements): Promise<string | null>;
}

/** Adapts an in-process facilitator (whose getSupported is synchronous) to the client interface. */
export function localFacilitator(fac: {
  verify: FacilitatorClient['verify'];
  settle: FacilitatorClient['settle'];
  getSupported(): unknown;
}): FacilitatorClient {
  return {
    verify: (payload, requirements) => fac.verify(payload, requirements),
    settle: (payload, requirements) => fac.settle(payload, requirements),
    // The facilitator lists its kinds with plain-string networks; they are CAIP-2 ids all the same.
    getSupported: async () => fac.getSupported() as Awaited<ReturnType<FacilitatorClient['getSupported']>>,
  };
}

/** Retries a failed one-time read on the next call instead of keeping the failure forever. */
export function memoRetry<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= read().catch((err) => {
      pending = undefined;
      throw err;
    });
    return pending;
  };
}

/** A Map that forgets everything once it holds `max` entries (the entries are cheap to rebuild). */
export class BoundedCache<T> extends Map<string, T> {
  constructor(private readonly max: number) {
    super();
  }
  override set(key: string, value: T): this {
    if (this.size >= this.max) this.clear();
    return super.set(key, value);
  }
}
