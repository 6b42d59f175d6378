// Media can never run as a page of kasir's origin: uploads are checked against their bytes (a mismatch is a 400
// naming both types), every download carries nosniff and a sandboxing CSP, SVG and other executable types are
// downloads, and media links use MEDIA_PUBLIC_BASE_URL when it is set (the public base URL when it is not).
import { readdir } from 'node:fs/promises';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKasir, type TestKasir } from '../../test/support/app.js';
import { MediaTypeMismatchError } from '../media/store.js';

const SVG_WITH_SCRIPT = Buffer.from(
  '<?xml version="1.0" encoding="UTF-8"?>\n<!-- a logo -->\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">' +
    '<script>document.title = "ran"</script><rect width="10" height="10"/></svg>',
);
const HTML_PAGE = Buffer.from(
  '<!DOCTYPE html><html><body><script>document.title = "ran"</script></body></html>',
);

async function files(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).length;
}

describe('media safety', () => {
  let kasir: TestKasir;
  let png: Buffer;
  let jpeg: Buffer;
  beforeAll(async () => {
    kasir = await startKasir('sqlite');
    const image = sharp({ create: { width: 4, height: 4, channels: 3, background: '#336699' } });
    png = await image.clone().png().toBuffer();
    jpeg = await image.clone().jpeg().toBuffer();
  });
  afterAll(() => kasir.close());

  const upload = (body: Buffer, contentType: string) =>
    kasir.app.request('/v1/media', { method: 'POST', body, headers: { 'content-type': contentType } });
  const download = (url: string) => kasir.app.request(new URL(url).pathname);

  it('serves a raster image inline, with nosniff and a CSP that runs nothing', async () => {
    const res = await upload(png, 'image/png');
    expect(res.status).toBe(201);
    const got = await download(((await res.json()) as { url: string }).url);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    expect(got.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
    expect(got.headers.get('content-disposition')).toBeNull();
    expect(Buffer.from(await got.arrayBuffer())).toEqual(png);
  });

  it('keeps an SVG that says it is one, and serves it as a sandboxed download (so are its ranges and HEAD)', async () => {
    const res = await upload(SVG_WITH_SCRIPT, 'image/svg+xml');
    expect(res.status).toBe(201);
    const { url } = (await res.json()) as { url: string };
    expect(url).toMatch(/\.svg$/);
    const key = url.split('/').pop();
    for (const init of [{}, { method: 'HEAD' }, { headers: { range: 'bytes=0-9' } }]) {
      const got = await kasir.app.request(`/v1/media/${key}`, init);
      expect(got.status).toBeLessThan(300);
      expect(got.headers.get('content-type')).toBe('image/svg+xml');
      expect(got.headers.get('content-disposition')).toBe(`attachment; filename="${key}"`);
      expect(got.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
      expect(got.headers.get('x-content-type-options')).toBe('nosniff');
      await got.arrayBuffer();
    }
  });

  it.each([
    ['an HTML page sent as a PNG', () => HTML_PAGE, 'image/png', 'text/html'],
    ['an SVG sent as a PNG', () => SVG_WITH_SCRIPT, 'image/png', 'image/svg+xml'],
    ['an HTML page sent as an SVG', () => HTML_PAGE, 'image/svg+xml', 'text/html'],
    ['a JPEG sent as a PNG', () => jpeg, 'image/png', 'image/jpeg'],
    ['plain text sent as an MP3', () => Buffer.from('just words'), 'audio/mpeg', 'text/plain'],
    ['XML sent as a GIF', () => Buffer.from('<?xml version="1.0"?><feed/>'), 'image/gif', 'application/xml'],
  ])(
    'refuses %s: 400 naming the body and both types, nothing kept',
    async (_name, bytes, declared, actual) => {
      const before = await files(kasir.dataDir);
      const res = await upload(bytes(), declared);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { code: string; message: string; details: unknown } };
      expect(body.error.code).toBe('invalid_input');
      expect(body.error.message).toContain(actual);
      expect(body.error.message).toContain(declared);
      expect(body.error.details).toEqual([
        { field: 'body', message: `is ${actual}, not ${declared} (the Content-Type header)` },
      ]);
      expect(await files(kasir.dataDir)).toBe(before);
    },
  );

  it('refuses bytes of no recognised type sent as a format that has a signature', async () => {
    const res = await upload(Buffer.from([0x00, 0x01, 0x02, 0x03, 0xfe]), 'video/mp4');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(
      'of no recognised media type, but Content-Type says video/mp4',
    );
  });

  it('stores a provider result under the type its bytes show, and refuses markup it did not declare', async () => {
    const { media } = kasir.deps;
    const saved = await media.save('image/png', Readable.from([jpeg]));
    expect(saved.contentType).toBe('image/jpeg');
    expect(saved.key).toMatch(/\.jpg$/);
    await expect(media.save('image/png', Readable.from([HTML_PAGE]))).rejects.toBeInstanceOf(
      MediaTypeMismatchError,
    );
    await expect(media.save('video/mp4', Readable.from([SVG_WITH_SCRIPT]))).rejects.toMatchObject({
      declared: 'video/mp4',
      detected: 'image/svg+xml',
    });
  });

  it('without MEDIA_PUBLIC_BASE_URL, links use the public base URL and are known over http and https', async () => {
    const { media } = kasir.deps;
    expect(kasir.config.mediaPublicBaseUrl).toBeUndefined();
    const key = `${'a'.repeat(32)}.png`;
    expect(media.urlOf(key)).toBe(`http://kasir.test/v1/media/${key}`);
    expect(media.keyOf(`http://kasir.test/v1/media/${key}`)).toBe(key);
    expect(media.keyOf(`https://KASIR.test/v1/media/${key}?x=1#y`)).toBe(key);
    expect(media.keyOf(`http://other.test/v1/media/${key}`)).toBeNull();
    expect(media.keyOf(`http://kasir.test/v1/media/../${key}`)).toBeNull();
    expect(media.keyOf(`ftp://kasir.test/v1/media/${key}`)).toBeNull();
  });
});

describe('media on a separate origin (MEDIA_PUBLIC_BASE_URL)', () => {
  let kasir: TestKasir;
  beforeAll(async () => {
    kasir = await startKasir('sqlite', { MEDIA_PUBLIC_BASE_URL: 'https://media.kasir.test/' });
  });
  afterAll(() => kasir.close());

  it('hands out media links on that origin, serves them, and still knows links under the public base URL', async () => {
    const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    const res = await kasir.app.request('/v1/media', {
      method: 'POST',
      body: png,
      headers: { 'content-type': 'image/png' },
    });
    const { url } = (await res.json()) as { url: string };
    expect(url).toMatch(/^https:\/\/media\.kasir\.test\/v1\/media\/[0-9a-f]{32}\.png$/);
    const key = url.split('/').pop() ?? '';
    const got = await kasir.app.request(new URL(url).pathname);
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer())).toEqual(png);
    expect(kasir.deps.media.keyOf(url)).toBe(key);
    expect(kasir.deps.media.keyOf(`http://media.kasir.test/v1/media/${key}`)).toBe(key);
    expect(kasir.deps.media.keyOf(`http://kasir.test/v1/media/${key}`)).toBe(key);
  });
});
