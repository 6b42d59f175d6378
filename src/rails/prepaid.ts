/** The prepaid-key rail: `Authorization: Bearer <key>` places a hold on the account, then captures or releases it. */
import { ApiError } from '../http/errors.js';
import type { KeyResolver, ResolvedKey } from '../ledger/accounts.js';
import { type Balance, captureHold, markHoldDelivered, placeHold, releaseHold } from '../ledger/books.js';
import { InsufficientBalanceError, SpendCapExceededError } from '../ledger/errors.js';
import type { Db } from '../store/db.js';
import type { Authorization, Rail, RailReceipt } from './types.js';
import { usageRow } from './usage.js';

export const CHARGED_HEADER = 'x-service-charged-micro-usd';
export const BALANCE_HEADER = 'x-service-balance-micro-usd';
const DELIVERED_MARK_DELAY_MS = 1000;

export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1] ?? null;
}

const receiptOf = (charged: number, balance: Balance, holdId: string): RailReceipt => ({
  headers: { [CHARGED_HEADER]: String(charged), [BALANCE_HEADER]: String(balance.balanceMicroUsd) },
  receipt: {
    rail: 'prepaid',
    receipt_id: holdId,
    account_id: balance.accountId,
    charged_micro_usd: charged,
    balance_micro_usd: balance.balanceMicroUsd,
  },
});

export function createPrepaidRail(deps: { db: Db; keys: KeyResolver; holdTtlSeconds: number }): Rail {
  const { db, keys } = deps;

  return {
    id: 'prepaid',
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
      let hold: Awaited<ReturnType<typeof placeHold>>;
      try {
        hold = await placeHold(db, {
          accountId: key.accountId,
          keyId: key.keyId,
          keySpendCapped: key.spendCapped,
          amountMicroUsd: amount,
          offerId: pricing.offerId,
          requestId: req.requestId,
          ttlSeconds: deps.holdTtlSeconds,
        });
      } catch (err) {
        if (err instanceof InsufficientBalanceError) {
          throw new ApiError(
            'insufficient_balance',
            `balance too low: this call costs ${amount} micro-USD and ${err.available} is available (short by ${err.shortfall})`,
            {
              price_micro_usd: amount,
              available_micro_usd: err.available,
              shortfall_micro_usd: err.shortfall,
              balance_micro_usd: err.balance,
            },
            { [CHARGED_HEADER]: '0', [BALANCE_HEADER]: String(err.balance) },
          );
        }
        if (err instanceof SpendCapExceededError) {
          throw new ApiError(
            'spend_cap_exceeded',
            `this key's spend cap leaves ${err.remaining} micro-USD; the call costs ${amount}`,
            { price_micro_usd: amount, remaining_micro_usd: err.remaining },
            { [CHARGED_HEADER]: '0' },
          );
        }
        throw err;
      }
      // A stream marks its hold delivered (so a crash captures it) only once it has run for a while: most
      // streams settle sooner, and then the extra write is saved. A crash in that first window releases.
      let deliveredMark: NodeJS.Timeout | undefined;
      const settled = () => clearTimeout(deliveredMark);
      return {
        payer,
        amountMicroUsd: amount,
        async capture(usage) {
          settled();
          const result = await captureHold(
            db,
            hold.holdId,
            usageRow(usage, { rail: 'prepaid', payer, chargedMicroUsd: amount }),
          );
          return receiptOf(amount, result.balance, hold.holdId);
        },
        async void(usage) {
          settled();
          const result = await releaseHold(
            db,
            hold.holdId,
            usageRow(usage, { rail: 'prepaid', payer, chargedMicroUsd: 0 }),
          );
          return receiptOf(0, result.balance, hold.holdId);
        },
        streamHeaders() {
          // The settled figures arrive in the stream's final chunk; these state what success charges.
          return {
            [CHARGED_HEADER]: String(amount),
            [BALANCE_HEADER]: String(hold.balance.balanceMicroUsd - amount),
          };
        },
        markDelivered() {
          if (deliveredMark) return;
          deliveredMark = setTimeout(() => {
            markHoldDelivered(db, hold.holdId).catch(() => {});
          }, DELIVERED_MARK_DELAY_MS);
          deliveredMark.unref();
        },
      };
    },

    // The prepaid rail adds no header to a 402; its body entry says how to use a key.
    challenge(pricing) {
      return {
        headers: [],
        body: {
          rail: 'prepaid',
          price_micro_usd: pricing.quote.costMicroUsd,
          how: "Send Authorization: Bearer <API key>; the price is held from the key's balance and charged only on success.",
          balance: '/v1/keys/balance',
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
          '`x-service-balance-micro-usd`. Keys and top-ups come from the operator.',
        example: `curl ${baseUrl}/v1/keys/balance -H "Authorization: Bearer $KASIR_KEY"`,
      };
    },
  };
}
