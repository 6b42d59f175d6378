// tools/kyc-verify on each database: a document read and its photo compared with a selfie, refusals, and
// uploaded media deleted.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS } from '../../test/support/app.js';
import { startToolKit, type ToolKit } from '../../test/support/tool-kit.js';

const DIR = path.join(import.meta.dirname, '../../test/fixtures/faces');
const photo = (name: string) => readFileSync(path.join(DIR, name));
const b64 = (name: string) => photo(name).toString('base64');

/** A card-coloured document with a committed portrait as its printed photo, made here rather than committed. */
async function idCard(portrait: string): Promise<string> {
  const face = await sharp(photo(portrait)).resize({ height: 180 }).toBuffer();
  const card = await sharp({ create: { width: 640, height: 400, channels: 3, background: '#7fb2e5' } })
    .composite([{ input: face, left: 460, top: 110 }])
    .jpeg()
    .toBuffer();
  return card.toString('base64');
}

const KTP = {
  document_type: 'ktp',
  issuing_country: 'IDN',
  id_number: '3171011203850001',
  full_name: 'BUDI SANTOSO',
  birth_place: 'JAKARTA',
  birth_date: '1985-03-12',
  gender: 'laki-laki',
  address: null,
  rt_rw: null,
  village: null,
  district: null,
  city: 'JAKARTA PUSAT',
  province: 'DKI JAKARTA',
  expiry_date: null,
  blood_type: null,
  nationality: 'WNI',
  religion: null,
  marital_status: null,
  sim_class: null,
};

describe.each(DB_TARGETS)('tools/kyc-verify on %s', (db) => {
  let kit: ToolKit;
  let card: string;
  beforeAll(async () => {
    kit = await startToolKit(db, { UPSTREAM_RETRIES: '0', PUBLIC_BASE_URL: 'https://kasir.test' });
    card = await idCard('man-1.jpg');
  });
  afterAll(() => kit.stop());
  const upstream = () => kit.kasir.openai;

  it('reads the document and compares its photo with the selfie: measurements, no verdict', async () => {
    upstream().setScript({ text: JSON.stringify(KTP) });
    const same = await kit.paid('kyc-verify', {
      id_image: { image_base64: card },
      selfie: { image_base64: b64('man-5.jpg') },
    });
    expect(same.body).toMatchObject({
      tool: 'tools/kyc-verify',
      costMicroUsd: 15000,
      model: 'openai/gpt-4.1-mini',
      document: { fields: KTP, verification: { ok: true, agrees: { birth_date: true, gender: true } } },
      face: { match: true, threshold: 0.62, selfie_faces: 1 },
    });
    expect(same.body).not.toHaveProperty('verdict');
    const box = (same.body.face as { document_face: { box: { x: number } } }).document_face.box;
    expect(box.x).toBeGreaterThan(400);

    upstream().setScript({ text: JSON.stringify(KTP) });
    const other = await kit.paid('kyc-verify', {
      id_image: { image_base64: card },
      selfie: { image_base64: b64('woman-3.jpg') },
    });
    expect(other.body.face).toMatchObject({ match: false });
    expect((other.body.face as { similarity: number }).similarity).toBeLessThan(0.62);
  });

  it('refuses a selfie or a document without a face (422 naming it) before asking the vision model; nothing charged', async () => {
    const before = upstream().requests.length;
    expect(
      (
        await kit.refused(
          'kyc-verify',
          { id_image: { image_base64: card }, selfie: { image_base64: b64('no-face.jpg') } },
          422,
        )
      ).error.param,
    ).toBe('selfie');
    expect(
      (
        await kit.refused(
          'kyc-verify',
          { id_image: { image_base64: b64('no-face.jpg') }, selfie: { image_base64: b64('man-2.jpg') } },
          422,
        )
      ).error.param,
    ).toBe('id_image');
    expect(upstream().requests.length).toBe(before);
  });

  it('refuses bad input (400 naming the field) and a model answer outside the schema (502); nothing charged', async () => {
    expect(
      (
        await kit.refused(
          'kyc-verify',
          { id_image: { image_base64: card }, selfie: { image_base64: Buffer.from('x').toString('base64') } },
          400,
        )
      ).error.param,
    ).toBe('selfie.image_base64');
    expect((await kit.refused('kyc-verify', { selfie: { image_base64: card } }, 400)).error.code).toBe(
      'invalid_input',
    );
    upstream().setScript({ text: JSON.stringify({ ...KTP, gender: 'pria' }) });
    await kit.refused(
      'kyc-verify',
      { id_image: { image_base64: card }, selfie: { image_base64: b64('man-2.jpg') } },
      502,
    );
    upstream().setScript({});
  });

  it('deletes uploaded media inputs once read', async () => {
    const upload = async (bytes: Buffer) => {
      const res = await kit.kasir.app.request('/v1/media', {
        method: 'POST',
        headers: { 'content-type': 'image/jpeg' },
        body: bytes,
      });
      return ((await res.json()) as { url: string }).url;
    };
    const doc = await upload(Buffer.from(card, 'base64'));
    const self = await upload(photo('man-3.jpg'));
    upstream().setScript({ text: JSON.stringify(KTP) });
    await kit.paid('kyc-verify', { id_image: { image_url: doc }, selfie: { image_url: self } });
    for (const url of [doc, self])
      expect((await kit.kasir.app.request(new URL(url).pathname)).status).toBe(404);
  });
});
