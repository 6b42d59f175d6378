/**
 * The x402 rail (v2): a wallet pays per call, no signup. The 402 carries `PAYMENT-REQUIRED` listing every chain and
 * asset the route accepts at the quote; the caller repeats the request with `PAYMENT-SIGNATURE`. Then: verify →
 * lock the payment's identity in the database (so one payment buys one call on every instance) → run → settle only
 * on success → `PAYMENT-RESPONSE`. A failed call releases the lock and settles nothing. A payment that settled and
 * whose answer was not stored (its process died in between) buys its answer again, once, when it is sent again
 * (see `again`). The schemes, signatures and transaction formats are @x402/*'s; this file decides what is accepted
 * where and locks each payment to one call; authorization.ts settles it once the call's outcome is known.
 */

import { createHash } from 'node:crypto';
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader } from '@x402/core/http';
import { x402ResourceServer } from '@x402/core/server';
import type { PaymentPayload } from '@x402/core/types';
import { X402_FAMILIES, type X402Config, type X402Family } from '../../config/x402.js';
import type { Logger } from '../../http/logger.js';
import { lockWalletPayment, reclaimPaidWalletPayment, walletPayment } from '../../ledger/wallet-payments.js';
import type { Db } from '../../store/db.js';
import type { PaidRequest, Pricing, Rail, RailChallenge } from '../types.js';
import { PaymentRefusal } from '../types.js';
import { baseUnits } from './amounts.js';
import { type Offered, X402Authorization } from './authorization.js';
import { BoundedCache, type Chain, memoRetry } from './chain.js';
import { bazaarExtension } from './discovery.js';
import { claimedPayer, paymentIdentity } from './identity.js';

export const PAYMENT_SIGNATURE = 'payment-signature';

/** The route family of a path (its first segment), or null on any other route, where every chain is accepted. */
function familyOf(path: string): X402Family | null {
  const first = path.split('/', 2)[1];
  return X402_FAMILIES.find((f) => f === first) ?? null;
}

interface Detail {
  payload: PaymentPayload | null;
  /** Why the header could not be read, when it could not. */
  unreadable?: string;
}

export interface X402RailDeps {
  db: Db;
  log: Logger;
  config: X402Config;
  chains: Chain[];
}

export function createX402Rail(deps: X402RailDeps): Rail {
  const { db, log, config, chains } = deps;
  const server = new x402ResourceServer(chains.map((c) => c.facilitator));
  for (const chain of chains) {
    server.register(
      chain.config.network as `${string}:${string}`,
      chain.serverScheme as Parameters<typeof server.register>[1],
    );
  }
  const ready = memoRetry(() => server.initialize());
  const settlement = { db, server };

  /**
   * Every accepted (chain, asset) at the quote, for the route's family; a chain that cannot be read is skipped
   * (and that answer not remembered). Remembered per family and amount: agents repeat their calls, and a 402 must
   * cost less than the paid call it precedes.
   */
  const offeredCache = new BoundedCache<Offered[]>(1000);
  async function offered(pricing: Pricing, path: string): Promise<Offered[]> {
    const family = familyOf(path);
    const key = `${family}|${pricing.quote.costMicroUsd}`;
    const known = offeredCache.get(key);
    if (known) return known;
    await ready();
    let complete = true;
    const out: Offered[] = [];
    for (const chain of chains) {
      if (family && chain.config.family !== family) continue;
      let assets: Awaited<ReturnType<Chain['assets']>>;
      try {
        assets = await chain.assets();
      } catch (err) {
        log.error({ err, network: chain.config.network }, 'x402: cannot read the accepted assets');
        complete = false;
        continue;
      }
      for (const asset of assets) {
        const [requirements] = await server.buildPaymentRequirements({
          scheme: 'exact',
          network: chain.config.network as `${string}:${string}`,
          payTo: chain.config.payTo,
          price: {
            amount: baseUnits(pricing.quote.costMicroUsd, asset.decimals),
            asset: asset.asset,
            ...(asset.extra ? { extra: asset.extra } : {}),
          },
          maxTimeoutSeconds: config.maxTimeoutSeconds,
        });
        if (requirements) out.push({ chain, requirements });
      }
    }
    if (complete) offeredCache.set(key, out);
    return out;
  }
  /** Challenges without a refusal, per resource and quote (the same reasoning). */
  const challengeCache = new BoundedCache<RailChallenge | null>(1000);

  const refuse = (
    code: ConstructorParameters<typeof PaymentRefusal>[0],
    message: string,
    details?: unknown,
  ) => new PaymentRefusal(code, message, details);

  async function buildChallenge(
    pricing: Pricing,
    req: PaidRequest,
    refusal?: PaymentRefusal,
  ): Promise<RailChallenge | null> {
    const options = await offered(pricing, req.path);
    if (options.length === 0) return null;
    const requirements = options.map((o) => o.requirements);
    const paymentRequired = await server.createPaymentRequiredResponse(
      requirements,
      { url: req.resourceUrl, description: pricing.description, mimeType: 'application/json' },
      refusal?.message ?? 'Payment required',
      pricing.inputSchema ? bazaarExtension(pricing.offerId, pricing.inputSchema) : undefined,
    );
    return {
      headers: [['PAYMENT-REQUIRED', encodePaymentRequiredHeader(paymentRequired)]],
      body: {
        rail: 'x402',
        how: 'Pay with an x402 v2 client: sign one of the PAYMENT-REQUIRED options and repeat this request with a PAYMENT-SIGNATURE header. Settled only on success.',
        accepts: requirements.map((r) => ({
          network: r.network,
          asset: r.asset,
          amount: r.amount,
          pay_to: r.payTo,
        })),
      },
    };
  }

  const replayed = () => refuse('payment_replayed', 'this payment has already paid for a call');
  const inProgress = () =>
    refuse('payment_in_progress', 'this payment is paying for a call that is running now');

  /**
   * The transaction in which this payment already settled to its pay-to, when its chain can tell (null else, or when
   * the chain cannot be read: the payment is then refused as it would have been).
   */
  async function again(payload: PaymentPayload, chosen: Offered): Promise<string | null> {
    try {
      return (await chosen.chain.settlementOf?.(payload, chosen.requirements)) ?? null;
    } catch (err) {
      log.warn({ err, network: chosen.chain.config.network }, 'x402: cannot look up a settlement');
      return null;
    }
  }

  return {
    id: 'x402',
    title: 'x402: USDC and other stablecoins from a wallet, per call',
    priceClass: 'wallet',
    serves(path) {
      const family = familyOf(path);
      return family === null || chains.some((c) => c.config.family === family);
    },
    carries: (req) => req.header(PAYMENT_SIGNATURE) !== undefined,
    replaysByPayment: true,

    // The payload is only read here; a bad one is refused by authorize(), whose refusal carries a fresh challenge.
    async identify(req) {
      const header = req.header(PAYMENT_SIGNATURE) ?? '';
      const detail: Detail = { payload: null };
      try {
        detail.payload = decodePaymentSignatureHeader(header);
      } catch (err) {
        detail.unreadable = (err as Error).message;
      }
      const address = detail.payload ? claimedPayer(detail.payload) : null;
      // Idempotency-Key replays are scoped to the payment itself: nothing here is verified yet (a payload can name
      // any payer), and only the holder of this very payment may have its stored result again.
      const scope = createHash('sha256').update(header).digest('hex');
      return { rail: 'x402', accountId: null, keyId: null, address, scope, detail };
    },

    async authorize(payer, pricing, req) {
      const { payload, unreadable } = payer.detail as Detail;
      if (!payload || typeof payload.accepted !== 'object' || payload.accepted === null) {
        throw refuse('payment_invalid', `the PAYMENT-SIGNATURE header is not an x402 v2 payment payload`, {
          reason: unreadable ?? 'no accepted requirements in the payload',
        });
      }
      if (payload.x402Version !== 2) {
        throw refuse(
          'payment_invalid',
          `x402 version ${String(payload.x402Version)} is not accepted; send v2`,
        );
      }
      const options = await offered(pricing, req.path);
      const match = server.findMatchingRequirements(
        options.map((o) => o.requirements),
        payload,
      );
      const chosen = options.find((o) => o.requirements === match);
      if (!chosen) {
        const a = payload.accepted;
        throw refuse(
          'payment_invalid',
          `the payment (${a.amount} of ${a.asset} on ${a.network} to ${a.payTo}) matches none of the options this route accepts at ${pricing.quote.costMicroUsd} micro-USD`,
          { reason: 'no_matching_requirements' },
        );
      }
      const id = paymentIdentity(payload, chosen.chain.config.kind);
      if (!id) throw refuse('payment_invalid', 'the payment payload has no identity on its chain');
      const facts = {
        id,
        rail: 'x402',
        network: chosen.requirements.network,
        asset: chosen.requirements.asset,
        payer: payer.address ?? 'unknown',
        amount: chosen.requirements.amount,
        amount_micro_usd: pricing.quote.costMicroUsd,
        route: req.path,
        offer_id: pricing.offerId,
        request_id: req.requestId,
      };
      /** The call that makes the answer of a payment that settled in `tx` and never got it (see `again`). */
      const redo = (tx: string) =>
        new X402Authorization(
          settlement,
          payer,
          pricing.quote.costMicroUsd,
          payload,
          chosen,
          id,
          req.path,
          tx,
        );
      const known = await walletPayment(db, id);
      // A payment spent here before is named as such (its chain would only say the simulation failed).
      if (known?.state === 'settled') throw replayed();
      if (known?.state === 'paid') {
        // Settled, its answer never stored: this payment (the payer's own signature of it) buys that answer, once.
        const tx = known.tx_id;
        if (tx === null || known.route !== req.path || (await again(payload, chosen)) !== tx)
          throw replayed();
        if (!(await reclaimPaidWalletPayment(db, id))) throw inProgress();
        return redo(tx);
      }
      // Its call is running (or its process died, and a sweeper lets it go after HOLD_TTL_SECONDS).
      if (known?.state === 'running') throw inProgress();
      const verified = await server.verifyPayment(payload, chosen.requirements);
      if (!verified.isValid) {
        // Refused on chain because it is spent there: settled by a process that died before it recorded it. Its
        // answer is owed; this call makes it (the lock, with its transaction, keeps a second one from doing so too).
        const tx = await again(payload, chosen);
        if (tx) {
          const lock = await lockWalletPayment(db, facts, tx);
          if (lock === 'locked') return redo(tx);
          throw lock === 'settled' ? replayed() : inProgress();
        }
        throw refuse(
          'payment_invalid',
          `the payment was refused: ${verified.invalidMessage ?? verified.invalidReason ?? 'invalid'}`,
          { reason: verified.invalidReason ?? null },
        );
      }
      const address = verified.payer ?? payer.address ?? 'unknown';
      const lock = await lockWalletPayment(db, { ...facts, payer: address });
      if (lock === 'settled') throw replayed();
      if (lock !== 'locked') throw inProgress();
      return new X402Authorization(
        settlement,
        { ...payer, address },
        pricing.quote.costMicroUsd,
        payload,
        chosen,
        id,
        req.path,
      );
    },

    async challenge(pricing, req, refusal) {
      const key = `${req.resourceUrl}|${pricing.offerId}|${pricing.quote.costMicroUsd}`;
      if (!refusal && challengeCache.has(key)) return challengeCache.get(key) ?? null;
      const built = await buildChallenge(pricing, req, refusal);
      if (!refusal) challengeCache.set(key, built);
      return built;
    },

    describe(baseUrl) {
      return {
        id: 'x402',
        title: 'x402 (USDC on Base and Solana; /a402 Algorand; /b402 BNB Smart Chain)',
        howToPay:
          'Call any paid route without payment: the 402 carries a `PAYMENT-REQUIRED` header (x402 v2) listing the ' +
          'networks and assets accepted at the quote. Sign one with an x402 client and repeat the identical request ' +
          'with `PAYMENT-SIGNATURE`. The payment settles only when the call succeeds; the answer carries `PAYMENT-RESPONSE`.',
        example:
          `curl -i ${baseUrl}/x402/openai/gpt-4.1-mini -H 'content-type: application/json' ` +
          `-d '{"messages":[{"role":"user","content":"Halo"}]}'   # 402 + PAYMENT-REQUIRED; pay it with an x402 client such as @x402/fetch`,
      };
    },
  };
}
