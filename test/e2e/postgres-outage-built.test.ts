// The built service on PostgreSQL when the database goes away under it, or never answers. Its sessions ended by
// the server (a restart, a failover, pg_terminate_backend) must not kill the process: pg reports that on a
// checked-out client, and the charge journal keeps its connections checked out between writes. A SIGTERM while the
// database is gone must still end the process: the journal retries a write until it commits, so closing it waited
// forever. And a database that accepts connections and never answers must fail the start-up, not hold it forever.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeOpenAI } from '../fakes/openai-upstream.js';
import { type BuiltKasir, buildIfStale, builtEnv, exitOf, spawnBuilt, startBuilt } from '../support/built.js';
import { freshPostgres, PG_ADMIN_URL, postgresUp } from '../support/services.js';
import { startTcpServer } from '../support/tcp-server.js';

const ADMIN = 'outage-admin-token-0123456789';
const CHAT = JSON.stringify({ model: 'openai/gpt-4.1-mini', messages: [{ role: 'user', content: 'hi' }] });

const children: ChildProcess[] = [];
const cleanups: Array<() => Promise<void> | void> = [];

async function admin(kasir: BuiltKasir, method: string, route: string, body?: unknown) {
  const res = await fetch(`${kasir.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status).toBeLessThan(300);
  return (await res.json()) as Record<string, unknown>;
}

/** The built service on a fresh database with its charge journal as rows there, and a funded key. */
async function start(upstream: FakeUpstream, env: Record<string, string> = {}) {
  const database = await freshPostgres();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kasir-pg-outage-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }), database.drop);
  const kasir = await startBuilt(
    builtEnv(dataDir, {
      LOG_LEVEL: 'info',
      ADMIN_TOKEN: ADMIN,
      DATABASE_URL: database.url,
      CHARGE_JOURNAL: 'database',
      RATE_LIMIT_PER_MINUTE: '0',
      UPSTREAM_RETRIES: '0',
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: upstream.url,
      ...env,
    }),
  );
  children.push(kasir.child);
  const { account_id } = await admin(kasir, 'POST', '/v1/admin/accounts', { label: 'outage' });
  await admin(kasir, 'POST', `/v1/admin/accounts/${account_id}/credit`, {
    amount_micro_usd: 100_000_000,
    reason: 'test',
  });
  const { key } = await admin(kasir, 'POST', `/v1/admin/accounts/${account_id}/keys`, {});
  const call = () =>
    fetch(`${kasir.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: CHAT,
    });
  return { kasir, database, accountId: String(account_id), call };
}

/** Ends every session on `url`'s database but the asking one, as a restart or a failover would. */
async function terminateSessions(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    const { rowCount } = await client.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [new URL(url).pathname.slice(1)],
    );
    return rowCount ?? 0;
  } finally {
    await client.end();
  }
}

describe.skipIf(!postgresUp)('the built service when PostgreSQL goes away', () => {
  let upstream: FakeUpstream;
  beforeAll(async () => {
    buildIfStale();
    upstream = await startFakeOpenAI({ apiKey: 'sk-test' });
  }, 120_000);
  afterAll(async () => {
    await upstream?.close();
  });
  afterEach(async () => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    for (const clean of cleanups.splice(0).reverse()) await clean();
  });

  it('survives its sessions being ended, and charges every call it answers after', async () => {
    const { kasir, database, accountId, call } = await start(upstream);
    let charged = 0;
    const paid = async () => {
      const res = await call();
      expect(res.status).toBe(200);
      charged += Number(res.headers.get('x-service-charged-micro-usd'));
      await res.arrayBuffer();
    };
    for (let i = 0; i < 5; i++) await paid();
    // The journal holds a connection of its own between writes: ending it is what killed the process.
    expect(await terminateSessions(database.url)).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 300));
    expect(kasir.child.exitCode).toBeNull();
    for (let i = 0; i < 5; i++) await paid();
    expect(charged).toBeGreaterThan(0);
    const account = await admin(kasir, 'GET', `/v1/admin/accounts/${accountId}`);
    expect(account.balance_micro_usd).toBe(100_000_000 - charged);
  }, 60_000);

  it('still exits on SIGTERM while its database is gone, within its shutdown deadlines', async () => {
    const { kasir, database, call } = await start(upstream, { SHUTDOWN_TIMEOUT_MS: '1000' });
    // Calls keep arriving while the database goes: the answers of those that reach the journal wait for a commit
    // that never comes, so the journal has writes to retry when the instance is asked to stop.
    let running = true;
    const loops = Array.from({ length: 4 }, async () => {
      while (running)
        await call().then(
          (r) => r.arrayBuffer(),
          () => new Promise((r) => setTimeout(r, 20)),
        );
    });
    await new Promise((r) => setTimeout(r, 500));
    await database.drop();
    await new Promise((r) => setTimeout(r, 500));
    const asked = performance.now();
    kasir.child.kill('SIGTERM');
    const exit = await exitOf(kasir.child);
    const took = performance.now() - asked;
    running = false;
    await Promise.all(loops);
    // One deadline for the requests in flight, one for the stores: 2 s, and a margin for a slow machine.
    expect(took).toBeLessThan(6_000);
    expect(exit).toEqual({ code: 1, signal: null });
    await expect
      .poll(() =>
        kasir.logLines().some((l) => l.msg === 'stores did not close in time; exiting without them'),
      )
      .toBe(true);
  }, 60_000);
});

describe('the built service when PostgreSQL accepts connections and never answers', () => {
  beforeAll(() => {
    buildIfStale();
  }, 120_000);

  it('fails its start-up after the URL’s connect_timeout, saying why, instead of starting forever', async () => {
    const silent = await startTcpServer();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'kasir-pg-silent-'));
    const child = spawnBuilt(
      builtEnv(dataDir, {
        DATABASE_URL: `postgres://kasir@127.0.0.1:${silent.port}/kasir?connect_timeout=1`,
      }),
    );
    child.stdout?.resume();
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    try {
      const started = performance.now();
      const exit = await Promise.race([
        exitOf(child),
        new Promise<'still starting'>((r) => setTimeout(() => r('still starting'), 15_000)),
      ]);
      expect(exit).toEqual({ code: 1, signal: null });
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(silent.sockets.length).toBeGreaterThan(0);
      expect(stderr).toContain('kasir failed to start: could not open the database:');
      expect(stderr).toMatch(/timeout/);
    } finally {
      child.kill('SIGKILL');
      silent.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});
