// A short run of the crash drill (test/drills/prepaid.mjs): built kasir instances under paid load, one killed
// with SIGKILL at a random moment each round and restarted; every round, every answer callers received must be
// charged, the balances must have fallen by exactly the charges, and a call charged without its answer delivered
// can only be the one a kill caught between its journal line and its last write (at most one per kill).
import { beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale } from '../support/built.js';
import { postgresUp } from '../support/services.js';
import { runPrepaidDrill as runCrashDrill } from './prepaid.mjs';

describe('crash drill', () => {
  beforeAll(() => {
    // The drill runs the service as `npm start` does: the compiled code.
    buildIfStale();
  }, 120_000);

  it('SQLite, one instance killed and restarted: every delivered answer charged once, nothing else but a kill-window call', async ({
    signal,
  }) => {
    const rounds = await runCrashDrill({ db: 'sqlite', rounds: 2, connections: 8, log: () => {}, signal });
    expect(rounds).toHaveLength(2);
    for (const r of rounds) {
      expect(r.delivered, `round ${r.round}`).toBeGreaterThan(0);
      expect(r.undelivered, `round ${r.round}`).toBe(r.killWindow);
      expect(r, `round ${r.round}: ${JSON.stringify(r.unexplained ?? null)}`).toMatchObject({
        uncharged: 0,
        equal: true,
      });
    }
  }, 120_000);

  it.runIf(postgresUp)(
    'PostgreSQL, two instances, one killed and restarted: every delivered answer charged once, nothing else but a kill-window call',
    async ({ signal }) => {
      const rounds = await runCrashDrill({
        db: 'postgres',
        rounds: 3,
        connections: 8,
        log: () => {},
        signal,
      });
      expect(rounds).toHaveLength(3);
      for (const r of rounds) {
        expect(r.delivered, `round ${r.round}`).toBeGreaterThan(0);
        expect(r.undelivered, `round ${r.round}`).toBe(r.killWindow);
        expect(r, `round ${r.round}: ${JSON.stringify(r.unexplained ?? null)}`).toMatchObject({
          uncharged: 0,
          equal: true,
        });
      }
    },
    120_000,
  );

  it.runIf(postgresUp)(
    'PostgreSQL, an instance killed and replaced on an empty data folder: every delivered answer charged once',
    async ({ signal }) => {
      const rounds = await runCrashDrill({
        db: 'postgres',
        rounds: 2,
        connections: 8,
        replace: true,
        log: () => {},
        signal,
      });
      for (const r of rounds) {
        expect(r.delivered, `round ${r.round}`).toBeGreaterThan(0);
        expect(r, `round ${r.round}: ${JSON.stringify(r.unexplained ?? null)}`).toMatchObject({
          uncharged: 0,
          equal: true,
        });
      }
    },
    120_000,
  );
});
