/** Identifiers for accounts, keys and holds (`acct_…`, `key_…`, `hold_…`): time-ordered, then random. */
import { randomUUID } from 'node:crypto';

/**
 * 12 hex digits of milliseconds, then 12 random hex digits. Time order keeps B-tree inserts at the right
 * edge of the index (one page touched per batch instead of one random page per row); 48 random bits make
 * ids unguessable enough for references that are never secrets.
 */
export function newId(prefix: 'acct' | 'key' | 'hold' | 'lease' | 'chg' | 'mps' | 'chold'): string {
  // randomUUID draws from a pre-filled entropy cache: far cheaper per call than randomBytes.
  return `${prefix}_${Date.now().toString(16).padStart(12, '0')}${randomUUID().slice(-12)}`;
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
