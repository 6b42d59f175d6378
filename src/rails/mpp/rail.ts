/**
 * The MPP rail: the `Payment` HTTP authentication scheme on every /v1/* paid route. A 402 carries one
 * `WWW-Authenticate: Payment` challenge per method (Tempo charge, card), each bound by its HMAC id to the route and
 * method (`scope`), the body's digest and the amount; the caller repeats the identical request with
 * `Authorization: Payment <credential>` and the answer carries `Payment-Receipt`. kasir never holds a balance for
 * the payer: a pull payment (a Tempo transaction the payer signed) is verified before the call and broadcast only
 * after it succeeded; a card is authorized before and captured after; a push payment (already on-chain; accepted
 * only with a refund wallet) is sent back when the call fails (see authorization.ts). mppx verifies and broadcasts.
 * One idea, though long: what a Payment credential buys, decided in authorize() — whose pull-payment branch and the
 * claim it keeps in the MPP store (broadcasting, paid, remaking, settled; `remake`) are one state machine, read and
 * written only here.
 */
import { createHash } from 'node:crypto';
import { Challenge, Credential, Errors, PaymentRequest, Receipt, type Store } from 'mppx';
import type { Mppx } from 'mppx/server';
import type Stripe from 'stripe';
import type { MppConfig } from '../../config/mpp.js';
import { ApiError, type ErrorCode } from '../../http/errors.js';
import type { Logger } from '../../http/logger.js';
import type { Db } from '../../store/db.js';
import { isSessionCredential } from '../channel/session-wire.js';
import type { PaidRequest, Payer, Pricing, Rail, RailChallenge } from '../types.js';
import { PaymentRefusal } from '../types.js';
import { microUsdToDollars, wholeCents } from './amounts.js';
import { MppAuthorization, type Settlement } from './authorization.js';
import type { TempoRefunder } from './refunds.js';
import { chargeLookup } from './settlement-lookup.js';
import { CALL_CLAIM } from './store.js';
import { usedNonceChecker, usedNonceMessage } from './used-nonce.js';

/** One mppx handler per challenge secret: the first signs, every one verifies what it signed. */
export interface SignedHandlers {
  signer: MppxHandler;
  bySecret: Array<{ secret: string; handler: MppxHandler }>;
}

// The configured methods vary with the settings, so the handler is typed by what this rail calls on it.
export type MppxHandler = Pick<Mppx.Mppx, 'broadcastCredential' | 'validateCredential' | 'realm'> & {
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
  /** The MPP store (mppx's replay keys, kasir's claims on pull payments and its refund records). */
  store: Store.AtomicStore;
  /** Sends Tempo refunds (or records them as owed). */
  refunder: TempoRefunder;
}

interface Detail {
  credential: Credential.Credential | null;
  unreadable?: string;
}

/** A pull payment's claim once broadcast: 'paid' until its answer is stored, then 'settled' (see `remake`). */
interface PullClaim {
  type: typeof BROADCASTING | typeof PAID | typeof REMAKING | typeof SETTLED;
  /** SHA-256 of the credential's payload. */
  payload: string;
  /** The broadcast's receipt (serialized). */
  receipt?: string;
  /** Of a claim being made again: when its maker counts as dead. */
  until?: number;
  /** Of a broadcast: when it started. */
  at?: number;
}
const BROADCASTING = 'kasir:mpp:broadcasting';
const PAID = 'kasir:mpp:paid';
const REMAKING = 'kasir:mpp:remaking';
const SETTLED = 'kasir:mpp:settled';
/** How long a call making a paid payment's answer again holds it before another retry may. */
const REMAKE_CLAIM_MS = 60_000;
/**
 * How long after a broadcast started its outcome is on chain for good (mppx's client signs a pull transaction valid for
 * about 25 s): a claim still broadcasting after that was left by a process that died.
 */
const BROADCAST_SETTLED_MS = 40_000;

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
  const channelsOn = tempoOn && config.channels !== undefined;
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

  /** The challenges of one call: Tempo and card, at the quote. */
  async function challengesFor(pricing: Pricing, req: PaidRequest): Promise<Challenge.Challenge[]> {
    const cost = pricing.quote.costMicroUsd;
    const common = {
      scope: scopeOf(req),
      expires: expires(),
      description: pricing.description,
      amount: microUsdToDollars(cost),
      meta: { digest: req.bodyDigest },
    };
    const out: Challenge.Challenge[] = [];
    if (tempoOn) out.push(await issue('tempo', common));
    if (cardOn && wholeCents(cost) && cost >= (config.stripe?.minMicroUsd ?? 0)) {
      out.push(await issue('stripe', common));
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

  const ctx = {
    db,
    log,
    tempoNetwork: `eip155:${config.tempo?.chainId}`,
    refunder: deps.refunder,
    stripe: deps.stripe,
  };
  /** kasir's claim on a pull payment while its call runs (and after it paid), so it pays one call at a time. */
  const pullClaim = (challengeId: string) => `kasir:mpp:pull:${challengeId}`;
  /** The credential's payload, as a claim names it: only the same signed payment may have its answer made again. */
  const payloadHash = (credential: Credential.Credential) =>
    createHash('sha256')
      .update(JSON.stringify(credential.payload ?? null))
      .digest('hex');

  /**
   * Claims a pull payment that was broadcast by a call that never stored its answer (its process died), to make that
   * answer again: the settlement when this call won the claim, 'running' when another call holds it (or its broadcast
   * may still land), null when the claim is not of that kind or the payment never landed. A claim whose maker died
   * too is free again after REMAKE_CLAIM_MS. A broadcast its process did not see through is looked up on chain.
   */
  async function remake(
    key: string,
    credential: Credential.Credential,
    payer: Payer,
  ): Promise<Settlement | 'running' | null> {
    const hash = payloadHash(credential);
    const stale = (c: PullClaim) =>
      c.type === PAID ||
      (c.type === REMAKING && (c.until ?? 0) < Date.now()) ||
      (c.type === BROADCASTING && (c.at ?? 0) + BROADCAST_SETTLED_MS < Date.now());
    const current = (await deps.store.get(key)) as PullClaim | null;
    if (current?.payload !== hash || current.type === SETTLED) return null;
    if (!stale(current)) return current.type === BROADCASTING || current.type === REMAKING ? 'running' : null;
    let receipt = current.receipt;
    if (current.type === BROADCASTING || !receipt) {
      const address = payer.address?.split(':').at(-1);
      const request = credential.challenge.request as { amount?: string };
      const tx =
        address && request.amount && lookup
          ? await lookup({
              payer: address as `0x${string}`,
              challengeId: credential.challenge.id,
              realm: credential.challenge.realm,
              amount: BigInt(request.amount),
            }).catch((err: unknown) => {
              log.warn({ err }, 'mpp: cannot look up a charge on chain');
              return undefined;
            })
          : null;
      if (tx === undefined) return 'running'; // the chain did not answer: ask again later
      if (tx === null) return null; // never landed, and now never will
      receipt = Receipt.serialize({
        method: 'tempo',
        status: 'success',
        timestamp: new Date().toISOString(),
        reference: tx,
      } as Receipt.Receipt);
    }
    const won = (await deps.store.update(key, (c: unknown) =>
      (c as PullClaim | null)?.payload === hash && stale(c as PullClaim)
        ? {
            op: 'set',
            value: { type: REMAKING, payload: hash, receipt, until: Date.now() + REMAKE_CLAIM_MS },
            result: true,
          }
        : { op: 'noop', result: false },
    )) as boolean;
    if (!won) return 'running';
    const paid: PullClaim = { type: PAID, payload: hash, receipt };
    return {
      kind: 'paid',
      receipt: Receipt.deserialize(receipt),
      unclaim: () => deps.store.put(key, paid),
      handOver: () => deps.store.put(key, { type: SETTLED, payload: hash }),
    };
  }

  const usedNonce = config.tempo ? usedNonceChecker(config.tempo) : async () => null;
  const lookup = config.tempo ? chargeLookup(config.tempo) : null;
  /** Refuses a signed Tempo payment whose nonce its sender already used (the network would drop it unanswered). */
  async function refuseUsedNonce(credential: Credential.Credential): Promise<void> {
    const { payload } = credential as { payload?: { type?: unknown; signature?: unknown } };
    if (credential.challenge.method !== 'tempo' || payload?.type !== 'transaction') return;
    if (typeof payload.signature !== 'string') return;
    const used = await usedNonce(payload.signature);
    if (used) throw refuse('payment_invalid', usedNonceMessage(used), { nonce_used: String(used.nonce) });
  }

  /**
   * Runs an mppx verification, answering its payment errors as refusals and its other failures as a 502 — unless
   * the credential's transaction reuses a nonce (the network dropped it unanswered), which is said as such.
   */
  async function verified<T>(run: () => Promise<T>, credential?: Credential.Credential): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof Errors.PaymentError && err.status < 500) throw refuse(codeOf(err), err.message);
      if (credential) await refuseUsedNonce(credential);
      log.error({ err }, 'mpp: the payment could not be verified');
      throw new ApiError('upstream_error', 'the payment network could not be reached; nothing was charged');
    }
  }

  return {
    id: 'mpp',
    title: 'MPP: the Payment HTTP authentication scheme (Tempo stablecoin or card), per call',
    priceClass: 'wallet',
    // A tempo/session credential pays from a payment channel: the channel rail's, when channels are on.
    carries: (req) => {
      const header = req.header('authorization') ?? '';
      return /^payment\s/i.test(header) && !(channelsOn && isSessionCredential(header));
    },
    replaysByPayment: true,

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
      const options = {
        scope: scopeOf(req),
        meta: { digest: req.bodyDigest },
        request: { amount: microUsdToDollars(cost) },
      };
      const type = (credential.payload as { type?: unknown } | undefined)?.type;
      let settlement: Settlement;
      let address = payer.address;
      if (challenge.method === 'stripe') {
        // A card is authorized when verified: captured after the call succeeded, released if it failed.
        const receipt = await verified(() => handler.broadcastCredential(credential, options));
        settlement = { kind: 'card', receipt };
      } else {
        const key = pullClaim(challenge.id);
        const claim =
          type === 'transaction'
            ? ((await deps.store.get(key)) as { type?: string; at?: number } | null)
            : null;
        if (claim?.type === CALL_CLAIM) {
          // Claimed by a call that has not broadcast it: running now, or cut off with its process. The signed
          // transaction is valid for about 25 s (mppx's client): past BROADCAST_SETTLED_MS after the claim it can
          // never be taken, whatever became of that call, and saying so is final.
          // (A claim with no `at`, made before claims were dated, stays in progress until it lapses.)
          if (claim.at !== undefined && claim.at + BROADCAST_SETTLED_MS < Date.now())
            throw refuse(
              'payment_expired',
              'this payment was never taken (the call it paid for was cut off before it was) and its signed transaction has expired; pay again',
            );
          throw refuse(
            'payment_in_progress',
            'this payment is paying for a call that is running now; if that call was cut off, the payment is never taken and is refused as expired within a minute',
          );
        }
        if (claim) {
          // Broadcast, its answer never stored: this credential buys that answer, once.
          const again = await remake(key, credential, payer);
          if (again === 'running')
            throw refuse('payment_in_progress', 'this payment is paying for a call that is running now');
          if (again) return new MppAuthorization(payer, cost, ctx, challenge.id, again, req.path);
          throw refuse(
            'payment_replayed',
            'this credential is paying for another call, or has paid one already',
          );
        }
        // Verified without moving anything: the signed transaction simulates, the pushed one is on-chain.
        const validation = await verified(() => handler.validateCredential(credential, options), credential);
        // A transaction reusing a nonce would only time out when broadcast after the call: refused now, saying so.
        await refuseUsedNonce(credential);
        const sender = (validation.details as { sender?: string } | undefined)?.sender;
        if (sender) address = `did:pkh:eip155:${config.tempo?.chainId}:${sender.toLowerCase()}`;
        if (type === 'transaction') {
          const until = challenge.expires ? Date.parse(challenge.expires) : Date.now() + 3_600_000;
          if (!(await deps.store.tryClaim?.(key, until))) {
            throw refuse(
              'payment_replayed',
              'this credential is paying for another call, or has paid one already',
            );
          }
          const hash = payloadHash(credential);
          settlement = {
            kind: 'pull',
            broadcast: async () => {
              // From here the payment may land: a process dying before it knows leaves that to be looked up.
              const started: PullClaim = { type: BROADCASTING, payload: hash, at: Date.now() };
              await deps.store.put(key, started);
              const receipt = await handler.broadcastCredential(credential, options);
              // Spent, its answer not stored yet: a process dying from here on leaves the answer to be made again.
              const paid: PullClaim = { type: PAID, payload: hash, receipt: Receipt.serialize(receipt) };
              await deps.store.put(key, paid);
              return receipt;
            },
            release: () => deps.store.delete(key),
            handOver: () => deps.store.put(key, { type: SETTLED, payload: hash }),
          };
        } else {
          // A push payment: spent here once (mppx records its transaction hash), given back if the call fails.
          const receipt: Receipt.Receipt = await verified(
            () => handler.broadcastCredential(credential, options),
            credential,
          );
          settlement = { kind: 'push', receipt };
        }
      }
      return new MppAuthorization({ ...payer, address }, cost, ctx, challenge.id, settlement, req.path);
    },

    async challenge(pricing, req) {
      const challenges = await challengesFor(pricing, req);
      if (challenges.length === 0) return null;
      return {
        headers: challenges.map((c) => ['WWW-Authenticate', Challenge.serialize(c)] as [string, string]),
        body: {
          rail: 'mpp',
          how: 'Pay with an MPP client (the Payment HTTP authentication scheme): answer one WWW-Authenticate: Payment challenge and repeat this identical request with Authorization: Payment <credential>. A signed (pull) Tempo payment is broadcast and a card captured only when the call succeeds; a pushed Tempo payment is refunded on-chain when it fails.',
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
          'identical request with `Authorization: Payment <credential>`; the answer carries `Payment-Receipt`. A pull ' +
          'payment (a Tempo transaction you sign) is broadcast only after the call succeeded, so nothing moves for a ' +
          'failed call; a card is only authorized until the call succeeded; a push payment (one you broadcast) is ' +
          'refunded to you on-chain when the call fails.',
        example: `curl -i ${baseUrl}/v1/chat/completions -H 'content-type: application/json' -d '{"model":"openai/gpt-4.1-mini","messages":[{"role":"user","content":"Halo"}]}'   # 402 + WWW-Authenticate: Payment; pay it with mppx`,
      };
    },
  };
}
