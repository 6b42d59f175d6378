/** Builds the one append-only usage row of a paid call; the rail writes it with its settlement. */
import type { UsageInsert } from '../ledger/books.js';
import { nowIso } from '../ledger/ids.js';
import type { Payer, UsageFacts } from './types.js';

export function usageRow(
  usage: UsageFacts,
  outcome: { rail: string; payer: Payer; chargedMicroUsd: number },
): UsageInsert {
  return {
    created_at: nowIso(),
    request_id: usage.requestId,
    rail: outcome.rail,
    account_id: outcome.payer.accountId,
    key_id: outcome.payer.keyId,
    payer: outcome.payer.address,
    offer_id: usage.offerId,
    quote_micro_usd: usage.quoteMicroUsd,
    charged_micro_usd: outcome.chargedMicroUsd,
    status: outcome.chargedMicroUsd > 0 ? 'charged' : 'voided',
    http_status: usage.httpStatus,
    latency_ms: usage.latencyMs,
    error_code: usage.errorCode,
  };
}
