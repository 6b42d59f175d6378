// The face model's verification accuracy: every pair of the face photos the project can use offline (the committed
// crops in test/fixtures/faces, from the MIT-licensed human package: nine photos of one man, four of four women),
// scored with cosine similarity; it prints the genuine and impostor score ranges, the accuracy, false-match and
// false-non-match rates at FACE_MATCH_THRESHOLD, and the threshold that separates the pairs best.
// No public face-verification set (LFW pairs or similar) is published in an npm package, and nothing may be
// downloaded at run time, so this is a sanity check on 78 pairs, not a benchmark result: see the README.
//
//   npm run build && node bench/face-verify.mjs        (FACE_MATCH_THRESHOLD overrides the configured threshold)
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { requireBuild, root } from './lib/harness.mjs';

requireBuild();
const dist = (file) => import(pathToFileURL(path.join(root, 'dist', file)).href);
const { cosine, createFaceModel, FACE_EMBEDDING_DIMENSIONS, FACE_MODEL_ID } =
  await dist('tools/face/model.js');
const { loadConfig } = await dist('config/load.js');
const threshold = loadConfig(process.env).face.matchThreshold;

const dir = path.join(root, 'test/fixtures/faces');
const model = createFaceModel({ maxFaces: 10 });
const people = [];
for (const file of readdirSync(dir).filter((f) => /^(man|woman)-\d+\.jpg$/.test(f))) {
  const [face] = await model.analyse(readFileSync(path.join(dir, file)), 640);
  if (!face) throw new Error(`no face found in ${file}`);
  // The nine man-* photos are one person; each woman-* photo is a different one.
  const identity = file.startsWith('man-') ? 'man' : file.replace('.jpg', '');
  people.push({ file, identity, embedding: face.embedding });
}

const genuine = [];
const impostor = [];
for (let i = 0; i < people.length; i++) {
  for (let j = i + 1; j < people.length; j++) {
    const a = people[i];
    const b = people[j];
    (a.identity === b.identity ? genuine : impostor).push(cosine(a.embedding, b.embedding));
  }
}

const stats = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  return `n ${xs.length}  min ${sorted[0].toFixed(3)}  mean ${mean.toFixed(3)}  max ${sorted.at(-1).toFixed(3)}`;
};
const at = (t) => {
  const fnm = genuine.filter((s) => s < t).length;
  const fm = impostor.filter((s) => s >= t).length;
  return { fnm, fm, accuracy: 1 - (fnm + fm) / (genuine.length + impostor.length) };
};
const pct = (n) => `${(n * 100).toFixed(1)}%`;

// The best threshold: the midpoint between neighbouring scores that makes the fewest errors.
const all = [...genuine, ...impostor].sort((a, b) => a - b);
let best = { t: threshold, ...at(threshold) };
for (let i = 1; i < all.length; i++) {
  const t = (all[i - 1] + all[i]) / 2;
  const r = at(t);
  if (r.accuracy > best.accuracy) best = { t, ...r };
}
const configured = at(threshold);

console.log(
  `\nFace verification, ${FACE_MODEL_ID} (${FACE_EMBEDDING_DIMENSIONS}-d), ${people.length} photos`,
);
console.log(`genuine pairs   ${stats(genuine)}`);
console.log(`impostor pairs  ${stats(impostor)}`);
console.log(
  `at FACE_MATCH_THRESHOLD ${threshold}: accuracy ${pct(configured.accuracy)}  false non-matches ${configured.fnm}/${genuine.length}  false matches ${configured.fm}/${impostor.length}`,
);
console.log(
  `best separating threshold ${best.t.toFixed(3)}: accuracy ${pct(best.accuracy)}  margin (lowest genuine - highest impostor) ${(Math.min(...genuine) - Math.max(...impostor)).toFixed(3)}`,
);
