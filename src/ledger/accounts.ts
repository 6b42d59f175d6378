/** Prepaid accounts and their API keys: create, issue (shown once), revoke, and resolve a bearer token. */
import type { Db } from '../store/db.js';
import type { AccountTable, ApiKeyTable } from '../store/schema.js';
import { generateApiKey, hashApiKey, looksLikeApiKey } from './api-key.js';
import { UnknownAccountError } from './errors.js';
import { newId, nowIso } from './ids.js';

export interface ResolvedKey {
  keyId: string;
  accountId: string;
  spendCapped: boolean;
  /** The key's own limit, else its account's; null = the server default. */
  rateLimitPerMinute: number | null;
}

export interface IssuedKey {
  key_id: string;
  account_id: string;
  /** The whole key, returned this once. */
  key: string;
  prefix: string;
  label: string | null;
  spend_cap_micro_usd: number | null;
  created_at: string;
}

export type PublicKey = Omit<ApiKeyTable, 'hash'>;

export async function createAccount(
  db: Db,
  input: { label?: string | null; rateLimitPerMinute?: number | null } = {},
): Promise<AccountTable> {
  const row: AccountTable = {
    id: newId('acct'),
    label: input.label ?? null,
    balance_micro_usd: 0,
    held_micro_usd: 0,
    rate_limit_per_minute: input.rateLimitPerMinute ?? null,
    created_at: nowIso(),
  };
  await db.kysely.insertInto('accounts').values(row).execute();
  return row;
}

export async function getAccount(db: Db, accountId: string): Promise<AccountTable | null> {
  return (
    (await db.kysely.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirst()) ??
    null
  );
}

export async function listKeys(db: Db, accountId: string): Promise<PublicKey[]> {
  const rows = await db.kysely
    .selectFrom('api_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .execute();
  return rows.map(({ hash: _hash, ...rest }) => rest);
}

export type KeyInput = {
  label?: string | null;
  spendCapMicroUsd?: number | null;
  rateLimitPerMinute?: number | null;
};

/** A new key's row and what its holder is shown once; for callers that insert it in a transaction of their own. */
export function newKeyRow(accountId: string, input: KeyInput = {}): { row: ApiKeyTable; issued: IssuedKey } {
  const material = generateApiKey();
  const row: ApiKeyTable = {
    id: newId('key'),
    account_id: accountId,
    prefix: material.prefix,
    hash: material.hash,
    label: input.label ?? null,
    spend_cap_micro_usd: input.spendCapMicroUsd ?? null,
    spent_micro_usd: 0,
    held_micro_usd: 0,
    rate_limit_per_minute: input.rateLimitPerMinute ?? null,
    created_at: nowIso(),
    revoked_at: null,
  };
  const issued: IssuedKey = {
    key_id: row.id,
    account_id: accountId,
    key: material.key,
    prefix: row.prefix,
    label: row.label,
    spend_cap_micro_usd: row.spend_cap_micro_usd,
    created_at: row.created_at,
  };
  return { row, issued };
}

export async function issueKey(db: Db, accountId: string, input: KeyInput = {}): Promise<IssuedKey> {
  if (!(await getAccount(db, accountId))) throw new UnknownAccountError(accountId);
  const { row, issued } = newKeyRow(accountId, input);
  await db.kysely.insertInto('api_keys').values(row).execute();
  return issued;
}

/** Revokes a key; returns null for an unknown key. Revoking twice keeps the first time. */
export async function revokeKey(db: Db, keyId: string): Promise<PublicKey | null> {
  await db.kysely
    .updateTable('api_keys')
    .set({ revoked_at: nowIso() })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .execute();
  const row = await db.kysely.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
  if (!row) return null;
  const { hash: _hash, ...rest } = row;
  return rest;
}

/**
 * Resolves bearer tokens to keys, caching answers briefly so a paid call does not pay a database round trip
 * for it. A revocation takes effect at once on this instance and within `ttlMs` on the others.
 */
export class KeyResolver {
  private readonly cache = new Map<string, { value: ResolvedKey | null; expires: number }>();
  constructor(
    private readonly db: Db,
    private readonly ttlMs = 5000,
    private readonly maxEntries = 10_000,
  ) {}

  async resolve(token: string): Promise<ResolvedKey | null> {
    if (!looksLikeApiKey(token)) return null;
    // Cached by the token the caller sent (already in this process's memory with the request), so a hit
    // costs no hashing; only the database ever sees the hash.
    const hit = this.cache.get(token);
    if (hit && hit.expires > Date.now()) return hit.value;
    const hash = hashApiKey(token);
    const row = await this.db.kysely
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .select([
        'api_keys.id as keyId',
        'api_keys.account_id as accountId',
        'api_keys.spend_cap_micro_usd as cap',
        'api_keys.revoked_at as revokedAt',
        'api_keys.rate_limit_per_minute as keyLimit',
        'accounts.rate_limit_per_minute as accountLimit',
      ])
      .where('api_keys.hash', '=', hash)
      .executeTakeFirst();
    const value =
      row && !row.revokedAt
        ? {
            keyId: row.keyId,
            accountId: row.accountId,
            spendCapped: row.cap !== null,
            rateLimitPerMinute: row.keyLimit ?? row.accountLimit ?? null,
          }
        : null;
    if (this.cache.size >= this.maxEntries) this.cache.clear();
    this.cache.set(token, { value, expires: Date.now() + this.ttlMs });
    return value;
  }

  /** Drops a revoked key from this instance's cache at once. */
  forget(keyId: string): void {
    for (const [token, entry] of this.cache) if (entry.value?.keyId === keyId) this.cache.delete(token);
  }
}
