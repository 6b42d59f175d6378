// The S3 blob store against the tests' S3-compatible server (Ceph's RADOS Gateway in CI, s3rver elsewhere): objects
// of one part and of several (a multipart upload), ranged reads across part boundaries, unknown keys, deletes, and
// nothing left behind — no object, no open multipart upload — when a body runs over the limit or fails mid-way.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3_SERVER, startTestBucket, type TestBucket } from '../../test/support/s3.js';
import { startTcpServer } from '../../test/support/tcp-server.js';
import { createS3Store } from './s3.js';
import { type MediaBlobStore, MediaTooLargeError } from './store.js';

const MB = 1024 * 1024;

/** `size` bytes that differ from one offset to the next, streamed in chunks of `chunk`. */
function patterned(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 7 + (i >> 10)) % 256;
  return bytes;
}
function chunked(bytes: Buffer, chunk = 256 * 1024): Readable {
  return Readable.from(
    (function* () {
      for (let at = 0; at < bytes.length; at += chunk) yield bytes.subarray(at, at + chunk);
    })(),
  );
}
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe(`the S3 media store on ${S3_SERVER}`, () => {
  let s3: TestBucket;
  let store: MediaBlobStore;
  beforeAll(async () => {
    s3 = await startTestBucket();
    store = createS3Store({
      kind: 's3',
      bucket: s3.bucket,
      endpoint: s3.endpoint,
      region: 'us-east-1',
      accessKeyId: s3.env.S3_ACCESS_KEY_ID,
      secretAccessKey: s3.env.S3_SECRET_ACCESS_KEY,
      forcePathStyle: true,
    });
  });
  afterAll(async () => {
    await store?.close();
    await s3?.close();
  });

  it('stores an object of one part with its type, and reads it whole and by range', async () => {
    const bytes = patterned(300_000);
    const stored = await store.put('one-part.png', 'image/png', chunked(bytes, 64 * 1024), 40 * MB);
    expect(stored.sizeBytes).toBe(bytes.length);
    expect(stored.etag).toBe(`"${sha256(bytes).slice(0, 32)}"`);
    const head = await s3.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: 'one-part.png' }));
    expect(head.ContentType).toBe('image/png');
    expect(head.ContentLength).toBe(bytes.length);
    const whole = await store.read('one-part.png');
    // Compared by digest: a deep equality of 300 kB takes seconds.
    expect(whole && sha256(await buffer(whole))).toBe(sha256(bytes));
    const part = await store.read('one-part.png', { start: 1000, end: 1999 });
    expect(part && (await buffer(part))).toEqual(bytes.subarray(1000, 2000));
    const last = await store.read('one-part.png', { start: bytes.length - 1, end: bytes.length - 1 });
    expect(last && (await buffer(last))).toEqual(bytes.subarray(-1));
  });

  it('streams an object of several parts (a multipart upload) and reads ranges across the part boundaries', async () => {
    const bytes = patterned(12 * MB + 12_345);
    const stored = await store.put('multi.mp4', 'video/mp4', chunked(bytes), 40 * MB);
    expect(stored.sizeBytes).toBe(bytes.length);
    expect(stored.etag).toBe(`"${sha256(bytes).slice(0, 32)}"`);
    const head = await s3.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: 'multi.mp4' }));
    expect(head.ContentType).toBe('video/mp4');
    expect(head.ContentLength).toBe(bytes.length);
    const whole = await store.read('multi.mp4');
    expect(whole && sha256(await buffer(whole))).toBe(sha256(bytes));
    for (const boundary of [5 * MB, 10 * MB]) {
      const across = await store.read('multi.mp4', { start: boundary - 100, end: boundary + 99 });
      expect(across && (await buffer(across))).toEqual(bytes.subarray(boundary - 100, boundary + 100));
    }
    expect((await s3.contents()).uploads).toEqual([]);
  });

  it('keeps nothing when a body runs over the limit after parts were sent, nor when it fails mid-way', async () => {
    const before = await s3.contents();
    const over = store.put('over.mp4', 'video/mp4', chunked(patterned(13 * MB)), 11 * MB);
    await expect(over).rejects.toBeInstanceOf(MediaTooLargeError);
    const failing = Readable.from(
      (async function* () {
        yield patterned(6 * MB);
        throw new Error('the upstream hung up');
      })(),
    );
    await expect(store.put('broken.mp4', 'video/mp4', failing, 40 * MB)).rejects.toThrow(
      'the upstream hung up',
    );
    const small = Readable.from(
      (async function* () {
        yield Buffer.from('RIFF');
        throw new Error('gone after four bytes');
      })(),
    );
    await expect(store.put('small.wav', 'audio/wav', small, 40 * MB)).rejects.toThrow(
      'gone after four bytes',
    );
    expect(await s3.contents()).toEqual(before);
    expect(await store.read('over.mp4')).toBeNull();
  });

  it('answers null for an unknown key, deletes, and deletes an unknown key without complaint', async () => {
    expect(await store.read('0123456789abcdef0123456789abcdef.png')).toBeNull();
    expect(await store.read('0123456789abcdef0123456789abcdef.png', { start: 0, end: 9 })).toBeNull();
    await store.put('gone.gif', 'image/gif', Readable.from([Buffer.from('GIF89a')]), MB);
    await store.delete('gone.gif');
    expect(await store.read('gone.gif')).toBeNull();
    await store.delete('gone.gif');
    expect((await s3.contents()).objects).not.toContain('gone.gif');
  });
});

describe('the S3 media store when the store stops answering', () => {
  it('fails a read and a write past its idle timeout instead of holding the call', async () => {
    // Accepts connections and never answers, like a stalled store.
    const silent = await startTcpServer();
    const store = createS3Store(
      {
        kind: 's3',
        bucket: 'stalled',
        endpoint: `http://127.0.0.1:${silent.port}`,
        region: 'us-east-1',
        accessKeyId: 'test',
        secretAccessKey: 'test-secret',
        forcePathStyle: true,
      },
      { connectionMs: 1_000, idleMs: 300 },
    );
    try {
      const started = performance.now();
      await expect(store.read('a.png')).rejects.toThrow();
      await expect(
        store.put('b.png', 'image/png', Readable.from([Buffer.from('png')]), MB),
      ).rejects.toThrow();
      // Each request is tried three times (the SDK's default), each cut after 300 ms of silence.
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(silent.sockets.length).toBeGreaterThan(0);
    } finally {
      await store.close();
      silent.close();
    }
  }, 30_000);
});
