// A cached paid data tool (tools/exchange-rate answered from the key-value store, charged to a funded key) against
// the free lookups (wilayah, terbilang) on the same built server: what a paid tool call costs beside a free one.
// Usage: npm run build && node bench/tools.mjs        (env: BENCH_DURATION, BENCH_ROUNDS, BENCH_CONNECTIONS)

import { request } from 'undici';
import { startFrankfurter } from './lib/frankfurter.mjs';
import { keyWith, startAdminKasir } from './lib/funded-kasir.mjs';
import { benchScratch, header, interleaved, pinSelf, printTable, requireBuild } from './lib/harness.mjs';

requireBuild();
pinSelf();
const { dataDir, children, stop } = benchScratch();

const upstream = await startFrankfurter();

try {
  const kasir = await startAdminKasir(dataDir, {
    ...upstream.env,
  });
  children.push(kasir);
  const key = await keyWith(kasir, 100_000_000_000);
  const body = JSON.stringify({ from: 'USD', to: 'IDR', amount: 100 });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const url = `${kasir.url}/v1/tools/exchange-rate`;
  const first = await request(url, { method: 'POST', headers, body });
  if (first.statusCode !== 200)
    throw new Error(`exchange-rate: ${first.statusCode} ${await first.body.text()}`);
  await first.body.dump();
  const second = await request(url, { method: 'POST', headers, body });
  if (second.headers['x-cache'] !== 'hit')
    throw new Error('the second exchange-rate call was not a cache hit');
  await second.body.dump();
  const targets = [
    { ...kasir, name: 'free lookup: wilayah', url: `${kasir.url}/v1/tools/wilayah?q=bandung` },
    { ...kasir, name: 'free lookup: terbilang', url: `${kasir.url}/v1/tools/terbilang?n=1250000` },
    { ...kasir, name: 'paid exchange-rate (cache hit)', url, method: 'POST', headers, body },
  ];
  header('tools');
  printTable('A cached paid tool call against the free lookups', await interleaved(targets));
} finally {
  stop();
  upstream.close();
}
