// The face model's cost, in one process on one core: the time to load it (on the first call), face-embed's latency
// per image and faces per second on the committed test photos, and the resident memory before and after loading.
//
//   npm run build && node bench/face.mjs        (BENCH_FACE_ROUNDS: passes over the photos, default 5)
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { requireBuild, root } from './lib/harness.mjs';

requireBuild();
const { createFaceModel } = await import(pathToFileURL(path.join(root, 'dist/tools/face/model.js')).href);
const ROUNDS = Number(process.env.BENCH_FACE_ROUNDS ?? 5);
const dir = path.join(root, 'test/fixtures/faces');
const photos = readdirSync(dir)
  .filter((f) => f.endsWith('.jpg'))
  .map((f) => readFileSync(path.join(dir, f)));
const mb = (n) => `${(n / 1024 / 1024).toFixed(0)} MB`;

const idle = process.memoryUsage().rss;
const model = createFaceModel({ maxFaces: 10 });
let t = performance.now();
await model.analyse(photos[0], 640);
const firstMs = performance.now() - t;
const loaded = process.memoryUsage().rss;

const latencies = [];
let faces = 0;
let peak = loaded;
t = performance.now();
for (let r = 0; r < ROUNDS; r++) {
  for (const photo of photos) {
    const t0 = performance.now();
    faces += (await model.analyse(photo, 640)).length;
    latencies.push(performance.now() - t0);
    peak = Math.max(peak, process.memoryUsage().rss);
  }
}
const totalMs = performance.now() - t;
latencies.sort((a, b) => a - b);
console.log(
  `\nThe face model (human + tfjs WASM), ${latencies.length} images of ${photos.length} test photos, one at a time`,
);
console.log(`first call (model load + one image)  ${firstMs.toFixed(0)} ms`);
console.log(
  `per image  p50 ${latencies[Math.floor(latencies.length / 2)].toFixed(1)} ms  p99 ${latencies[Math.floor(latencies.length * 0.99)].toFixed(1)} ms   ${((faces / totalMs) * 1000).toFixed(1)} faces/s`,
);
console.log(`resident memory  idle ${mb(idle)}  model loaded ${mb(loaded)}  peak ${mb(peak)}`);
