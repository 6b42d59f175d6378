// The local face model on the committed calibration photos: faces found, and same-person scores against the
// match threshold.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/load.js';
import { cosine, createFaceModel, type DetectedFace } from './model.js';

const THRESHOLD = loadConfig({}).face.matchThreshold;
const DIR = path.join(import.meta.dirname, '../../../test/fixtures/faces');
const photo = (name: string) => readFileSync(path.join(DIR, name));

describe('the local face model on the committed calibration photos', () => {
  const model = createFaceModel({ maxFaces: 10 });
  const faces = new Map<string, DetectedFace[]>();
  beforeAll(async () => {
    for (const name of readdirSync(DIR).filter((f) => f.endsWith('.jpg'))) {
      faces.set(name.replace('.jpg', ''), await model.analyse(photo(name), 640));
    }
  }, 60_000);
  const one = (name: string) => {
    const found = faces.get(name) ?? [];
    expect(found, name).toHaveLength(1);
    return found[0] as DetectedFace;
  };
  const men = Array.from({ length: 9 }, (_, i) => `man-${i + 1}`);
  const women = ['woman-1', 'woman-2', 'woman-3', 'woman-4'];

  it('finds exactly one face in each portrait and none in the photo of a ceiling', () => {
    for (const name of [...men, ...women]) {
      const face = one(name);
      expect(face.score).toBeGreaterThan(0.5);
      expect(face.embedding).toHaveLength(1024);
      expect(Math.hypot(...face.embedding)).toBeCloseTo(1, 3);
    }
    expect(faces.get('no-face')).toEqual([]);
    expect(one('man-1').gender).toBe('male');
    expect(one('woman-1').gender).toBe('female');
  });

  it('finds both faces of two portraits side by side, each in its own half', async () => {
    const both = await sharp({ create: { width: 220, height: 110, channels: 3, background: '#000000' } })
      .composite([
        { input: photo('man-1.jpg'), left: 0, top: 5 },
        { input: photo('woman-1.jpg'), left: 115, top: 5 },
      ])
      .jpeg()
      .toBuffer();
    const found = await model.analyse(both, 640);
    expect(found).toHaveLength(2);
    const centres = found.map((f) => f.boxRaw[0] + f.boxRaw[2] / 2).sort();
    expect(centres[0]).toBeLessThan(0.5);
    expect(centres[1]).toBeGreaterThan(0.5);
  });

  it('scores the same man at or above the match threshold and a different person below it', () => {
    for (const [i, a] of men.entries()) {
      for (const b of men.slice(i + 1)) {
        expect(cosine(one(a).embedding, one(b).embedding), `${a} ~ ${b}`).toBeGreaterThanOrEqual(THRESHOLD);
      }
      for (const w of women) {
        expect(cosine(one(a).embedding, one(w).embedding), `${a} ~ ${w}`).toBeLessThan(THRESHOLD);
      }
    }
  });
});
