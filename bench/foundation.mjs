// The foundation's cost: a trivial free route and GET /v1/media/{key} against a bare Hono hello-world.
// Usage: npm run build && node bench/foundation.mjs        (env: BENCH_DURATION, BENCH_ROUNDS, BENCH_CONNECTIONS)
import { request } from 'undici';
import {
  benchScratch,
  header,
  interleaved,
  pinSelf,
  printTable,
  requireBuild,
  startKasirAndBareHono,
} from './lib/harness.mjs';

requireBuild();
pinSelf();
const { dataDir, children, stop } = benchScratch();

try {
  const { hello, kasir } = await startKasirAndBareHono(dataDir);
  children.push(hello, kasir);

  const upload = async (bytes) => {
    const res = await request(`${kasir.url}/v1/media`, {
      method: 'POST',
      headers: { 'content-type': 'image/png' },
      body: Buffer.alloc(bytes, 7),
    });
    const { url } = await res.body.json();
    return new URL(url).pathname;
  };
  const small = await upload(16 * 1024);
  const large = await upload(1024 * 1024);

  header('foundation');
  const rows = await interleaved([
    { ...hello, name: 'bare Hono hello', url: `${hello.url}/hello` },
    { ...kasir, name: 'kasir GET /.well-known/x402', url: `${kasir.url}/.well-known/x402` },
    { ...kasir, name: 'kasir GET /healthz (database)', url: `${kasir.url}/healthz` },
    { ...kasir, name: 'kasir 404 (the edge alone)', url: `${kasir.url}/nowhere`, status: 404 },
    { ...kasir, name: 'kasir GET /v1/media 16 KB', url: `${kasir.url}${small}` },
    { ...kasir, name: 'kasir GET /v1/media 1 MB', url: `${kasir.url}${large}` },
  ]);
  printTable('Free routes against a bare Hono hello-world', rows);
} finally {
  stop();
}
