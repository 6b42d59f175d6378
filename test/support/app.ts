// Builds a whole kasir (config, stores, app) for a test, on SQLite or PostgreSQL, with the test's own overrides.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { createApp } from '../../src/app.js';
import type { RawEnv } from '../../src/config/config-file.js';
import { type Config, loadConfig } from '../../src/config/load.js';
import type { Deps } from '../../src/deps.js';
import { type Db, openDb } from '../../src/store/db.js';
import { type WireOptions, wire } from '../../src/wiring.js';
import { freshPostgres, postgresUp } from './services.js';

export type DbTarget = 'sqlite' | 'postgres';

/** The database targets every storage-backed suite runs on: SQLite always, PostgreSQL when up (always in CI). */
export const DB_TARGETS: DbTarget[] = postgresUp ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestKasir {
  app: ReturnType<typeof createApp>;
  deps: Deps;
  config: Config;
  dataDir: string;
  close(): Promise<void>;
}

export async function startKasir(
  target: DbTarget,
  env: RawEnv = {},
  extend?: (deps: Deps) => void,
  options: WireOptions = {},
): Promise<TestKasir> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'kasir-test-'));
  const pgdb = target === 'postgres' && !env.DATABASE_URL ? await freshPostgres() : undefined;
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: 'http://kasir.test',
    SWEEP_INTERVAL_SECONDS: '0',
    // Providers are not asked for their model lists (tests never reach the internet); tests that check it say so.
    UPSTREAM_MODEL_CHECK: 'false',
    ...(pgdb ? { DATABASE_URL: pgdb.url } : {}),
    ...env,
  });
  const wired = await wire(config, pino({ level: 'silent' }), options);
  extend?.(wired.deps);
  const app = createApp(wired.deps);
  return {
    app,
    deps: wired.deps,
    config,
    dataDir,
    async close() {
      await wired.close();
      await pgdb?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** POSTs `body` to `path` as JSON (a string is sent as it is, to send bodies that are not JSON). */
export function postJson(
  kasir: Pick<TestKasir, 'app'>,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Response | Promise<Response> {
  return kasir.app.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/**
 * A fresh database of `target` for the enclosing describe block: opened before its tests, closed (and dropped,
 * on PostgreSQL) after them. Tests read it through `.db`.
 */
export function useTestDb(target: DbTarget): { readonly db: Db } {
  let opened: { db: Db; close(): Promise<void> } | undefined;
  beforeAll(async () => {
    opened = await openTestDb(target);
  });
  afterAll(() => opened?.close());
  return {
    get db() {
      if (!opened) throw new Error('the test database opens in beforeAll: read it inside a test');
      return opened.db;
    },
  };
}

/** A bare database (migrated, no app) on SQLite in memory or a fresh PostgreSQL database, and how to drop it. */
async function openTestDb(target: DbTarget): Promise<{ db: Db; close(): Promise<void> }> {
  if (target === 'sqlite') {
    const db = await openDb({ kind: 'sqlite', file: ':memory:' });
    return { db, close: () => db.close() };
  }
  const pg = await freshPostgres();
  const db = await openDb({ kind: 'postgres', url: pg.url }, { poolSize: 20 });
  return {
    db,
    async close() {
      await db.close();
      await pg.drop();
    },
  };
}
