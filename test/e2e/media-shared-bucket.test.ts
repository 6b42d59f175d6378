// Two kasir instances on one database and one S3 bucket (a real S3-compatible server in CI), each served over HTTP:
// an object uploaded through A, a provider's file re-hosted through A and an async job's result stored by A are all
// read through B — GET, HEAD, ranges, If-None-Match — with the same bytes and the same headers as through A; an object
// deleted through A is gone for B.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
  type MockInstance,
  vi,
} from 'vitest';
import { type RunningServer, startServer } from '../../src/server.js';
import { type FakeFal, startFakeFal } from '../fakes/fal-upstream.js';
import { DB_TARGETS } from '../support/app.js';
import { bearer, type PaidKasir, startPaidKasir, UPSTREAM_KEYS } from '../support/paid.js';
import { startTestBucket, storeLabel, type TestBucket } from '../support/s3.js';
import { freshPostgres } from '../support/services.js';

const FUNDS = 50_000_000;
const FLUX = 'black-forest-labs/flux-schnell@fal';
const VIDEO = { model: 'kwaivgi/kling-v2.5-turbo-pro', prompt: 'waves on a reef', duration: '5' };

/** Headers that differ from one response to the next by design, whichever instance answers. */
const PER_RESPONSE = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);

interface Read {
  status: number;
  headers: Record<string, string>;
  bytes: Buffer;
}

async function read(base: string, key: string, init: RequestInit = {}): Promise<Read> {
  const res = await fetch(`${base}/v1/media/${key}`, init);
  const headers = Object.fromEntries([...res.headers].filter(([name]) => !PER_RESPONSE.has(name)));
  return { status: res.status, headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** A GIF's signature, then `size` more bytes that spell their offsets. */
const gif = (size: number) =>
  Buffer.concat([Buffer.from('GIF89a'), Buffer.from(Array.from({ length: size }, (_, i) => (i * 13) % 256))]);

const keyOf = (url: string) => String(url.split('/').pop());

describe.each(DB_TARGETS)(`two instances on one %s database and one bucket (${storeLabel('s3')})`, (db) => {
  let fal: FakeFal;
  let bucket: TestBucket;
  let cleanup: () => Promise<void>;
  let a: PaidKasir;
  let b: PaidKasir;
  let httpA: RunningServer;
  let httpB: RunningServer;

  // Nothing the servers write goes wrong: a HEAD answered twice, say, is logged there (and its connection dropped).
  let serverErrors: MockInstance<typeof console.error>;
  beforeEach(() => {
    serverErrors = vi.spyOn(console, 'error');
  });
  afterEach(() => {
    expect(serverErrors.mock.calls).toEqual([]);
    serverErrors.mockRestore();
  });

  beforeAll(async () => {
    fal = await startFakeFal({ apiKey: UPSTREAM_KEYS.fal });
    bucket = await startTestBucket();
    let databaseUrl: string;
    if (db === 'postgres') {
      const pg = await freshPostgres();
      databaseUrl = pg.url;
      cleanup = pg.drop;
    } else {
      const dir = await mkdtemp(path.join(tmpdir(), 'kasir-shared-'));
      databaseUrl = `sqlite:${path.join(dir, 'shared.db')}`;
      cleanup = () => rm(dir, { recursive: true, force: true });
    }
    const env = { DATABASE_URL: databaseUrl, ...bucket.env };
    a = await startPaidKasir(db, env, { fal });
    b = await startPaidKasir(db, env, { fal, openai: a.openai, anthropic: a.anthropic, gemini: a.gemini });
    httpA = await startServer(a.app, '127.0.0.1', 0);
    httpB = await startServer(b.app, '127.0.0.1', 0);
  });
  afterAll(async () => {
    await httpB?.stop(1000);
    await httpA?.stop(1000);
    await b?.stop();
    await a?.stop();
    await fal?.close();
    await cleanup?.();
    await bucket?.close();
  });

  /** Every way of reading `key`, through A and through B: the same status, headers and bytes. */
  async function expectSameThroughBoth(key: string, bytes: Buffer): Promise<void> {
    const etag = (await read(httpA.url, key, { method: 'HEAD' })).headers.etag ?? '';
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const last = bytes.length - 1;
    const ways: Array<[string, RequestInit, number, Buffer]> = [
      ['GET', {}, 200, bytes],
      ['HEAD', { method: 'HEAD' }, 200, Buffer.alloc(0)],
      ['a range', { headers: { range: 'bytes=100-4195' } }, 206, bytes.subarray(100, 4196)],
      ['a suffix range', { headers: { range: 'bytes=-10' } }, 206, bytes.subarray(-10)],
      ['an open range', { headers: { range: `bytes=${last}-` } }, 206, bytes.subarray(last)],
      ['a HEAD of a range', { method: 'HEAD', headers: { range: 'bytes=0-0' } }, 206, Buffer.alloc(0)],
      ['a range past the end', { headers: { range: `bytes=${bytes.length}-` } }, 416, Buffer.alloc(0)],
      ['If-None-Match', { headers: { 'if-none-match': etag } }, 304, Buffer.alloc(0)],
    ];
    const seen = new Map<string, Read>();
    for (const [way, init, status, body] of ways) {
      const [viaA, viaB] = [await read(httpA.url, key, init), await read(httpB.url, key, init)];
      expect(viaA.status, way).toBe(status);
      expect(viaB.status, way).toBe(status);
      expect(viaB.headers, way).toEqual(viaA.headers);
      expect(viaA.bytes.equals(body), way).toBe(true);
      expect(viaB.bytes.equals(body), way).toBe(true);
      seen.set(way, viaB);
    }
    // A HEAD answers the head its GET would, body aside.
    expect(seen.get('HEAD')?.headers).toEqual(seen.get('GET')?.headers);
    const firstByte = await read(httpB.url, key, { headers: { range: 'bytes=0-0' } });
    expect(seen.get('a HEAD of a range')?.headers).toEqual(firstByte.headers);
    const whole = await read(httpB.url, key);
    expect(whole.headers['content-length']).toBe(String(bytes.length));
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(whole.headers.etag).toBe(etag);
    expect(
      (await read(httpB.url, key, { headers: { range: 'bytes=100-4195' } })).headers['content-range'],
    ).toBe(`bytes 100-4195/${bytes.length}`);
    // The bytes are in the bucket, not on either instance's disk.
    expect((await bucket.contents()).objects).toContain(key);
  }

  it('reads through B an object uploaded through A: GET, HEAD, ranges and If-None-Match alike', async () => {
    const bytes = gif(200_000);
    const res = await fetch(`${httpA.url}/v1/media`, {
      method: 'POST',
      headers: { 'content-type': 'image/gif' },
      body: bytes,
    });
    const uploaded = (await res.json()) as { url: string; contentType: string; sizeBytes: number };
    expect(res.status, JSON.stringify(uploaded)).toBe(201);
    expect(uploaded).toMatchObject({ contentType: 'image/gif', sizeBytes: bytes.length });
    const key = keyOf(uploaded.url);
    await expectSameThroughBoth(key, bytes);
    expect((await read(httpB.url, key)).headers['content-type']).toBe('image/gif');
  });

  it("reads through B a provider's file re-hosted through A, byte for byte", async () => {
    const { key } = await a.fundedKey(FUNDS);
    fal.setScript({ polls: 1, fileBytes: 30_000 });
    const res = await fetch(`${httpA.url}/v1/images/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(key) },
      body: JSON.stringify({ model: FLUX, prompt: 'a lighthouse at dusk' }),
    });
    const answer = (await res.json()) as { output?: { url: string } };
    expect(res.status, JSON.stringify(answer)).toBe(200);
    const upstream = [...fal.files.entries()].find(([u]) => u.includes(fal.submits.at(-1)?.requestId ?? '?'));
    expect(upstream).toBeDefined();
    await expectSameThroughBoth(keyOf(String(answer.output?.url)), upstream?.[1].bytes ?? Buffer.alloc(0));
    fal.setScript({});
  });

  it("serves through B an async job's result that A stored, and B answers the job's status", async () => {
    const { key } = await a.fundedKey(FUNDS);
    fal.setScript({ polls: 3, fileBytes: 120_000 });
    const res = await fetch(`${httpA.url}/v1/video/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', prefer: 'respond-async', ...bearer(key) },
      body: JSON.stringify(VIDEO),
    });
    expect(res.status).toBe(202);
    const { job_id } = (await res.json()) as { job_id: string };
    // A took the job and polls it; B reads its status from the shared database until A has stored the result.
    type Job = { status: string; result?: { output: { url: string; sizeBytes: number } } };
    let done: Job | undefined;
    for (let i = 0; i < 400 && !done; i++) {
      const status = await fetch(`${httpB.url}/v1/jobs/${job_id}`);
      expect(status.status).toBe(200);
      const body = (await status.json()) as Job;
      if (body.status === 'succeeded' || body.status === 'failed') done = body;
      else await new Promise((r) => setTimeout(r, 10));
    }
    expect(done?.status, JSON.stringify(done)).toBe('succeeded');
    expect(done?.result?.output.sizeBytes).toBe(120_000);
    const upstream = [...fal.files.entries()].find(([u]) => u.includes(fal.submits.at(-1)?.requestId ?? '?'));
    await expectSameThroughBoth(
      keyOf(String(done?.result?.output.url)),
      upstream?.[1].bytes ?? Buffer.alloc(0),
    );
    expect((await read(httpB.url, keyOf(String(done?.result?.output.url)))).headers['content-type']).toBe(
      'video/mp4',
    );
    fal.setScript({});
  });

  it('answers 404 through B for an object deleted through A', async () => {
    const bytes = gif(5000);
    const res = await fetch(`${httpA.url}/v1/media`, {
      method: 'POST',
      headers: { 'content-type': 'image/gif' },
      body: bytes,
    });
    const key = keyOf(((await res.json()) as { url: string }).url);
    expect((await read(httpB.url, key)).bytes.equals(bytes)).toBe(true);
    await a.deps.media.delete(key);
    expect((await read(httpB.url, key)).status).toBe(404);
    expect((await read(httpB.url, key, { method: 'HEAD' })).status).toBe(404);
    expect((await bucket.contents()).objects).not.toContain(key);
  });

  it('answers 404 to GET and HEAD when the bytes are gone from the bucket though their record is not', async () => {
    const res = await fetch(`${httpA.url}/v1/media`, {
      method: 'POST',
      headers: { 'content-type': 'image/gif' },
      body: gif(3000),
    });
    const key = keyOf(((await res.json()) as { url: string }).url);
    expect((await read(httpB.url, key, { method: 'HEAD' })).status).toBe(200);
    await bucket.client.send(new DeleteObjectCommand({ Bucket: bucket.bucket, Key: key }));
    expect((await read(httpB.url, key, { method: 'HEAD' })).status).toBe(404);
    expect((await read(httpB.url, key)).status).toBe(404);
    expect((await read(httpA.url, key, { headers: { range: 'bytes=0-9' } })).status).toBe(404);
  });
});
