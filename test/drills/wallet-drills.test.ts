// Short runs of the wallet rails' drills (test/drills/x402.mjs: distinct signed payments on the devnet's EVM chain;
// test/drills/mpp.mjs: Tempo charges on the devnet, one payer per payment): one of two instances killed mid-load and
// replaced on an empty data folder; every payment settled on chain must have yielded its answer (delivered, or
// retrieved by sending the same payment again), none settled twice, and the recipient must have received exactly
// the settled payments.
import { beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale } from '../support/built.js';
import { postgresUp } from '../support/services.js';
import { runMppDrill } from './mpp.mjs';
import { runX402Drill } from './x402.mjs';

const DRILLS = [
  { rail: 'x402', run: runX402Drill, connections: 6 },
  { rail: 'MPP', run: runMppDrill, connections: 4 },
];

describe.runIf(postgresUp).each(DRILLS)('$rail drill', ({ run, connections }) => {
  beforeAll(() => {
    buildIfStale();
  }, 180_000);

  it('an instance killed under paid load and replaced: every settled payment answered once, the recipient paid exactly', async ({
    signal,
  }) => {
    const rounds = await run({ rounds: 1, connections, replace: true, log: () => {}, signal });
    expect(rounds).toHaveLength(1);
    for (const r of rounds) {
      expect(r.payments, `round ${r.round}`).toBeGreaterThan(0);
      expect(r.delivered, `round ${r.round}`).toBeGreaterThan(0);
      expect(r, `round ${r.round}: ${JSON.stringify(r.unexplained ?? null)}`).toMatchObject({
        lost: 0,
        equal: true,
      });
      expect(r.receivedBaseUnits).toBe(r.settledBaseUnits);
      expect(r.chargedTotal).toBe(r.settledTotal);
    }
  }, 150_000);
});
