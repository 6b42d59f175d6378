// Helpers for paid-route tests: a kasir wired to fake chat upstreams and a fake fal queue, funded keys, quotes, balances and holds.
import type { Selectable } from 'kysely';
import { vi } from 'vitest';
import type { RawEnv } from '../../src/config/config-file.js';
import { issueKey } from '../../src/ledger/accounts.js';
import { getBalance } from '../../src/ledger/books.js';
import { ledgerTotals } from '../../src/ledger/history.js';
import type { UsageRecordTable } from '../../src/store/schema.js';
import type { WireOptions } from '../../src/wiring.js';
import { startFakeAnthropic } from '../fakes/anthropic-upstream.js';
import type { FakeUpstream } from '../fakes/chat-upstream.js';
import { type FakeFal, startFakeFal } from '../fakes/fal-upstream.js';
import { startFakeGemini } from '../fakes/gemini-upstream.js';
import { startFakeOpenAI } from '../fakes/openai-upstream.js';
import { type DbTarget, startKasir, type TestKasir } from './app.js';
import { fundedAccount } from './ledger.js';

export const UPSTREAM_KEYS = {
  openai: 'sk-fake-openai',
  anthropic: 'sk-ant-fake',
  gemini: 'gemini-fake-key',
  fal: 'fal-fake-key-id:secret',
};

export interface PaidKasir extends TestKasir {
  openai: FakeUpstream;
  anthropic: FakeUpstream;
  gemini: FakeUpstream;
  /** fal's queue (media models), polled every 10–20 ms. */
  fal: FakeFal;
  /** A new account holding `microUsd`, and a key for it. */
  fundedKey(
    microUsd: number,
    options?: { spendCapMicroUsd?: number },
  ): Promise<{ accountId: string; key: string }>;
  /** The prepaid quote the checkout will compute for this body. */
  quote(body: Record<string, unknown>): number;
  /**
   * The account row, after this instance has returned the balance leases no call is using: `held` is then
   * exactly what running calls hold.
   */
  balance(accountId: string): Promise<{ balance: number; held: number }>;
  /** Σ ledger per account (must equal the account row), after the same return of unused leases. */
  ledger(accountId: string): Promise<{ balance: number; held: number }>;
  holdCount(accountId: string): Promise<number>;
  /**
   * The account's usage rows, oldest first, once this instance's pending charge writes are done; with `atLeast`, once
   * there are that many (a row written after the answer, as a hang-up's, is waited for up to `timeout` ms).
   */
  usageRows(
    accountId: string,
    atLeast?: number,
    timeout?: number,
  ): Promise<Array<Selectable<UsageRecordTable>>>;
  stop(): Promise<void>;
}

/** Starts kasir with OpenAI, Anthropic and Gemini pointed at local fakes (and its own env on top). */
export async function startPaidKasir(
  db: DbTarget,
  env: RawEnv = {},
  shared?: Partial<PaidKasir>,
  options: WireOptions = {},
): Promise<PaidKasir> {
  const openai = shared?.openai ?? (await startFakeOpenAI({ apiKey: UPSTREAM_KEYS.openai }));
  const anthropic = shared?.anthropic ?? (await startFakeAnthropic({ apiKey: UPSTREAM_KEYS.anthropic }));
  const gemini = shared?.gemini ?? (await startFakeGemini({ apiKey: UPSTREAM_KEYS.gemini }));
  const fal = shared?.fal ?? (await startFakeFal({ apiKey: UPSTREAM_KEYS.fal }));
  const kasir = await startKasir(
    db,
    {
      RATE_LIMIT_PER_MINUTE: '0',
      OPENAI_API_KEY: UPSTREAM_KEYS.openai,
      OPENAI_BASE_URL: openai.url,
      ANTHROPIC_API_KEY: UPSTREAM_KEYS.anthropic,
      ANTHROPIC_BASE_URL: anthropic.url,
      GEMINI_API_KEY: UPSTREAM_KEYS.gemini,
      GEMINI_BASE_URL: gemini.url,
      FAL_KEY: UPSTREAM_KEYS.fal,
      FAL_BASE_URL: fal.url,
      MEDIA_POLL_FIRST_MS: '10',
      MEDIA_POLL_MAX_MS: '20',
      UPSTREAM_RETRIES: '1',
      ...env,
    },
    undefined,
    options,
  );
  const { db: store, catalog } = kasir.deps;
  return {
    ...kasir,
    openai,
    anthropic,
    gemini,
    fal,
    async fundedKey(microUsd, options = {}) {
      const accountId = await fundedAccount(store, microUsd);
      const issued = await issueKey(store, accountId, {
        spendCapMicroUsd: options.spendCapMicroUsd ?? null,
      });
      return { accountId, key: issued.key };
    },
    quote(body) {
      const entry = catalog.find(String(body.model));
      if (!entry) throw new Error(`no model ${String(body.model)}`);
      const checked = catalog.validate(entry, structuredClone(body));
      if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
      return catalog.quote(entry, checked.value, 'prepaid').costMicroUsd;
    },
    async balance(accountId) {
      await kasir.deps.reserves.returnUnused();
      const b = await getBalance(store, accountId);
      return { balance: b.balanceMicroUsd, held: b.heldMicroUsd };
    },
    async ledger(accountId) {
      await kasir.deps.reserves.returnUnused();
      return ledgerTotals(store, accountId);
    },
    async holdCount(accountId) {
      const rows = await store.kysely
        .selectFrom('holds')
        .select('id')
        .where('account_id', '=', accountId)
        .execute();
      return rows.length;
    },
    async usageRows(accountId, atLeast = 0, timeout = 5_000) {
      const read = async () => {
        await kasir.deps.reserves.flush();
        return store.kysely
          .selectFrom('usage_records')
          .selectAll()
          .where('account_id', '=', accountId)
          .orderBy('id')
          .execute();
      };
      if (atLeast === 0) return read();
      return vi.waitFor(
        async () => {
          const rows = await read();
          if (rows.length < atLeast) throw new Error(`${rows.length} usage rows, waiting for ${atLeast}`);
          return rows;
        },
        { timeout, interval: 10 },
      );
    },
    async stop() {
      await kasir.close();
      if (!shared?.openai) await openai.close();
      if (!shared?.anthropic) await anthropic.close();
      if (!shared?.gemini) await gemini.close();
      if (!shared?.fal) await fal.close();
    },
  };
}

/**
 * Two kasir instances on one database (`env.DATABASE_URL`), the second calling the first's chat fakes so their
 * request counts see both. Stop `two` before `one`: `one` owns the shared fakes.
 */
export async function startTwoPaidKasirs(
  db: DbTarget,
  env: RawEnv,
  options: WireOptions = {},
): Promise<[one: PaidKasir, two: PaidKasir]> {
  const one = await startPaidKasir(db, env, undefined, options);
  const two = await startPaidKasir(
    db,
    env,
    { openai: one.openai, anthropic: one.anthropic, gemini: one.gemini },
    options,
  );
  return [one, two];
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

export function chatBody(
  model: string,
  text = 'Say hello',
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { model, messages: [{ role: 'user', content: text }], max_tokens: 64, ...extra };
}
