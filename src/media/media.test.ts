// The media service on each database and blob store: storing, reading by range and deleting; and parseRange.
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, startKasir, type TestKasir } from '../../test/support/app.js';
import { MEDIA_STORES, startTestBucket, storeLabel, type TestBucket } from '../../test/support/s3.js';
import { parseRange } from './service.js';
import { MediaTooLargeError } from './store.js';

const cases = DB_TARGETS.flatMap((db) =>
  MEDIA_STORES.map((store) => [db, storeLabel(store), store] as const),
);

describe.each(cases)('media service on %s with %s blobs', (db, _label, store) => {
  let kasir: TestKasir;
  let s3: TestBucket | undefined;
  beforeAll(async () => {
    s3 = store === 's3' ? await startTestBucket() : undefined;
    kasir = await startKasir(db, { MEDIA_MAX_BYTES: String(64 * 1024), ...(s3?.env ?? {}) });
  });
  afterAll(async () => {
    await kasir.close();
    await s3?.close();
  });

  it('stores a stream, records its metadata and reads it back whole and by range', async () => {
    const bytes = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251));
    const saved = await kasir.deps.media.save(
      'image/png',
      Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]),
    );
    expect(saved.key).toMatch(/^[0-9a-f]{32}\.png$/);
    expect(saved.url).toBe(`http://kasir.test/v1/media/${saved.key}`);
    expect(saved.sizeBytes).toBe(5000);
    const meta = await kasir.deps.media.head(saved.key);
    expect(meta).toMatchObject({ key: saved.key, content_type: 'image/png', size_bytes: 5000 });
    expect(meta?.etag).toMatch(/^"[0-9a-f]{32}"$/);
    const whole = await kasir.deps.media.open(saved.key, undefined);
    expect(whole && (await buffer(whole.body))).toEqual(bytes);
    const part = await kasir.deps.media.open(saved.key, { start: 10, end: 19 });
    expect(part && (await buffer(part.body))).toEqual(bytes.subarray(10, 20));
  });

  it('refuses an object over the limit and keeps nothing', async () => {
    const before = await kasir.deps.db.kysely.selectFrom('media_objects').select('key').execute();
    const bucketBefore = await s3?.contents();
    const big = Readable.from(
      (function* () {
        for (let i = 0; i < 80; i++) yield Buffer.alloc(1024, 1);
      })(),
    );
    await expect(kasir.deps.media.save('video/mp4', big)).rejects.toBeInstanceOf(MediaTooLargeError);
    const after = await kasir.deps.db.kysely.selectFrom('media_objects').select('key').execute();
    expect(after).toEqual(before);
    expect(await s3?.contents()).toEqual(bucketBefore);
  });

  it("stores a provider's result under the type its bytes show, but raw audio under the type declared", async () => {
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(64, 7)]);
    const relabelled = await kasir.deps.media.save('video/mp4', Readable.from([png]), undefined, 'provider');
    expect(relabelled.contentType).toBe('image/png');
    // 0x0B77 is an AC3 frame's sync word: two bytes that raw PCM samples spell now and then.
    const pcm = Buffer.concat([Buffer.from('0b77', 'hex'), Buffer.alloc(4096, 3)]);
    const audio = await kasir.deps.media.save('audio/pcm', Readable.from([pcm]), undefined, 'provider');
    expect(audio.contentType).toBe('audio/pcm');
  });

  it('deletes bytes and metadata', async () => {
    const saved = await kasir.deps.media.save('audio/mpeg', Readable.from([Buffer.from('id3')]));
    if (s3) expect((await s3.contents()).objects).toContain(saved.key);
    await kasir.deps.media.delete(saved.key);
    if (s3) expect((await s3.contents()).objects).not.toContain(saved.key);
    expect(await kasir.deps.media.head(saved.key)).toBeNull();
    expect(await kasir.deps.media.open(saved.key, undefined)).toBeNull();
  });
});

describe('parseRange', () => {
  it('reads single byte ranges as RFC 9110 defines them', () => {
    expect(parseRange(undefined, 100)).toEqual({ kind: 'whole' });
    expect(parseRange('bytes=0-9', 100)).toEqual({ kind: 'range', range: { start: 0, end: 9 } });
    expect(parseRange('bytes=90-', 100)).toEqual({ kind: 'range', range: { start: 90, end: 99 } });
    expect(parseRange('bytes=-10', 100)).toEqual({ kind: 'range', range: { start: 90, end: 99 } });
    expect(parseRange('bytes=50-500', 100)).toEqual({ kind: 'range', range: { start: 50, end: 99 } });
    expect(parseRange('bytes=100-', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-0', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=0-1,5-6', 100)).toEqual({ kind: 'whole' });
    expect(parseRange('items=0-1', 100)).toEqual({ kind: 'whole' });
  });
});
