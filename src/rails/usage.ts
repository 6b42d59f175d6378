/** Writes the one append-only usage row of a paid call, inside the settling transaction when the rail has one. */
import type { Kysely, Transaction } from 'kysely';
import { nowIso } from '../ledger/ids.js';
import type { Database } from '../store/schema.js';
import type { Payer, UsageFacts } from './types.js';

export async function insertUsage(
  db: Kysely<Database> | Transaction<Database>,
  usage: UsageFacts,
  outcome: { rail: string; payer: Payer; chargedMicroUsd: number },
): Promise<void> {
  await db
    .insertInto('usage_records')
    .values({
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
    })
    .execute();
}
