// A short run of the async media jobs drill (test/drills/jobs.mjs): video jobs submitted with `Prefer:
// respond-async` to two instances on one PostgreSQL database and one S3 bucket, one instance killed while its jobs
// run at fal and replaced on an empty data folder; every accepted job must end, a succeeded one delivered (its media
// link answers fal's bytes) and charged once at its quote, a failed one charged nothing, the balance fallen by
// exactly the charges, and fal sent each job once (the dead instance's jobs are adopted, not submitted again).
import { beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale } from '../support/built.js';
import { postgresUp, serviceAvailable } from '../support/services.js';
import { runJobsDrill } from './jobs.mjs';

const s3Up = await serviceAvailable('s3');

describe.runIf(postgresUp && s3Up)('async media jobs drill', () => {
  beforeAll(() => {
    buildIfStale();
  }, 180_000);

  it('an instance killed with jobs in flight and replaced: every job ends, delivered and charged once, or failed and free', async ({
    signal,
  }) => {
    const rounds = await runJobsDrill({ rounds: 1, jobs: 8, log: () => {}, signal });
    expect(rounds).toHaveLength(1);
    for (const r of rounds) {
      expect(r.submitted, `round ${r.round}`).toBeGreaterThan(0);
      expect(r.adopted, `round ${r.round}`).toBeGreaterThan(0);
      expect(r, `round ${r.round}: ${JSON.stringify(r.unexplained ?? null)}`).toMatchObject({
        equal: true,
        submits: r.submitted,
        charged: r.succeeded,
      });
      expect(r.spentMicroUsd).toBe(r.chargedMicroUsd);
      expect(r.chargedMicroUsd).toBe(r.quotedMicroUsd);
    }
  }, 90_000);
});
