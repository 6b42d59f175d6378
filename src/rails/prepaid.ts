/**
 * The prepaid-key rail: `Authorization: Bearer <key>` reserves the quote from the account (from this instance's
 * balance lease, or one database hold per call for capped keys), then captures or releases it.
 */
import { ApiError } from '../http/errors.js';
import type { KeyResolver, ResolvedKey } from '../ledger/accounts.js';
import { type Balance, captureHold, getBalance, placeHold, releaseHold } from '../ledger/books.js';
import { InsufficientBalanceError, SpendCapExceededError } from '../ledger/errors.js';
import type { Reservation, Reserves } from '../ledger/reserves.js';
import type { Db } from '../store/db.js';
import type { Authorization, JobHolds, Payer, Rail, RailReceipt, UsageFacts } from './types.js';
import { usageRow } from './usage.js';

export const CHARGED_HEADER = 'x-service-charged-micro-usd';
export const BALANCE_HEADER = 'x-service-balance-micro-usd';

export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1] ?? null;
}

/** The prepaid key's challenge on a 402: `Bearer realm="kasir", docs="<base>/skill.md", keys="<base>/dashboard"`. */
export const bearerChallenge = (baseUrl: string): string =>
  `Bearer realm="kasir", docs="${baseUrl}/skill.md", keys="${baseUrl}/dashboard"`;

/** The headers every answer to a prepaid key carries: what the call charged, and the balance after it. */
export const prepaidHeaders = (chargedMicroUsd: number, balanceMicroUsd: number): Record<string, string> => ({
  [CHARGED_HEADER]: String(chargedMicroUsd),
  [BALANCE_HEADER]: String(balanceMicroUsd),
});

const receiptOf = (charged: number, balance: Balance, receiptId: string): RailReceipt => ({
  headers: prepaidHeaders(charged, balance.balanceMicroUsd),
  receipt: {
    rail: 'prepaid',
    receipt_id: receiptId,
    account_id: balance.accountId,
    charged_micro_usd: charged,
    balance_micro_usd: balance.balanceMicroUsd,
  },
});

/** A refused reservation as the caller's 402. */
function refusal(err: unknown, amount: number): unknown {
  if (err instanceof InsufficientBalanceError) {
    return new ApiError(
      'insufficient_balance',
      `balance too low: this call costs ${amount} micro-USD and ${err.available} is available (short by ${err.shortfall})`,
      {
        price_micro_usd: amount,
        available_micro_usd: err.available,
        shortfall_micro_usd: err.shortfall,
        balance_micro_usd: err.balance,
      },
      prepaidHeaders(0, err.balance),
    );
  }
  if (err instanceof SpendCapExceededError) {
    return new ApiError(
      'spend_cap_exceeded',
      `this key's spend cap leaves ${err.remaining} micro-USD; the call costs ${amount}`,
      { price_micro_usd: amount, remaining_micro_usd: err.remaining },
      { [CHARGED_HEADER]: '0' },
    );
  }
  return err;
}

/** One call's reservation on the prepaid rail (a class, not an object of closures: one allocation per call). */
class PrepaidAuthorization implements Authorization {
  constructor(
    readonly payer: Payer,
    readonly amountMicroUsd: number,
    private readonly held: Reservation,
  ) {}

  async capture(usage: UsageFacts): Promise<RailReceipt> {
    const row = usageRow(usage, { rail: 'prepaid', payer: this.payer, chargedMicroUsd: this.amountMicroUsd });
    const taken = await this.held.capture(row);
    const receipt = receiptOf(this.amountMicroUsd, taken.balance, this.held.id);
    receipt.commit = taken.commit;
    return receipt;
  }

  async void(usage: UsageFacts): Promise<RailReceipt> {
    const row = usageRow(usage, { rail: 'prepaid', payer: this.payer, chargedMicroUsd: 0 });
    return receiptOf(0, await this.held.release(row), this.held.id);
  }

  streamHeaders(): Record<string, string> {
    // The settled figures arrive in the stream's final chunk; these state what success charges.
    return prepaidHeaders(this.amountMicroUsd, this.held.balanceAfterCharge);
  }
}

export function createPrepaidRail(deps: {
  db: Db;
  keys: KeyResolver;
  /** Where calls' money is reserved (balance leases, or a hold per call). */
  reserves: Reserves;
}): Rail {
  const { db, keys } = deps;

  // An async job's money: a hold of its own in the database (not this instance's lease), so any instance can settle it.
  const jobs: JobHolds = {
    async hold(payer, pricing, req, ttlSeconds) {
      const key = payer.detail as ResolvedKey;
      const amount = pricing.quote.costMicroUsd;
      try {
        const placed = await placeHold(db, {
          accountId: key.accountId,
          keyId: key.keyId,
          keySpendCapped: key.spendCapped,
          amountMicroUsd: amount,
          offerId: pricing.offerId,
          requestId: req.requestId,
          ttlSeconds,
        });
        return { holdId: placed.holdId, headers: prepaidHeaders(0, placed.balance.balanceMicroUsd) };
      } catch (err) {
        throw refusal(err, amount);
      }
    },
    async settle(holdId, outcome, payer, usage) {
      const full: Payer = {
        rail: 'prepaid',
        accountId: payer.accountId,
        keyId: payer.keyId,
        address: null,
        scope: '',
      };
      const charged = outcome === 'capture' ? usage.quoteMicroUsd : 0;
      const row = usageRow(usage, { rail: 'prepaid', payer: full, chargedMicroUsd: charged });
      const settled =
        outcome === 'capture' ? await captureHold(db, holdId, row) : await releaseHold(db, holdId, row);
      // A hold released by the sweeper before the job ended charged nothing.
      const really = settled.status === 'captured' ? charged : 0;
      return { ...receiptOf(really, settled.balance, holdId), charged: really > 0 };
    },
  };

  return {
    id: 'prepaid',
    jobs,
    title: 'Prepaid balance with an API key',
    priceClass: 'prepaid',
    carries: (req) => bearerToken(req.header('authorization')) !== null,

    async identify(req) {
      const token = bearerToken(req.header('authorization'));
      const key = token ? await keys.resolve(token) : null;
      if (!key) throw new ApiError('unauthorized', 'unknown or revoked API key');
      return {
        rail: 'prepaid',
        accountId: key.accountId,
        keyId: key.keyId,
        address: null,
        scope: key.accountId,
        detail: key,
      };
    },

    async authorize(payer, pricing, req): Promise<Authorization> {
      const key = payer.detail as ResolvedKey;
      const amount = pricing.quote.costMicroUsd;
      const call = {
        keyId: key.keyId,
        keySpendCapped: key.spendCapped,
        offerId: pricing.offerId,
        requestId: req.requestId,
      };
      let held: Reservation;
      try {
        held = await deps.reserves.reserve(key.accountId, amount, call);
      } catch (err) {
        throw refusal(err, amount);
      }
      return new PrepaidAuthorization(payer, amount, held);
    },

    // A refused or invalid call on a known key still states what it charged (nothing) and the balance, unless
    // its answer is this rail's own refusal, which already does.
    async unpaidHeaders(req, stated) {
      if (stated[CHARGED_HEADER] !== undefined) return null;
      const token = bearerToken(req.header('authorization'));
      const key = token ? await keys.resolve(token) : null;
      if (!key) return null;
      const balance = deps.reserves.receiptBalance(key.accountId) ?? (await getBalance(db, key.accountId));
      return prepaidHeaders(0, balance.balanceMicroUsd);
    },

    // A `Bearer` challenge names the key (RFC 6750 allows further auth-params: where to read and where to get
    // one), so a 402 carries a WWW-Authenticate even when no wallet rail is on; its body entry says the same.
    challenge(pricing, req) {
      return {
        headers: [
          ['WWW-Authenticate', bearerChallenge(req.resourceUrl.slice(0, -req.path.length || undefined))],
        ],
        body: {
          rail: 'prepaid',
          price_micro_usd: pricing.quote.costMicroUsd,
          how: "Send Authorization: Bearer <API key>; the price is held from the key's balance and charged only on success.",
          balance: '/v1/keys/balance',
          dashboard: '/dashboard',
        },
      };
    },

    describe(baseUrl) {
      return {
        id: 'prepaid',
        title: 'Prepaid balance with an API key',
        howToPay:
          'Send `Authorization: Bearer <key>` on any paid route. The quote is held from the balance, captured on ' +
          'success and released on failure; every response carries `x-service-charged-micro-usd` and ' +
          `\`x-service-balance-micro-usd\`. Get a key, manage keys and top up the balance (in rupiah, by QRIS, no ` +
          `signup) at ${baseUrl}/dashboard; an operator can also issue keys with the admin API.`,
        example: `curl ${baseUrl}/v1/keys/balance -H "Authorization: Bearer $KASIR_KEY"`,
      };
    },
  };
}
