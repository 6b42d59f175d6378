// Image inputs by URL for the vision tools: fetched from an allowed host, re-encoded as JPEG, and the
// refusals.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/load.js';
import { CallAbort } from '../../http/call-signal.js';
import type { Media } from '../../media/service.js';
import type { ToolDeps } from '../types.js';
import { createImageReader, type ImageReader } from './image-input.js';

/** The image reader's URL path: a local origin serving a photo, text and an endless body. */
describe('image inputs by URL', () => {
  let server: Server;
  let origin: string;
  let photo: Buffer;
  const reader = (env: Record<string, string>): ImageReader => {
    const config = loadConfig({ ...env, VISION_IMAGE_MAX_BYTES: '65536' });
    const media = {
      urlOf: (key: string) => `https://kasir.test/v1/media/${key}`,
      keyOf: () => null,
    } as unknown as Media;
    return createImageReader({ config, media } as ToolDeps);
  };
  const call = () => ({ signal: new CallAbort(), requestId: 'test' });

  beforeAll(async () => {
    photo = await sharp({
      create: { width: 64, height: 48, channels: 3, background: '#208040' },
    })
      .withExif({ IFD0: { Copyright: 'someone', Artist: 'a camera owner' } })
      .jpeg()
      .toBuffer();
    server = createServer((req, res) => {
      if (req.url === '/photo.jpg') res.writeHead(200, { 'content-type': 'image/jpeg' }).end(photo);
      else if (req.url === '/page') res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
      else res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(100_000));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('fetches a photo from an allowed host and sends it as JPEG without its metadata', async () => {
    expect((await sharp(photo).metadata()).exif).toBeInstanceOf(Buffer);
    const allowed = reader({ FETCH_ALLOWED_HOSTS: origin.replace('http://', '') });
    const got = await allowed.read({ image_url: `${origin}/photo.jpg` }, call(), { deleteMedia: false });
    expect([got.width, got.height]).toEqual([64, 48]);
    const sent = Buffer.from(got.dataUri.replace('data:image/jpeg;base64,', ''), 'base64');
    const meta = await sharp(sent).metadata();
    expect([meta.format, meta.width, meta.exif]).toEqual(['jpeg', 64, undefined]);
  });

  it('refuses a private address, a page that is not an image and a body past the limit, naming the field', async () => {
    const refusedWith = async (r: ImageReader, url: string) => {
      const err = await r
        .read({ image_url: url }, call(), { deleteMedia: false, field: 'a' })
        .catch((e) => e);
      return { status: err.status, field: err.details?.[0]?.field, message: String(err.message) };
    };
    expect(await refusedWith(reader({}), `${origin}/photo.jpg`)).toMatchObject({
      status: 400,
      field: 'a.image_url',
      message: expect.stringContaining('could not be fetched'),
    });
    const allowed = reader({ FETCH_ALLOWED_HOSTS: origin.replace('http://', '') });
    expect((await refusedWith(allowed, `${origin}/page`)).status).toBe(400);
    expect((await refusedWith(allowed, `${origin}/huge`)).message).toContain('65536');
  });
});
