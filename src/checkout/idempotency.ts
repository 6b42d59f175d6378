/**
 * `Idempotency-Key` on paid routes: the first request with a key runs; a repeat with the same body gets the
 * stored result without a second charge; a different body is a 409; a repeat while the first runs is a 409.
 * Records live in the database, so every instance sharing it sees them.
 */
import { createHash } from 'node:crypto';
import { ApiError } from '../http/errors.js';
import { nowIso } from '../ledger/ids.js';
import { BALANCE_HEADER, CHARGED_HEADER } from '../rails/prepaid.js';
import type { Db } from '../store/db.js';

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** Streams larger than this are not stored for replay; a repeat then gets a 409 that says so. */
export const MAX_STORED_BODY_BYTES = 1024 * 1024;

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type IdempotencyStart =
  | { kind: 'claimed'; recordKey: string }
  | { kind: 'replay'; response: StoredResponse };

export function readIdempotencyKey(header: string | undefined): string | null {
  if (header === undefined) return null;
  if (!KEY_PATTERN.test(header)) {
    throw new ApiError('invalid_input', 'Idempotency-Key must be 1 to 255 visible ASCII characters', [
      { field: 'Idempotency-Key', message: 'bad format' },
    ]);
  }
  return header;
}

const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

/** Claims the key for this request, or returns what the first request with it produced. */
export async function beginIdempotent(
  db: Db,
  input: { route: string; scope: string; key: string; body: Buffer },
): Promise<IdempotencyStart> {
  const recordKey = sha256(`${input.route}\n${input.scope}\n${input.key}`);
  const requestHash = sha256(input.body);
  const inserted = await db.kysely
    .insertInto('idempotency_records')
    .values({
      key: recordKey,
      request_hash: requestHash,
      status: 'running',
      response_status: null,
      response_headers: null,
      response_body: null,
      created_at: nowIso(),
    })
    .onConflict((oc) => oc.column('key').doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { kind: 'claimed', recordKey };

  const existing = await db.kysely
    .selectFrom('idempotency_records')
    .selectAll()
    .where('key', '=', recordKey)
    .executeTakeFirst();
  if (!existing) return beginIdempotent(db, input); // released between our insert and select: try again
  if (existing.request_hash !== requestHash) {
    throw new ApiError(
      'idempotency_conflict',
      'this Idempotency-Key was used with a different request body',
      {
        idempotency_key: input.key,
      },
    );
  }
  if (existing.status === 'running') {
    throw new ApiError(
      'idempotency_in_progress',
      'a request with this Idempotency-Key is still running; retry shortly',
      { idempotency_key: input.key },
      { 'retry-after': '1' },
    );
  }
  if (existing.response_body === null) {
    throw new ApiError(
      'idempotency_conflict',
      'the result of this Idempotency-Key was too large to store for replay',
      {
        idempotency_key: input.key,
      },
    );
  }
  return {
    kind: 'replay',
    response: {
      status: existing.response_status ?? 200,
      headers: JSON.parse(existing.response_headers ?? '{}') as Record<string, string>,
      body: existing.response_body,
    },
  };
}

/** The header that marks a replayed answer (the older `idempotent-replayed` is sent too). */
export const REPLAY_HEADER = 'x-service-idempotent-replay';

/**
 * The headers of a replay: the stored ones, except that this answer charged nothing (the original charge is in
 * the replayed body's `costMicroUsd` and receipt) and the balance stored then is no longer the balance now
 * (`current` is what the rail states now, e.g. the prepaid balance).
 */
export function replayHeaders(
  stored: Record<string, string>,
  current: Record<string, string> | null,
): Record<string, string> {
  const { [CHARGED_HEADER]: _charged, [BALANCE_HEADER]: _balance, ...kept } = stored;
  return {
    ...kept,
    ...current,
    [CHARGED_HEADER]: '0',
    [REPLAY_HEADER]: 'true',
    'idempotent-replayed': 'true',
  };
}

/** Stores the charged result for replays (a body over the size limit is recorded as not replayable). */
export async function completeIdempotent(db: Db, recordKey: string, response: StoredResponse): Promise<void> {
  const storable = Buffer.byteLength(response.body) <= MAX_STORED_BODY_BYTES;
  await db.kysely
    .updateTable('idempotency_records')
    .set({
      status: 'done',
      response_status: response.status,
      response_headers: JSON.stringify(response.headers),
      response_body: storable ? response.body : null,
    })
    .where('key', '=', recordKey)
    .execute();
}

/** Frees the key after a call that charged nothing, so the caller can retry it. */
export async function abandonIdempotent(db: Db, recordKey: string): Promise<void> {
  await db.kysely.deleteFrom('idempotency_records').where('key', '=', recordKey).execute();
}

/**
 * Drops expired records: finished ones after `doneMaxAgeSeconds` (the replay window), running ones after
 * `runningMaxAgeSeconds` (their process died; the hold sweeper settles the money).
 */
export async function sweepIdempotency(
  db: Db,
  ages: { runningMaxAgeSeconds: number; doneMaxAgeSeconds: number },
  now = new Date(),
): Promise<number> {
  const before = (seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString();
  const res = await db.kysely
    .deleteFrom('idempotency_records')
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'running'), eb('created_at', '<', before(ages.runningMaxAgeSeconds))]),
        eb.and([eb('status', '=', 'done'), eb('created_at', '<', before(ages.doneMaxAgeSeconds))]),
      ]),
    )
    .executeTakeFirst();
  return Number(res.numDeletedRows ?? 0);
}
