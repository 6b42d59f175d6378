// The spec's "upload to POST /v1/media, then pass the url" flow on an http deployment: the vision, face and ID tools
// read kasir's own media links from the store by key (over http or https), while other image URLs must be https.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolKit, type ToolKit } from '../../../test/support/tool-kit.js';

const FACE = readFileSync(path.join(import.meta.dirname, '../../../test/fixtures/faces/man-2.jpg'));

describe('kasir media links in the face tools on an http deployment', () => {
  let kit: ToolKit;
  beforeAll(async () => {
    // The test kasir's PUBLIC_BASE_URL is http://kasir.test; MEDIA_PUBLIC_BASE_URL is unset.
    kit = await startToolKit('sqlite', {});
  });
  afterAll(() => kit.stop());

  const upload = async () => {
    const res = await kit.kasir.app.request('/v1/media', {
      method: 'POST',
      headers: { 'content-type': 'image/jpeg' },
      body: FACE,
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { url: string }).url;
  };

  it('answers 200 for an uploaded http link and charges the quote', async () => {
    const url = await upload();
    expect(url).toMatch(/^http:\/\/kasir\.test\/v1\/media\//);
    const { body } = await kit.paid('face-detect', { image_url: url });
    expect(body).toMatchObject({ count: 1 });
  });

  it('knows the same link over https', async () => {
    const url = (await upload()).replace(/^http:/, 'https:');
    const { body } = await kit.paid('face-embed', { image_url: url });
    expect(body).toMatchObject({ count: 1 });
  });

  it('refuses a plain-http image elsewhere, and a link to no object, naming the field; nothing charged', async () => {
    const http = await kit.refused('face-detect', { image_url: 'http://example.com/a.jpg' }, 400);
    expect(http.error.param).toBe('image_url');
    expect(http.error.message).toContain('https');
    const gone = await kit.refused(
      'face-detect',
      { image_url: `http://kasir.test/v1/media/${'0'.repeat(32)}.jpg` },
      400,
    );
    expect(gone.error.param).toBe('image_url');
  });
});
