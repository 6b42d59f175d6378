// The six free lookups on the built server, against a bare Hono hello-world on the same machine.
// Usage: npm run build && node bench/lookups.mjs        (env: BENCH_DURATION, BENCH_ROUNDS, BENCH_CONNECTIONS)
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { request } from 'undici';
import {
  benchScratch,
  header,
  interleaved,
  pinSelf,
  printTable,
  requireBuild,
  root,
  startKasirAndBareHono,
} from './lib/harness.mjs';

requireBuild();
pinSelf();
const { crc16 } = await import(pathToFileURL(path.join(root, 'dist/lookups/qris.js')).href);

const tlv = (tag, value) => `${tag}${String(value.length).padStart(2, '0')}${value}`;
const qrisBody =
  tlv('00', '01') +
  tlv('01', '11') +
  tlv(
    '26',
    tlv('00', 'COM.GO-JEK.WWW') +
      tlv('01', '936009143456789012') +
      tlv('02', 'G123456789') +
      tlv('03', 'UMI'),
  ) +
  tlv('51', tlv('00', 'ID.CO.QRIS.WWW') + tlv('02', 'ID1025411846005') + tlv('03', 'UMI')) +
  tlv('52', '5812') +
  tlv('53', '360') +
  tlv('58', 'ID') +
  tlv('59', 'WARUNG BU SRI') +
  tlv('60', 'JAKARTA PUSAT') +
  tlv('62', tlv('07', 'A01'));
const qris = `${qrisBody}6304${crc16(`${qrisBody}6304`)}`;

const ROUTES = [
  ['wilayah', '/v1/tools/wilayah', { q: 'bandung' }],
  ['prayer-times', '/v1/tools/prayer-times', { city: 'Jakarta', date: '2026-03-04' }],
  ['verify-nik', '/v1/tools/verify-nik', { nik: '3171011203850001', birth_date: '12-03-1985', gender: 'L' }],
  ['verify-npwp', '/v1/tools/verify-npwp', { npwp: '01.312.166.0-091.000' }],
  ['qris', '/v1/tools/qris', { payload: qris, amount: '15000' }],
  ['terbilang', '/v1/tools/terbilang', { n: '1.250.000' }],
];

const { dataDir, children, stop } = benchScratch();
try {
  const { hello, kasir } = await startKasirAndBareHono(dataDir);
  children.push(hello, kasir);
  const targets = [
    { ...hello, name: 'bare Hono hello', url: `${hello.url}/hello` },
    // Everything kasir does to any request (request id, access log, rate-limit check, routing, error body).
    { ...kasir, name: 'kasir floor (404)', url: `${kasir.url}/no-such-route`, status: 404 },
  ];
  for (const [name, route, params] of ROUTES) {
    const url = `${kasir.url}${route}?${new URLSearchParams(params)}`;
    const res = await request(url);
    if (res.statusCode !== 200) throw new Error(`${name}: ${res.statusCode} ${await res.body.text()}`);
    await res.body.dump();
    targets.push({ ...kasir, name, url });
  }
  header('lookups');
  printTable('The six free lookups against a bare Hono hello-world', await interleaved(targets));
} finally {
  stop();
}
