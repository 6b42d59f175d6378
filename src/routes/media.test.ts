// The media routes on each database and blob store: upload, serving with ranges, and their refusals.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, startKasir, type TestKasir } from '../../test/support/app.js';
import { MEDIA_STORES, startTestBucket, storeLabel, type TestBucket } from '../../test/support/s3.js';

const LIMIT = 32 * 1024;
/** The start of an MP4 file (an `ftyp` box of brand isom): what an upload's type is read from. */
const MP4_HEAD = Buffer.from('00000018667479706973' + '6f6d0000020069736f6d6d703432', 'hex');

async function keptFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

const cases = DB_TARGETS.flatMap((db) =>
  MEDIA_STORES.map((store) => [db, storeLabel(store), store] as const),
);

describe.each(cases)('media routes on %s with %s media', (db, _label, store) => {
  let kasir: TestKasir;
  let s3: TestBucket | undefined;
  beforeAll(async () => {
    s3 = store === 's3' ? await startTestBucket() : undefined;
    kasir = await startKasir(db, { MEDIA_MAX_BYTES: String(LIMIT), ...(s3?.env ?? {}) });
  });
  afterAll(async () => {
    await kasir.close();
    await s3?.close();
  });

  const upload = (body: Uint8Array | null, contentType?: string) =>
    kasir.app.request('/v1/media', {
      method: 'POST',
      body,
      headers: contentType ? { 'content-type': contentType } : {},
    });

  it('stores raw bytes and serves them back with type, length and ETag', async () => {
    const bytes = Buffer.from('GIF89a-some-bytes');
    const res = await upload(bytes, 'image/gif');
    expect(res.status).toBe(201);
    const body = (await res.json()) as { url: string; contentType: string; sizeBytes: number };
    expect(body.contentType).toBe('image/gif');
    expect(body.sizeBytes).toBe(bytes.length);
    expect(body.url).toMatch(/^http:\/\/kasir\.test\/v1\/media\/[0-9a-f]{32}\.gif$/);
    const key = body.url.split('/').pop();
    const got = await kasir.app.request(`/v1/media/${key}`);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/gif');
    expect(got.headers.get('content-length')).toBe(String(bytes.length));
    expect(got.headers.get('accept-ranges')).toBe('bytes');
    const etag = got.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(Buffer.from(await got.arrayBuffer())).toEqual(bytes);

    const notModified = await kasir.app.request(`/v1/media/${key}`, {
      headers: { 'if-none-match': etag ?? '' },
    });
    expect(notModified.status).toBe(304);
  });

  it('serves byte ranges with 206 and Content-Range, and 416 past the end', async () => {
    // A WAV file's signature (RIFF....WAVE), then bytes that spell their own offsets.
    const bytes = Buffer.from('RIFF4567WAVEcdef');
    const { url } = (await (await upload(bytes, 'audio/wav')).json()) as { url: string };
    const key = url.split('/').pop();
    const part = await kasir.app.request(`/v1/media/${key}`, { headers: { range: 'bytes=4-7' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 4-7/16');
    expect(part.headers.get('content-length')).toBe('4');
    expect(await part.text()).toBe('4567');
    const tail = await kasir.app.request(`/v1/media/${key}`, { headers: { range: 'bytes=-3' } });
    expect(await tail.text()).toBe('def');
    const beyond = await kasir.app.request(`/v1/media/${key}`, { headers: { range: 'bytes=99-' } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe('bytes */16');
  });

  it('keeps a key without extension for uncommon subtypes', async () => {
    // Binary bytes of no recognised format: a format kasir has no signature for may be them.
    const res = await upload(Buffer.from([0x00, 0x9f, 0x01]), 'video/x-unheard-of');
    const { url } = (await res.json()) as { url: string };
    expect(url).toMatch(/\/v1\/media\/[0-9a-f]{32}$/);
  });

  it('answers 400 for a malformed key', async () => {
    for (const key of [
      'abc',
      'ABCDEF0123456789ABCDEF0123456789',
      '0123456789abcdef0123456789abcdef.toolongext',
      '../etc/passwd',
    ]) {
      const res = await kasir.app.request(`/v1/media/${encodeURIComponent(key)}`);
      expect(res.status, key).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_input');
    }
  });

  it('answers 404 for an unknown key', async () => {
    const res = await kasir.app.request('/v1/media/0123456789abcdef0123456789abcdef.png');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 'media_not_found' } });
  });

  it('answers 415 for a content type that is not image, video or audio', async () => {
    for (const type of ['application/json', 'text/plain', 'multipart/form-data; boundary=x', undefined]) {
      const res = await upload(Buffer.from('{}'), type);
      expect(res.status, String(type)).toBe(415);
      expect(await res.json()).toMatchObject({ error: { code: 'unsupported_media_type' } });
    }
  });

  it('answers 413 over the limit and keeps nothing (declared length and streamed)', async () => {
    const before = await keptFiles(kasir.dataDir);
    const bucketBefore = await s3?.contents();
    const declared = await upload(Buffer.concat([MP4_HEAD, Buffer.alloc(LIMIT + 1, 7)]), 'video/mp4');
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({ error: { code: 'payload_too_large' } });
    // A chunked body with no Content-Length is counted as it streams.
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new Uint8Array(MP4_HEAD));
        for (let i = 0; i < 40; i++) controller.enqueue(new Uint8Array(1024));
        controller.close();
      },
    });
    const streamed = await kasir.app.request('/v1/media', {
      method: 'POST',
      body: stream,
      headers: { 'content-type': 'video/mp4' },
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await keptFiles(kasir.dataDir)).toEqual(before);
    expect(await s3?.contents()).toEqual(bucketBefore);
    const rows = await kasir.deps.db.kysely
      .selectFrom('media_objects')
      .select('key')
      .where('content_type', '=', 'video/mp4')
      .execute();
    expect(rows).toEqual([]);
  });

  it('answers 400 for an empty body and keeps nothing', async () => {
    const bucketBefore = await s3?.contents();
    const res = await upload(Buffer.alloc(0), 'image/png');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: { code: 'invalid_input', details: [{ field: 'body' }] },
    });
    expect(await s3?.contents()).toEqual(bucketBefore);
  });
});
