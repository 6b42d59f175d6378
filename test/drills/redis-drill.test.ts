// A short run of the Redis drill (test/drills/prepaid.mjs, chaos 'redis'): two instances on PostgreSQL whose rate limits
// live in a Redis of the drill's own, killed with SIGKILL mid-load and started again; no call may be refused or fail
// (the limits degrade to none while it is away), every answer is charged and nothing else, and the limits count again
// once it is back.
import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale } from '../support/built.js';
import { postgresUp } from '../support/services.js';
import { runPrepaidDrill } from './prepaid.mjs';

const redisServer = (() => {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.runIf(postgresUp && redisServer)('Redis drill', () => {
  beforeAll(() => {
    buildIfStale();
  }, 180_000);

  it('Redis killed and restarted under paid load: calls keep working, limits come back, the ledger balances', async ({
    signal,
  }) => {
    const rounds = await runPrepaidDrill({
      chaos: 'redis',
      rounds: 1,
      connections: 6,
      log: () => {},
      signal,
    });
    expect(rounds).toHaveLength(1);
    for (const r of rounds) {
      expect(r.delivered, `round ${r.round}`).toBeGreaterThan(0);
      expect(r, `round ${r.round}: ${JSON.stringify(r.unexplained ?? null)}`).toMatchObject({
        uncharged: 0,
        undelivered: 0,
        refused: 0,
        failed: 0,
        limitedAgain: true,
        equal: true,
      });
    }
  }, 60_000);
});
