// A short run of the payment-channel drill (test/drills/channels.mjs): payers paying chat calls by voucher on their
// own channels on the devnet's Tempo escrow, one of two instances killed mid-load and replaced on an empty data
// folder; once the dead instance's holds lapse, no hold is left open, every delivered answer is charged exactly its
// cost, nothing else is charged but a call the kill caught, and each channel's spend is what its usage records charged.
import { beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale } from '../support/built.js';
import { postgresUp } from '../support/services.js';
import { runChannelDrill } from './channels.mjs';

describe.runIf(postgresUp)('payment-channel drill', () => {
  beforeAll(() => {
    buildIfStale();
  }, 180_000);

  it('an instance killed under voucher-paid load and replaced: holds released or charged, spend = answers delivered', async ({
    signal,
  }) => {
    const rounds = await runChannelDrill({ rounds: 1, payers: 4, replace: true, log: () => {}, signal });
    expect(rounds).toHaveLength(1);
    for (const r of rounds) {
      expect(r.calls, `round ${r.round}`).toBeGreaterThan(0);
      expect(r.delivered, `round ${r.round}`).toBeGreaterThan(0);
      expect(r, `round ${r.round}: ${JSON.stringify(r.unexplained ?? null)}`).toMatchObject({
        holdsOpen: 0,
        equal: true,
      });
      expect(r.killWindow).toBeLessThanOrEqual(2);
      expect(r.chargedMicroUsd).toBe(r.deliveredMicroUsd + r.killWindowMicroUsd);
      expect(r.spentMicroUsd).toBe(r.chargedMicroUsd);
    }
  }, 150_000);
});
