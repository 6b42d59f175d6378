// tools/product-listing: a listing written from a photo by the vision model, over a JSON-schema response or
// (on Anthropic) one forced function call.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS } from '../../test/support/app.js';
import { startToolKit, type ToolKit } from '../../test/support/tool-kit.js';

const LISTING = {
  title_id: 'Sepatu Kanvas Merah Tali',
  title_en: 'Red Lace-up Canvas Shoes',
  description_id: 'Sepatu kanvas warna merah dengan tali putih dan sol karet putih.',
  description_en: 'Red canvas shoes with white laces and a white rubber sole.',
  category: 'Fashion Pria > Sepatu',
  condition: null,
  material: 'kanvas',
  colors: ['merah', 'putih'],
  tags: ['sepatu', 'kanvas', 'sneakers'],
};

describe.each(DB_TARGETS)('tools/product-listing on %s', (db) => {
  let kit: ToolKit;
  let photo: string;
  beforeAll(async () => {
    kit = await startToolKit(db, { UPSTREAM_RETRIES: '0', PUBLIC_BASE_URL: 'https://kasir.test' });
    // A 3000×2000 photo stand-in: larger than the 2048 side the model is sent.
    photo = (
      await sharp({ create: { width: 3000, height: 2000, channels: 3, background: '#c0302a' } })
        .jpeg()
        .toBuffer()
    ).toString('base64');
  });
  afterAll(() => kit.stop());
  const upstream = () => kit.kasir.openai;

  it('writes the listing from the photo, scaled down to the side the model is sent', async () => {
    upstream().setScript({ text: JSON.stringify(LISTING) });
    const { body } = await kit.paid('product-listing', { image_base64: `data:image/jpeg;base64,${photo}` });
    expect(body).toMatchObject({
      tool: 'tools/product-listing',
      costMicroUsd: 8000,
      model: 'openai/gpt-4.1-mini',
    });
    expect(body.listing).toEqual(LISTING);
    const sent = upstream().requests.at(-1)?.body as { messages: Array<{ content: unknown }> };
    const parts = sent.messages[1]?.content as Array<{ image_url?: { url: string } }>;
    const part = parts[1];
    const meta = await sharp(Buffer.from(part?.image_url?.url.split(',')[1] ?? '', 'base64')).metadata();
    expect([meta.width, meta.height, meta.format]).toEqual([2048, 1365, 'jpeg']);
  });

  it("leaves a caller's uploaded photo in place (only identity tools delete what they read)", async () => {
    const uploaded = await kit.kasir.app.request('/v1/media', {
      method: 'POST',
      headers: { 'content-type': 'image/jpeg' },
      body: Buffer.from(photo, 'base64'),
    });
    const { url } = (await uploaded.json()) as { url: string };
    upstream().setScript({ text: JSON.stringify(LISTING) });
    await kit.paid('product-listing', { image_url: url });
    const kept = await kit.kasir.app.request(new URL(url).pathname);
    expect(kept.status).toBe(200);
    // Read to the end: the body is the stored file's stream, which is closed once read.
    expect(Buffer.from(await kept.arrayBuffer())).toEqual(Buffer.from(photo, 'base64'));
  });

  it('refuses a listing outside the schema twice (502) and a bad image (400); nothing charged', async () => {
    upstream().setScript({ text: JSON.stringify({ ...LISTING, condition: 'like new' }) });
    expect((await kit.refused('product-listing', { image_base64: photo }, 502)).error.message).toContain(
      'outside the schema',
    );
    expect(
      (
        await kit.refused(
          'product-listing',
          { image_base64: Buffer.from('GIF89a-broken').toString('base64') },
          400,
        )
      ).error.param,
    ).toBe('image_base64');
    expect(
      (await kit.refused('product-listing', { image_url: 'http://example.com/a.jpg' }, 400)).error.param,
    ).toBe('image_url');
    upstream().setScript({});
  });
});

describe('tools/product-listing through Anthropic', () => {
  let kit: ToolKit;
  beforeAll(async () => {
    kit = await startToolKit('sqlite', { UPSTREAM_RETRIES: '0', VISION_MODEL: 'anthropic/claude-haiku-4-5' });
  });
  afterAll(() => kit.stop());

  it('forces one function call whose parameters are the schema, where the wire format has no JSON-schema response', async () => {
    kit.kasir.anthropic.setScript({ toolCalls: [{ name: 'product_listing', arguments: LISTING }] });
    const pixel = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#fff' } })
      .png()
      .toBuffer();
    const { body } = await kit.paid('product-listing', { image_base64: pixel.toString('base64') });
    expect(body).toMatchObject({ listing: LISTING, model: 'anthropic/claude-haiku-4-5' });
    const sent = kit.kasir.anthropic.requests.at(-1)?.body as Record<string, unknown>;
    expect(sent.tool_choice).toEqual({ type: 'tool', name: 'product_listing' });
    expect(sent.tools).toMatchObject([{ name: 'product_listing', input_schema: { required: LISTING_KEYS } }]);
  });

  it('a VISION_MODEL that cannot read images leaves the tool unavailable: 503 before any payment', async () => {
    const other = await startToolKit('sqlite', { VISION_MODEL: 'deepseek/deepseek-chat' });
    try {
      const pixel = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#fff' } })
        .png()
        .toBuffer();
      const refused = await other.refused('product-listing', { image_base64: pixel.toString('base64') }, 503);
      expect(refused.error.message).toContain('VISION_MODEL naming a catalog chat model that reads images');
    } finally {
      await other.stop();
    }
  });
});

const LISTING_KEYS = Object.keys(LISTING);
