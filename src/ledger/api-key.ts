/** API key material: generated once, shown once, stored only as a SHA-256 hash with a short display prefix. */
import { createHash, randomBytes } from 'node:crypto';

const KEY_PREFIX = 'ksr_';
const KEY_PATTERN = /^ksr_[A-Za-z0-9_-]{43}$/;

export interface NewApiKey {
  /** The whole key: give it to the caller once, never store or log it. */
  key: string;
  hash: string;
  /** Enough characters to recognise the key in a list. */
  prefix: string;
}

export function generateApiKey(): NewApiKey {
  const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { key, hash: hashApiKey(key), prefix: key.slice(0, 12) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A cheap shape check before any lookup, so garbage never reaches the database. */
export function looksLikeApiKey(token: string): boolean {
  return KEY_PATTERN.test(token);
}
