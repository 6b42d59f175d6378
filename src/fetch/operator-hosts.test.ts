// Upstreams the operator configured are reached on private addresses without FETCH_ALLOWED_HOSTS; URLs a caller
// supplies keep the private-address rule, even at the same host:port.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeFrankfurter } from '../../test/fakes/frankfurter.js';
import type { FakeJsonUpstream } from '../../test/fakes/json-upstream.js';
import { startKasir, type TestKasir } from '../../test/support/app.js';
import { fundedAccount } from '../../test/support/ledger.js';
import type { PaidKasir } from '../../test/support/paid.js';
import { postPaid } from '../../test/support/paid-call.js';
import { loadConfig } from '../config/load.js';
import { issueKey } from '../ledger/accounts.js';
import { operatorHosts } from './operator-hosts.js';

describe('operator-configured upstream hosts', () => {
  it('are the hosts of the URLs the operator set, never the built-in public defaults', () => {
    const config = loadConfig({
      FRANKFURTER_BASE_URL: 'http://10.0.0.5:8080/v1',
      RPC_URLS: 'base=http://192.168.1.20:8545,ethereum=https://ethereum-rpc.publicnode.com',
      SEARXNG_URL: 'http://localhost:8888',
      SELF_HOSTED_BASE_URL: 'http://[fd00::7]:8000/v1',
    });
    expect([...operatorHosts(config)].sort()).toEqual(
      ['10.0.0.5:8080', '192.168.1.20:8545', 'localhost:8888', '[fd00::7]:8000'].sort(),
    );
    expect(operatorHosts(loadConfig({})).size).toBe(0);
  });

  let frankfurter: FakeJsonUpstream;
  let kasir: TestKasir;
  beforeAll(async () => {
    frankfurter = await startFakeFrankfurter();
    // No FETCH_ALLOWED_HOSTS: the configured base URL alone makes the loopback upstream reachable.
    kasir = await startKasir('sqlite', { FRANKFURTER_BASE_URL: frankfurter.url, RATE_LIMIT_PER_MINUTE: '0' });
  });
  afterAll(async () => {
    await kasir?.close();
    await frankfurter?.close();
  });

  it('a tool whose configured upstream is on a loopback address answers and charges', async () => {
    const accountId = await fundedAccount(kasir.deps.db, 1_000_000);
    const { key } = await issueKey(kasir.deps.db, accountId, { spendCapMicroUsd: null });
    const answer = await postPaid<Record<string, unknown>>(
      kasir as PaidKasir,
      key,
      '/v1/tools/exchange-rate',
      {
        from: 'USD',
        to: 'IDR',
        amount: 100,
      },
    );
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    expect(Number(answer.charged)).toBeGreaterThan(0);
    expect(frankfurter.requests.length).toBeGreaterThan(0);
  });

  it('the same host:port given by a caller is still refused by the safe fetcher', async () => {
    const port = Number(new URL(frankfurter.url).port);
    const verdict = await kasir.deps.fetcher.check('127.0.0.1', port);
    expect(verdict.allowed).toBe(false);
  });
});
