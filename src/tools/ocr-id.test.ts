// tools/ocr-id on each database: a KTP read and its NIK checked against the card, NPWP and passport numbers,
// and refusals.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS } from '../../test/support/app.js';
import { startToolKit, type ToolKit } from '../../test/support/tool-kit.js';

/** A small photo-like PNG (a card-coloured rectangle), made here rather than committed. */
async function cardPng(): Promise<Buffer> {
  return sharp({ create: { width: 320, height: 200, channels: 3, background: '#7fb2e5' } })
    .png()
    .toBuffer();
}

const fields = (f: Record<string, unknown>) =>
  JSON.stringify({
    document_type: 'ktp',
    issuing_country: 'IDN',
    id_number: null,
    full_name: null,
    birth_place: null,
    birth_date: null,
    gender: null,
    address: null,
    rt_rw: null,
    village: null,
    district: null,
    city: null,
    province: null,
    expiry_date: null,
    blood_type: null,
    nationality: null,
    religion: null,
    marital_status: null,
    sim_class: null,
    ...f,
  });

describe.each(DB_TARGETS)('tools/ocr-id on %s', (db) => {
  let kit: ToolKit;
  let png: Buffer;
  beforeAll(async () => {
    kit = await startToolKit(db, { UPSTREAM_RETRIES: '0', PUBLIC_BASE_URL: 'https://kasir.test' });
    png = await cardPng();
  });
  afterAll(() => kit.stop());
  const upstream = () => kit.kasir.openai;

  it('reads a KTP and checks the NIK against the birth date, gender and region printed beside it', async () => {
    upstream().setScript({
      text: fields({
        id_number: '3171011203850001',
        full_name: 'BUDI SANTOSO',
        birth_place: 'JAKARTA',
        birth_date: '1985-03-12',
        gender: 'laki-laki',
        city: 'JAKARTA PUSAT',
        province: 'DKI JAKARTA',
        expiry_date: null,
      }),
    });
    const { body } = await kit.paid('ocr-id', { image_base64: png.toString('base64') });
    const sent = upstream().requests.at(-1)?.body as {
      messages: Array<{ content: unknown }>;
      response_format: unknown;
    };
    const parts = sent.messages[1]?.content as Array<{ type: string; image_url?: { url: string } }>;
    const image = parts.find((p) => p.type === 'image_url')?.image_url?.url ?? '';
    expect(image.startsWith('data:image/jpeg;base64,')).toBe(true);
    expect((await sharp(Buffer.from(image.split(',')[1] ?? '', 'base64')).metadata()).width).toBe(320);
    expect(sent.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'identity_document' },
    });
    expect(body).toMatchObject({
      fields: { document_type: 'ktp', id_number: '3171011203850001', full_name: 'BUDI SANTOSO' },
      verification: {
        ok: true,
        format: 'nik16',
        region: { kode: '31.71.01', kabupaten_kota: 'Kota Administrasi Jakarta Pusat' },
        birth_date: '1985-03-12',
        gender: 'laki-laki',
        agrees: { birth_date: true, gender: true },
        notes: [
          'two-digit year 85 read as 1985: the latest century that does not put the birth date in the future',
        ],
      },
      model: 'openai/gpt-4.1-mini',
    });
    expect((body.verification as { note: string }).note).toContain('not proof');
  });

  it("flags a NIK that disagrees with the card: a woman's NIK on a card printed laki-laki, another city", async () => {
    upstream().setScript({
      text: fields({
        id_number: '3171015203850002',
        birth_date: '1985-03-12',
        gender: 'laki-laki',
        city: 'KOTA BANDUNG',
      }),
    });
    const { body } = await kit.paid('ocr-id', {
      image_base64: `data:image/png;base64,${png.toString('base64')}`,
    });
    expect(body.verification).toMatchObject({
      ok: false,
      gender: 'perempuan',
      agrees: { birth_date: true, gender: false },
    });
    expect((body.verification as { notes: string[] }).notes).toContain(
      "the NIK's region is Kota Administrasi Jakarta Pusat, the card says KOTA BANDUNG",
    );
  });

  it('checks an NPWP structure; says it has no check for a passport number', async () => {
    upstream().setScript({ text: fields({ document_type: 'npwp', id_number: '01.312.166.0-091.000' }) });
    const npwp = (await kit.paid('ocr-id', { image_base64: png.toString('base64') })).body;
    expect(npwp.verification).toMatchObject({ ok: true, format: 'legacy15' });
    upstream().setScript({
      text: fields({ document_type: 'passport', issuing_country: 'MYS', id_number: 'A12345678' }),
    });
    const passport = (await kit.paid('ocr-id', { image_base64: png.toString('base64') })).body;
    expect(passport.verification).toMatchObject({
      ok: null,
      format: null,
      notes: ['kasir has no structural check for the number of a passport'],
    });
  });

  it('reads an uploaded kasir media object and deletes it at once', async () => {
    const uploaded = await kit.kasir.app.request('/v1/media', {
      method: 'POST',
      headers: { 'content-type': 'image/png' },
      body: png,
    });
    expect(uploaded.status).toBe(201);
    const { url } = (await uploaded.json()) as { url: string };
    expect(url.startsWith('https://kasir.test/v1/media/')).toBe(true);
    upstream().setScript({ text: fields({ id_number: '3171011203850001' }) });
    await kit.paid('ocr-id', { image_url: url });
    const path = new URL(url).pathname;
    expect((await kit.kasir.app.request(path)).status).toBe(404);
    // Read once: the same link again is a 400, nothing charged.
    expect((await kit.refused('ocr-id', { image_url: url }, 400)).error.param).toBe('image_url');
  });

  it('refuses unreadable images and missing inputs (400 naming the field) and a model failure (502); nothing charged', async () => {
    const before = upstream().requests.length;
    expect(
      (await kit.refused('ocr-id', { image_base64: Buffer.from('hello').toString('base64') }, 400)).error,
    ).toMatchObject({
      param: 'image_base64',
      message: expect.stringContaining('not a readable image'),
    });
    expect((await kit.refused('ocr-id', { image_base64: '%%%' }, 400)).error.param).toBe('image_base64');
    expect((await kit.refused('ocr-id', {}, 400)).error.code).toBe('invalid_input');
    expect(upstream().requests.length).toBe(before);
    upstream().setScript({ failure: { kind: 'status', status: 500 } });
    await kit.refused('ocr-id', { image_base64: png.toString('base64') }, 502);
    upstream().setScript({ text: '{"document_type": "ktp"}' });
    await kit.refused('ocr-id', { image_base64: png.toString('base64') }, 502);
    upstream().setScript({});
  });
});
