// The crash drill, every money path: each rail's drill (one module per rail in this folder, on the instances, kill
// and replace of harness.mjs) runs in turn, kills an instance under load at a random moment, brings it back (with
// `--replace`: on a new, empty data folder) and compares what callers received with what was charged, round by
// round. Exits non-zero when any round of any rail does not balance.
//
//   npm run drill                                     # every rail, 5 rounds each, PostgreSQL
//   npm run drill -- --rail x402 --rounds 3 --replace # one rail (or a comma-separated list)
//   npm run drill -- --rail prepaid --db sqlite       # the prepaid drill on SQLite (one instance)
//
// Rails: prepaid (keys, balance leases), x402 (the devnet's EVM chain), mpp (Tempo charge on the devnet), redis (the
// rate limits' Redis killed and restarted mid-load), jobs (async media jobs adopted after a kill; needs an
// S3-compatible server, TEST_S3_URL), channels (payment channels on the devnet's Tempo escrow, paid by voucher: holds
// released or charged, each channel's spend what its delivered answers cost).
import { arg, isMain } from './harness.mjs';

/** Each rail's drill: run(options) → rows (each with `equal`), print(rows). Loaded only when chosen. */
export const RAILS = {
  prepaid: async () => {
    const m = await import('./prepaid.mjs');
    return { run: m.runPrepaidDrill, print: m.printPrepaid };
  },
  x402: async () => {
    const m = await import('./x402.mjs');
    return { run: m.runX402Drill, print: m.printX402 };
  },
  mpp: async () => {
    const m = await import('./mpp.mjs');
    return { run: m.runMppDrill, print: m.printMpp };
  },
  redis: async () => {
    const m = await import('./prepaid.mjs');
    return { run: (options) => m.runPrepaidDrill({ ...options, chaos: 'redis' }), print: m.printPrepaid };
  },
  channels: async () => {
    const m = await import('./channels.mjs');
    return {
      run: ({ rounds, replace, log, signal }) => m.runChannelDrill({ rounds, replace, log, signal }),
      print: m.printChannels,
    };
  },
  jobs: async () => {
    const m = await import('./jobs.mjs');
    // Always replaced on an empty data folder (the media live in S3), a dozen jobs a round.
    return { run: ({ rounds, log, signal }) => m.runJobsDrill({ rounds, log, signal }), print: m.printJobs };
  },
};

/** Runs the chosen rails' drills one after the other; resolves to { rail: rows }. */
export async function runDrills({ rails = Object.keys(RAILS), ...options } = {}) {
  const results = {};
  for (const rail of rails) {
    if (!RAILS[rail]) throw new Error(`no drill for rail ${rail} (known: ${Object.keys(RAILS).join(', ')})`);
    const drill = await RAILS[rail]();
    const rows = await drill.run(options);
    drill.print(rows);
    results[rail] = rows;
  }
  return results;
}

if (isMain(import.meta.url)) {
  const chosen = arg('rail', 'all');
  const results = await runDrills({
    rails: chosen === 'all' ? Object.keys(RAILS) : chosen.split(','),
    db: arg('db', 'postgres'),
    rounds: Number(arg('rounds', 5)),
    connections: arg('connections') === undefined ? undefined : Number(arg('connections')),
    replace: process.argv.includes('--replace'),
  });
  const verdicts = Object.entries(results).map(([rail, rows]) => [rail, rows.every((r) => r.equal)]);
  console.log(`\n${verdicts.map(([rail, ok]) => `${rail}: ${ok ? 'balanced' : 'NOT BALANCED'}`).join(', ')}`);
  process.exitCode = verdicts.every(([, ok]) => ok) ? 0 : 1;
}
