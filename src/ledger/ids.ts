/** Identifiers for accounts, keys and holds (`acct_…`, `key_…`, `hold_…`): time-ordered, then random. */
import { randomFillSync } from 'node:crypto';

/** Random bytes drawn 6 at a time, refilled from the system's generator when spent. */
const POOL_BYTES = 6 * 512;
const pool = Buffer.alloc(POOL_BYTES);
let poolAt = POOL_BYTES;

function random12Hex(): string {
  if (poolAt === POOL_BYTES) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const hex = pool.toString('hex', poolAt, poolAt + 6);
  poolAt += 6;
  return hex;
}

let idMs = -1;
let idMsHex = '';

/**
 * 12 hex digits of milliseconds, then 12 random hex digits. Time order keeps B-tree inserts at the right
 * edge of the index (one page touched per batch instead of one random page per row); 48 random bits make
 * ids unguessable enough for references that are never secrets. Every paid call makes one: the time's digits are
 * formatted once per millisecond (a number's `toString(16)` costs more than the rest of the id), and the random ones
 * come from a pool filled 512 ids at a time.
 */
export function newId(prefix: 'acct' | 'key' | 'hold' | 'lease' | 'chg' | 'mps' | 'chold'): string {
  const ms = Date.now();
  if (ms !== idMs) {
    idMs = ms;
    idMsHex = ms.toString(16).padStart(12, '0');
  }
  return `${prefix}_${idMsHex}${random12Hex()}`;
}

let isoMs = -1;
let isoText = '';

/** The time now as an ISO string; formatted once per millisecond (every paid call stamps rows with it). */
export function nowIso(): string {
  const ms = Date.now();
  if (ms !== isoMs) {
    isoMs = ms;
    isoText = new Date(ms).toISOString();
  }
  return isoText;
}
