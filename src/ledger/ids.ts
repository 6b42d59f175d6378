/** Random, prefixed identifiers for accounts, keys and holds (`acct_…`, `key_…`, `hold_…`). */
import { randomBytes } from 'node:crypto';

export function newId(prefix: 'acct' | 'key' | 'hold'): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

export const nowIso = (): string => new Date().toISOString();
