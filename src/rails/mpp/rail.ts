/**
 * The MPP rail: the `Payment` HTTP authentication scheme on every /v1/* paid route. A 402 carries one
 * `WWW-Authenticate: Payment` challenge per method (Tempo charge, card), each bound by its HMAC id to the route and
 * method (`scope`), the body's digest and the amount; the caller repeats the identical request with
 * `Authorization: Payment <credential>` and the answer carries `Payment-Receipt`. mppx verifies and settles, and it
 * settles when it verifies: so a call that fails afterwards gives the money back — a Tempo payment as credit of the
 * payer's (spent on its next calls through a zero-amount challenge, see `Payment-Payer`), a card payment as a
 * Stripe refund.
 */
import { createHash } from 'node:crypto';
import { Challenge, Credential, Errors, PaymentRequest, Receipt } from 'mppx';
import type { Mppx } from 'mppx/server';
import type Stripe from 'stripe';
import type { MppConfig } from '../../config-mpp.js';
import { ApiError, type ErrorCode } from '../../http/errors.js';
import type { Logger } from '../../http/logger.js';
import { creditPayer, payerCredit, spendPayerCredit } from '../../ledger/payer-credits.js';
import { recordWalletUsage } from '../../ledger/wallet-payments.js';
import type { Db } from '../../store/db.js';
import type {
  Authorization,
  PaidRequest,
  Payer,
  Pricing,
  Rail,
  RailChallenge,
  RailReceipt,
  UsageFacts,
} from '../types.js';
import { PaymentRefusal } from '../types.js';
import { usageRow } from '../usage.js';
import { microUsdToDollars, wholeCents } from './amounts.js';

/** The header a payer names itself with (`did:pkh:eip155:<chain>:<address>`) to be offered its credit. */
export const PAYMENT_PAYER = 'payment-payer';

/** One mppx handler per challenge secret: the first signs, every one verifies what it signed. */
export interface SignedHandlers {
  signer: MppxHandler;
  bySecret: Array<{ secret: string; handler: MppxHandler }>;
}

// The configured methods vary with the settings, so the handler is typed by what this rail calls on it.
export type MppxHandler = Pick<Mppx.Mppx, 'broadcastCredential' | 'realm'> & {
  challenge: Record<
    string,
    Record<string, (options: Record<string, unknown>) => Promise<Challenge.Challenge>>
  >;
};

export interface MppRailDeps {
  db: Db;
  log: Logger;
  config: MppConfig;
  handlers: () => SignedHandlers;
  /** The card method's Stripe client (refunds), when cards are on. */
  stripe: Stripe | undefined;
}

interface Detail {
  credential: Credential.Credential | null;
  unreadable?: string;
}

/** The DID of a credential's payer, lower-cased (`did:pkh:eip155:<chain>:<address>`), when it names one. */
function payerDid(source: string | undefined): string | null {
  const m = /^did:pkh:eip155:(\d+):(0x[0-9a-fA-F]{40})$/.exec(source ?? '');
  return m ? `did:pkh:eip155:${m[1]}:${m[2]?.toLowerCase()}` : null;
}

/** The server-defined data a challenge carries (its `opaque`, HMAC-bound), as parsed from a header or credential. */
export function challengeMeta(challenge: Challenge.Challenge): Record<string, string> {
  if (challenge.meta) return challenge.meta;
  return challenge.opaque ? (PaymentRequest.deserialize(challenge.opaque) as Record<string, string>) : {};
}

/** kasir's code for an mppx payment error (the problem type follows from the code). */
function codeOf(err: Errors.PaymentError): ErrorCode {
  if (err instanceof Errors.PaymentExpiredError) return 'payment_expired';
  if (err instanceof Errors.MalformedCredentialError) return 'payment_malformed';
  if (err instanceof Errors.InvalidChallengeError) return 'payment_challenge_invalid';
  if (err instanceof Errors.PaymentInsufficientError || err instanceof Errors.InsufficientBalanceError) {
    return 'payment_insufficient';
  }
  if (err instanceof Errors.PaymentMethodUnsupportedError) return 'payment_method_unsupported';
  // A payment spent before (mppx: "Transaction hash has already been used", "Proof credential has already been
  // used") is a replay, named as x402 names it.
  if (err instanceof Errors.VerificationFailedError && /has already been used/i.test(err.message)) {
    return 'payment_replayed';
  }
  return 'payment_invalid';
}

export function createMppRail(deps: MppRailDeps): Rail {
  const { db, log, config } = deps;
  const tempoOn = config.tempo !== undefined;
  const cardOn = config.stripe !== undefined;
  const refuse = (code: ErrorCode, message: string, details?: unknown) =>
    new PaymentRefusal(code, message, details);

  const scopeOf = (req: PaidRequest) => `${req.method} ${req.path}`;
  const expires = () => new Date(Date.now() + config.challengeTtlSeconds * 1000).toISOString();

  /** A challenge of one of the configured methods, signed with the current secret. */
  const issue = (method: 'tempo' | 'stripe', options: Record<string, unknown>) => {
    const make = deps.handlers().signer.challenge[method]?.charge;
    if (!make) throw new Error(`mpp: the ${method} charge method is not configured`);
    return make(options);
  };

  /** The challenges of one call: Tempo and card at the quote, and the payer's credit when it covers the call. */
  async function challengesFor(pricing: Pricing, req: PaidRequest): Promise<Challenge.Challenge[]> {
    const cost = pricing.quote.costMicroUsd;
    const common = {
      scope: scopeOf(req),
      expires: expires(),
      description: pricing.description,
    };
    const out: Challenge.Challenge[] = [];
    const named = payerDid(req.header(PAYMENT_PAYER));
    if (tempoOn && named && (await payerCredit(db, named)) >= cost) {
      // A zero-amount challenge: the payer proves it holds the address (an EIP-712 proof, no transfer), and the
      // call is paid from its credit. Listed first, so a client that can sign it prefers it.
      out.push(
        await issue('tempo', {
          ...common,
          amount: '0',
          meta: { digest: req.bodyDigest, credit: String(cost), payer: named },
        }),
      );
    }
    if (tempoOn) {
      out.push(
        await issue('tempo', {
          ...common,
          amount: microUsdToDollars(cost),
          meta: { digest: req.bodyDigest },
        }),
      );
    }
    if (cardOn && wholeCents(cost) && cost >= (config.stripe?.minMicroUsd ?? 0)) {
      out.push(
        await issue('stripe', {
          ...common,
          amount: microUsdToDollars(cost),
          meta: { digest: req.bodyDigest },
        }),
      );
    }
    return out;
  }

  /** The handler whose secret signed this challenge, or null (not issued here, or its secret retired). */
  function verifierOf(challenge: Challenge.Challenge): MppxHandler | null {
    for (const { secret, handler } of deps.handlers().bySecret) {
      if (Challenge.verify(challenge, { secretKey: secret })) return handler;
    }
    return null;
  }

  class MppAuthorization implements Authorization {
    constructor(
      readonly payer: Payer,
      readonly amountMicroUsd: number,
      private readonly credential: Credential.Credential,
      private readonly receipt: Receipt.Receipt,
      private readonly fromCredit: boolean,
      private readonly route: string,
    ) {}

    private get network() {
      return this.receipt.method === 'tempo' ? `eip155:${config.tempo?.chainId}` : this.receipt.method;
    }

    private headers() {
      return { 'payment-receipt': Receipt.serialize(this.receipt), 'cache-control': 'private' };
    }

    private async record(usage: UsageFacts, charged: number) {
      const row = usageRow(usage, { rail: 'mpp', payer: this.payer, chargedMicroUsd: charged });
      await recordWalletUsage(db, row, {
        route: this.route,
        network: this.fromCredit ? 'credit' : this.network,
        txId: this.fromCredit ? null : this.receipt.reference,
      });
    }

    async capture(usage: UsageFacts): Promise<RailReceipt> {
      await this.record(usage, this.amountMicroUsd);
      return {
        headers: this.headers(),
        receipt: {
          rail: 'mpp',
          method: this.receipt.method,
          reference: this.fromCredit ? null : this.receipt.reference,
          paid_from: this.fromCredit ? 'credit' : this.receipt.method,
          payer: this.payer.address,
          charged_micro_usd: this.amountMicroUsd,
        },
      };
    }

    /** The payment already moved: a Tempo payment (or spent credit) becomes the payer's credit, a card is refunded. */
    async void(usage: UsageFacts): Promise<RailReceipt> {
      const id = this.credential.challenge.id;
      const given: Record<string, unknown> = { rail: 'mpp', charged_micro_usd: 0 };
      if (this.receipt.method === 'stripe') {
        try {
          await deps.stripe?.refunds.create(
            { payment_intent: this.receipt.reference },
            { idempotencyKey: `kasir_refund_${id}` },
          );
          given.refunded = this.receipt.reference;
        } catch (err) {
          log.error({ err, reference: this.receipt.reference }, 'mpp: could not refund a card payment');
          given.refund_failed = this.receipt.reference;
        }
      } else if (this.payer.address) {
        await creditPayer(db, {
          id: `refund:${id}`,
          payer: this.payer.address,
          amountMicroUsd: this.amountMicroUsd,
          reason: `call ${usage.requestId} failed (${usage.errorCode ?? usage.httpStatus})`,
        });
        given.credited_micro_usd = this.amountMicroUsd;
        given.credit_micro_usd = await payerCredit(db, this.payer.address);
        given.payer = this.payer.address;
      }
      await this.record(usage, 0);
      const headers: Record<string, string> = {};
      if (typeof given.credit_micro_usd === 'number')
        headers['x-payer-credit-micro-usd'] = String(given.credit_micro_usd);
      return { headers, receipt: given };
    }

    streamHeaders(): Record<string, string> {
      // Paid when verified: the receipt is known before the first byte.
      return this.headers();
    }
  }

  return {
    id: 'mpp',
    title: 'MPP: the Payment HTTP authentication scheme (Tempo stablecoin or card), per call',
    priceClass: 'wallet',
    carries: (req) => /^payment\s/i.test(req.header('authorization') ?? ''),

    async identify(req) {
      const header = req.header('authorization') ?? '';
      const detail: Detail = { credential: null };
      try {
        detail.credential = Credential.deserialize(header);
      } catch (err) {
        detail.unreadable = (err as Error).message;
      }
      const address = payerDid(detail.credential?.source);
      // Idempotency-Key replays are scoped to the credential itself (nothing is verified yet).
      const scope = createHash('sha256').update(header).digest('hex');
      return { rail: 'mpp', accountId: null, keyId: null, address, scope, detail };
    },

    async authorize(payer, pricing, req) {
      const { credential, unreadable } = payer.detail as Detail;
      if (!credential) {
        throw refuse('payment_malformed', `the Payment credential cannot be read: ${unreadable ?? 'empty'}`);
      }
      const { challenge } = credential;
      if (!(challenge.method === 'tempo' && tempoOn) && !(challenge.method === 'stripe' && cardOn)) {
        throw refuse(
          'payment_method_unsupported',
          `payment method ${challenge.method}/${challenge.intent} is not accepted here`,
        );
      }
      const handler = verifierOf(challenge);
      if (!handler)
        throw refuse(
          'payment_challenge_invalid',
          'the challenge was not issued by this server (or has been retired)',
        );
      const cost = pricing.quote.costMicroUsd;
      const meta = challengeMeta(challenge);
      const fromCredit = meta.credit !== undefined;
      const named = fromCredit ? meta.payer : undefined;
      if (fromCredit && meta.credit !== String(cost)) {
        throw refuse('payment_challenge_invalid', 'the credit challenge was issued for another price');
      }
      let receipt: Receipt.Receipt;
      try {
        receipt = await handler.broadcastCredential(credential, {
          scope: scopeOf(req),
          meta: fromCredit
            ? { digest: req.bodyDigest, credit: String(cost), payer: named ?? '' }
            : { digest: req.bodyDigest },
          request: { amount: fromCredit ? '0' : microUsdToDollars(cost) },
        });
      } catch (err) {
        if (err instanceof Errors.PaymentError && err.status < 500) throw refuse(codeOf(err), err.message);
        log.error({ err }, 'mpp: the payment could not be verified');
        throw new ApiError('upstream_error', 'the payment network could not be reached; nothing was charged');
      }
      const address = payer.address ?? null;
      if (fromCredit) {
        // The proof shows the payer holds the address the credit belongs to; the credit pays, once per challenge.
        if (!address || address !== named)
          throw refuse('payment_challenge_invalid', 'the credit belongs to another payer');
        const spent = await spendPayerCredit(db, {
          id: `spend:${challenge.id}`,
          payer: address,
          amountMicroUsd: cost,
          reason: `call ${req.requestId}`,
        });
        if (!spent) throw refuse('payment_insufficient', "the payer's credit no longer covers this call");
      }
      return new MppAuthorization({ ...payer, address }, cost, credential, receipt, fromCredit, req.path);
    },

    async challenge(pricing, req) {
      const challenges = await challengesFor(pricing, req);
      if (challenges.length === 0) return null;
      return {
        headers: challenges.map((c) => ['WWW-Authenticate', Challenge.serialize(c)] as [string, string]),
        body: {
          rail: 'mpp',
          how: 'Pay with an MPP client (the Payment HTTP authentication scheme): answer one WWW-Authenticate: Payment challenge and repeat this identical request with Authorization: Payment <credential>. A payment for a call that then fails becomes your credit (Tempo) or is refunded (card).',
          challenges: challenges.map((c) => ({
            id: c.id,
            method: c.method,
            intent: c.intent,
            amount: (c.request as { amount?: string }).amount ?? null,
            expires: c.expires ?? null,
          })),
        },
      } satisfies RailChallenge;
    },

    describe(baseUrl) {
      return {
        id: 'mpp',
        title: 'MPP (Tempo stablecoin charge or card)',
        howToPay:
          'Call any /v1/* paid route without payment: the 402 carries `WWW-Authenticate: Payment` challenges (one per ' +
          'method, bound to this route, body and price). Pay one with an MPP client such as `mppx` and repeat the ' +
          'identical request with `Authorization: Payment <credential>`; the answer carries `Payment-Receipt`. A call ' +
          'that fails after paying becomes credit of the payer (send `Payment-Payer: did:pkh:eip155:<chain>:<address>` ' +
          'to be offered it) or, for a card, is refunded.',
        example: `curl -i ${baseUrl}/v1/chat/completions -H 'content-type: application/json' -d '{"model":"openai/gpt-4.1-mini","messages":[{"role":"user","content":"Halo"}]}'   # 402 + WWW-Authenticate: Payment; pay it with mppx`,
      };
    },
  };
}
