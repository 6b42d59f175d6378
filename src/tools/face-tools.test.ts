// The face tools (face-detect, face-embed, face-compare) on each database: answers, uploaded media deleted,
// and refusals.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS } from '../../test/support/app.js';
import { startToolKit, type ToolKit } from '../../test/support/tool-kit.js';

const DIR = path.join(import.meta.dirname, '../../test/fixtures/faces');
const b64 = (name: string) => readFileSync(path.join(DIR, name)).toString('base64');

describe.each(DB_TARGETS)('the face tools on %s', (db) => {
  let kit: ToolKit;
  beforeAll(async () => {
    kit = await startToolKit(db, { PUBLIC_BASE_URL: 'https://kasir.test' });
  });
  afterAll(() => kit.stop());

  it('face-detect: boxes in the pixels of the photo as sent (scaled for the model, mapped back), no embeddings', async () => {
    // 8× the committed crop (784 px wide): larger than FACE_IMAGE_SIDE, so the model reads a scaled copy.
    const big = await sharp(Buffer.from(b64('man-1.jpg'), 'base64'))
      .resize({ width: 392 * 2 })
      .jpeg()
      .toBuffer();
    const { body } = await kit.paid('face-detect', {
      image_base64: `data:image/jpeg;base64,${big.toString('base64')}`,
    });
    expect(body).toMatchObject({ tool: 'tools/face-detect', costMicroUsd: 3000, count: 1 });
    const meta = await sharp(big).metadata();
    expect(body.image).toEqual({ width: meta.width, height: meta.height });
    const [face] = body.faces as Array<Record<string, unknown>>;
    expect(face).toMatchObject({ gender: 'male', score: expect.any(Number), age: expect.any(Number) });
    expect(face).not.toHaveProperty('embedding');
    const box = face?.box as { x: number; y: number; width: number; height: number };
    expect(box.width).toBeGreaterThan(meta.width * 0.6);
    expect(box.x + box.width).toBeLessThanOrEqual(meta.width);
  });

  it('face-detect and face-embed: a photo without a face is an answer with an empty list, and is charged', async () => {
    const { body } = await kit.paid('face-detect', { image_base64: b64('no-face.jpg') });
    expect(body).toMatchObject({ count: 0, faces: [] });
    const embedded = await kit.paid('face-embed', { image_base64: b64('no-face.jpg') });
    expect(embedded.body).toMatchObject({ count: 0, faces: [], dimensions: 1024 });
  });

  it('face-embed: one unit-length 1024-number vector per face', async () => {
    const { body } = await kit.paid('face-embed', { image_base64: b64('woman-1.jpg') });
    expect(body).toMatchObject({ tool: 'tools/face-embed', costMicroUsd: 6000, count: 1, dimensions: 1024 });
    const [face] = body.faces as Array<{ embedding: number[]; gender: string }>;
    expect(face?.gender).toBe('female');
    expect(face?.embedding).toHaveLength(1024);
    expect(Math.hypot(...(face?.embedding ?? []))).toBeCloseTo(1, 3);
  });

  it('face-compare: the same man matches, a different person does not', async () => {
    const same = await kit.paid('face-compare', {
      a: { image_base64: b64('man-1.jpg') },
      b: { image_base64: b64('man-4.jpg') },
    });
    expect(same.body).toMatchObject({
      tool: 'tools/face-compare',
      costMicroUsd: 11000,
      match: true,
      threshold: 0.62,
    });
    expect(same.body.similarity as number).toBeGreaterThanOrEqual(0.62);
    const other = await kit.paid('face-compare', {
      a: { image_base64: b64('man-1.jpg') },
      b: { image_base64: b64('woman-2.jpg') },
    });
    expect(other.body).toMatchObject({ match: false });
    expect(other.body.similarity as number).toBeLessThan(0.62);
  });

  it('reads an uploaded kasir media object and deletes it at once (a face is personal data)', async () => {
    const uploaded = await kit.kasir.app.request('/v1/media', {
      method: 'POST',
      headers: { 'content-type': 'image/jpeg' },
      body: readFileSync(path.join(DIR, 'man-2.jpg')),
    });
    const { url } = (await uploaded.json()) as { url: string };
    await kit.paid('face-detect', { image_url: url });
    expect((await kit.kasir.app.request(new URL(url).pathname)).status).toBe(404);
  });

  it('refuses bad input (400 naming the field) and a faceless image to compare (422 naming it); nothing charged', async () => {
    const junk = Buffer.from('not an image').toString('base64');
    expect((await kit.refused('face-detect', { image_base64: junk }, 400)).error.param).toBe('image_base64');
    expect((await kit.refused('face-detect', {}, 400)).error.code).toBe('invalid_input');
    expect(
      (await kit.refused('face-embed', { image_url: 'http://example.com/a.jpg' }, 400)).error.param,
    ).toBe('image_url');
    expect(
      (
        await kit.refused(
          'face-compare',
          { a: { image_base64: b64('man-1.jpg') }, b: { image_base64: junk } },
          400,
        )
      ).error.param,
    ).toBe('b.image_base64');
    expect(
      (
        await kit.refused(
          'face-compare',
          { a: { image_base64: b64('no-face.jpg') }, b: { image_base64: b64('man-1.jpg') } },
          422,
        )
      ).error.param,
    ).toBe('a');
  });
});
