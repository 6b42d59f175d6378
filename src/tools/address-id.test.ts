// tools/address-id on each database: an address's parts from the model, checked against the official regions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS } from '../../test/support/app.js';
import { startToolKit, type ToolKit } from '../../test/support/tool-kit.js';

const parts = (p: Record<string, string | null>) =>
  JSON.stringify({
    jalan: null,
    nomor: null,
    rt: null,
    rw: null,
    kelurahan: null,
    kecamatan: null,
    kabupaten_kota: null,
    provinsi: null,
    kode_pos: null,
    ...p,
  });

describe.each(DB_TARGETS)('tools/address-id on %s', (db) => {
  let kit: ToolKit;
  beforeAll(async () => {
    kit = await startToolKit(db, { UPSTREAM_RETRIES: '0' });
  });
  afterAll(() => kit.stop());
  const upstream = () => kit.kasir.openai;

  it('asks the default model for the parts in a JSON schema and resolves them against the official regions', async () => {
    const address =
      'Jl. Ir. H. Djuanda No. 5, RT 002/RW 003, Lebakgede, Kec. Coblong, Bandung, Jawa Barat 40132';
    upstream().setScript({
      text: parts({
        jalan: 'Jl. Ir. H. Djuanda',
        nomor: '5',
        rt: '002',
        rw: '003',
        kelurahan: 'Lebakgede',
        kecamatan: 'Coblong',
        kabupaten_kota: 'Bandung',
        provinsi: 'Jawa Barat',
        kode_pos: '40132',
      }),
    });
    const { body } = await kit.paid('address-id', { address });
    const sent = upstream().requests.at(-1)?.body as Record<string, unknown>;
    expect(sent.model).toBe('gpt-4.1-mini');
    expect(sent.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'indonesian_address', strict: true },
    });
    expect(JSON.stringify(sent.messages)).toContain('Lebakgede');
    expect(body).toMatchObject({
      input: address,
      parsed: {
        rt: '002',
        kecamatan: 'Coblong',
        kabupaten_kota: 'Kota Bandung',
        provinsi: 'Jawa Barat',
        kode_pos: '40132',
      },
      wilayah: { kode: '32.73', kabupaten_kota: 'Kota Bandung', provinsi: 'Jawa Barat' },
      verified: { kabupaten_kota: null, provinsi: null },
      checks: {
        kabupaten_kota: { model: 'Bandung', official: 'Kota Bandung', agrees: true },
        provinsi: { model: 'Jawa Barat', official: 'Jawa Barat', agrees: true },
      },
      confidence: 1,
      notes: [],
      model: 'openai/gpt-4.1-mini',
    });
    expect((body.wilayah as { lat: number }).lat).toBeCloseTo(-6.9, 0);
  });

  it('catches a wrong province: Solo is Kota Surakarta in Jawa Tengah, whatever the model wrote', async () => {
    upstream().setScript({
      text: parts({ jalan: 'Jl. Slamet Riyadi', kabupaten_kota: 'Solo', provinsi: 'Jawa Timur' }),
    });
    const { body } = await kit.paid('address-id', { address: 'Jl. Slamet Riyadi 10, Solo' });
    expect(body.wilayah).toMatchObject({
      kode: '33.72',
      kabupaten_kota: 'Kota Surakarta',
      provinsi: 'Jawa Tengah',
    });
    expect(body.verified).toEqual({ kabupaten_kota: null, provinsi: 'Jawa Tengah' });
    expect(body.checks).toEqual({
      kabupaten_kota: { model: 'Solo', official: 'Kota Surakarta', agrees: true },
      provinsi: { model: 'Jawa Timur', official: 'Jawa Tengah', agrees: false },
    });
    expect(body.notes).toContain('Kota Surakarta lies in Jawa Tengah, not in Jawa Timur as written');
    expect(body.confidence).toBeLessThan(0.5);
  });

  it('puts in verified only the corrected names: a misspelt kabupaten/kota, and nothing the model left out', async () => {
    upstream().setScript({ text: parts({ kabupaten_kota: 'Kota Surabay', provinsi: null }) });
    const { body } = await kit.paid('address-id', { address: 'Jl. Tunjungan 1, Surabay' });
    expect(body.wilayah).toMatchObject({ kode: '35.78', provinsi: 'Jawa Timur' });
    expect(body.verified).toEqual({ kabupaten_kota: 'Kota Surabaya', provinsi: null });
  });

  it('picks the kabupaten/kota that holds the kecamatan, and infers it from the kecamatan alone', async () => {
    upstream().setScript({ text: parts({ kecamatan: 'Depok', kabupaten_kota: 'Sleman' }) });
    const sleman = (await kit.paid('address-id', { address: 'Depok, Sleman' })).body;
    expect(sleman.wilayah).toMatchObject({ kode: '34.04', provinsi: 'Daerah Istimewa Yogyakarta' });
    expect(sleman.confidence).toBe(0.85);
    upstream().setScript({ text: parts({ kecamatan: 'Coblong' }) });
    const inferred = (await kit.paid('address-id', { address: 'Coblong' })).body;
    expect(inferred.wilayah).toMatchObject({ kode: '32.73' });
    expect(inferred.notes).toContain('kabupaten_kota inferred from kecamatan Coblong');
  });

  it('answers an address it cannot place with no wilayah and zero confidence', async () => {
    upstream().setScript({ text: parts({ jalan: 'Jl. Kenangan', kabupaten_kota: 'Atlantis' }) });
    const { body } = await kit.paid('address-id', { address: 'Jl. Kenangan, Atlantis' });
    expect(body).toMatchObject({ wilayah: null, confidence: 0 });
    expect(body.notes).toContain('kabupaten_kota "Atlantis" is not an official name');
  });

  it('asks again once when the answer is not JSON of the schema, then gives up with a 502; nothing charged', async () => {
    upstream().setScript(
      { text: 'Sure! Here is the address: Bandung' },
      { text: parts({ kabupaten_kota: 'Medan' }) },
    );
    const before = upstream().requests.length;
    const { body } = await kit.paid('address-id', { address: 'Medan' });
    expect(upstream().requests.length - before).toBe(2);
    expect(body.wilayah).toMatchObject({ kode: '12.71' });

    upstream().setScript({ text: '{"jalan": "Jl. A"}' });
    const refused = await kit.refused('address-id', { address: 'Medan' }, 502);
    expect(refused.error.message).toContain('outside the schema');
    upstream().setScript({ text: 'not json' });
    expect((await kit.refused('address-id', { address: 'Medan' }, 502)).error.message).toContain(
      'no JSON answer',
    );
  });

  it('refuses a missing or blank address (400 naming the field) and an upstream failure (502); nothing charged', async () => {
    expect((await kit.refused('address-id', {}, 400)).error.param).toBe('address');
    expect((await kit.refused('address-id', { address: '   ' }, 400)).error.param).toBe('address');
    upstream().setScript({ failure: { kind: 'status', status: 500 } });
    await kit.refused('address-id', { address: 'Medan' }, 502);
    upstream().setScript({});
  });
});
