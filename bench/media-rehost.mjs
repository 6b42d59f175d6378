// Memory while kasir re-hosts a large upstream video: a fake fal queue hands back a 400 MB file (generated as it
// streams), kasir downloads it through the safe fetcher into the local media store; the benchmark samples kasir's
// resident memory (VmRSS) every 20 ms and prints the baseline, the peak and the time taken. Streamed, never
// buffered: the peak stays within a few tens of MB of the baseline whatever the file's size.
//   node bench/media-rehost.mjs            (BENCH_VIDEO_MB=400 by default)
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { keyWith, startAdminKasir } from './lib/funded-kasir.mjs';
import { requireBuild } from './lib/harness.mjs';

const MB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_VIDEO_MB ?? 400) * MB;

requireBuild();

/** A minimal fal queue: every job completes at once with one video of SIZE bytes, served from /files/. */
function startFakeFal() {
  const chunk = Buffer.alloc(MB, 0x5a);
  const server = createServer((req, res) => {
    const json = (body) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const base = `http://127.0.0.1:${server.address().port}`;
    if (req.method === 'GET' && req.url === '/files/big.mp4') {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(SIZE) });
      let sent = 0;
      const pump = () => {
        while (sent < SIZE) {
          const part = chunk.subarray(0, Math.min(MB, SIZE - sent));
          sent += part.length;
          if (!res.write(part)) return res.once('drain', pump);
        }
        res.end();
      };
      return pump();
    }
    const m = /^\/([^/]+\/[^/]+)\/requests\/([\w-]+)(\/status)?$/.exec(req.url);
    if (m?.[3]) return json({ status: 'COMPLETED', response_url: `${base}/${m[1]}/requests/${m[2]}` });
    if (m)
      return json({ video: { url: `${base}/files/big.mp4`, content_type: 'video/mp4', file_size: SIZE } });
    req.resume();
    const app = req.url.slice(1).split('/').slice(0, 2).join('/');
    const root = `${base}/${app}/requests/bench-1`;
    json({
      request_id: 'bench-1',
      status_url: `${root}/status`,
      response_url: root,
      cancel_url: `${root}/cancel`,
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const rssMb = (pid) => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return Number(line?.[1] ?? 0) / 1024;
};

const dataDir = await mkdtemp(path.join(tmpdir(), 'kasir-bench-media-'));
const fal = await startFakeFal();
const kasir = await startAdminKasir(dataDir, {
  FAL_KEY: 'bench',
  FAL_BASE_URL: `http://127.0.0.1:${fal.address().port}`,
  MEDIA_POLL_FIRST_MS: '10',
  MEDIA_RESULT_MAX_BYTES: String(SIZE + MB),
});
try {
  const key = await keyWith(kasir, 100_000_000);
  await new Promise((r) => setTimeout(r, 500));
  const baseline = rssMb(kasir.pid);
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(kasir.pid));
  }, 20);
  const started = performance.now();
  const res = await request(`${kasir.url}/v1/video/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'kwaivgi/kling-v2.5-turbo-pro', prompt: 'a long take', duration: '5' }),
    headersTimeout: 600_000,
    bodyTimeout: 600_000,
  });
  const body = await res.body.json();
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  if (res.statusCode !== 200) throw new Error(`kasir answered ${res.statusCode}: ${JSON.stringify(body)}`);
  console.log(
    `re-hosted ${(body.output.sizeBytes / MB).toFixed(0)} MB in ${seconds.toFixed(1)} s ` +
      `(${(body.output.sizeBytes / MB / seconds).toFixed(0)} MB/s); kasir RSS baseline ${baseline.toFixed(0)} MB, ` +
      `peak ${peak.toFixed(0)} MB (+${(peak - baseline).toFixed(0)} MB)`,
  );
} finally {
  kasir.child.kill('SIGTERM');
  fal.close();
  await new Promise((r) => setTimeout(r, 500));
  await rm(dataDir, { recursive: true, force: true });
}
