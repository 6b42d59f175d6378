// The card renderers end to end: each tool through POST /v1/tools/{name}, the PNG read back from the media store
// and decoded; backgrounds and meme images from a local HTTPS site through the safe fetcher; on each database.
import type { ServerResponse } from 'node:http';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpsSite, startHttpsSite } from '../fakes/https-site.js';
import { DB_TARGETS } from '../support/app.js';
import { bearer, type PaidKasir, startPaidKasir } from '../support/paid.js';
import { decodePng, pngHeaderSize } from '../support/png.js';

/** A 400×300 photo stand-in: a two-colour gradient. */
function photo(): Buffer {
  const png = new PNG({ width: 400, height: 300 });
  for (let y = 0; y < 300; y++)
    for (let x = 0; x < 400; x++) {
      const i = (y * 400 + x) * 4;
      png.data[i] = Math.round((x / 400) * 255);
      png.data[i + 1] = 90;
      png.data[i + 2] = Math.round((y / 300) * 255);
      png.data[i + 3] = 255;
    }
  return PNG.sync.write(png);
}

const ARTICLE = `<!doctype html><html><head><title>fallback</title>
<meta property="og:title" content="Resep rendang Padang">
<meta property="og:description" content="Bumbu lengkap, dimasak tiga jam.">
<meta property="og:site_name" content="Dapur Kita">
<meta property="og:image" content="/photo.png">
</head><body>isi</body></html>`;

function serve(res: ServerResponse, status: number, type: string, body: Buffer | string): void {
  res.writeHead(status, { 'content-type': type });
  res.end(body);
}

interface ToolAnswer {
  tool: string;
  costMicroUsd: number;
  url: string;
  contentType: string;
  width: number;
  height: number;
  sizeBytes: number;
  theme?: string;
  language?: string;
}

interface ErrorJson {
  error: { code: string; message: string; param?: string };
}

describe.each(DB_TARGETS)('image renderers on %s', (db) => {
  let kasir: PaidKasir;
  let site: HttpsSite;
  let key: string;
  let accountId: string;
  const image = photo();

  beforeAll(async () => {
    site = await startHttpsSite((req, res) => {
      if (req.url === '/photo.png') serve(res, 200, 'image/png', image);
      else if (req.url === '/page.txt') serve(res, 200, 'text/plain', 'not an image');
      else if (req.url === '/broken.png') serve(res, 200, 'image/png', 'these bytes are not a PNG');
      else if (req.url === '/article') serve(res, 200, 'text/html; charset=utf-8', ARTICLE);
      else if (req.url === '/bare')
        serve(res, 200, 'text/html', '<html><head><title> Halaman   polos </title></head></html>');
      else if (req.url === '/private-image')
        serve(
          res,
          200,
          'text/html',
          '<meta property="og:title" content="Gambar pribadi"><meta property="og:image" content="https://10.0.0.1/x.png">',
        );
      else serve(res, 500, 'text/plain', 'down');
    });
    kasir = await startPaidKasir(db, { FETCH_ALLOWED_HOSTS: site.hostPort, FETCH_CA_FILE: site.caFile });
    ({ key, accountId } = await kasir.fundedKey(10_000_000));
  });
  afterAll(async () => {
    await kasir?.stop();
    await site?.close();
  });

  const call = (tool: string, body: Record<string, unknown>) =>
    kasir.app.request(`/v1/tools/${tool}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...bearer(key) },
    });
  const quote = (tool: string, body: Record<string, unknown>) =>
    kasir.quote({ ...body, model: `tools/${tool}` });
  const media = async (url: string) => {
    const res = await kasir.app.request(new URL(url).pathname);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    return Buffer.from(await res.arrayBuffer());
  };

  /** Calls a tool that must succeed: 200, charged exactly its quote, the PNG stored at the stated size. */
  async function rendered(tool: string, body: Record<string, unknown>) {
    const before = await kasir.balance(accountId);
    const res = await call(tool, body);
    const text = await res.text();
    expect(res.status, text.slice(0, 300)).toBe(200);
    const answer = JSON.parse(text) as ToolAnswer;
    const cost = quote(tool, body);
    expect(answer.tool).toBe(`tools/${tool}`);
    expect(answer.costMicroUsd).toBe(cost);
    expect(res.headers.get('x-service-charged-micro-usd')).toBe(String(cost));
    expect((await kasir.balance(accountId)).balance).toBe(before.balance - cost);
    expect(answer.contentType).toBe('image/png');
    const bytes = await media(answer.url);
    expect(bytes.length).toBe(answer.sizeBytes);
    expect(pngHeaderSize(bytes)).toEqual({ width: answer.width, height: answer.height });
    const pixels = decodePng(bytes);
    expect({ width: pixels.width, height: pixels.height }).toEqual({
      width: answer.width,
      height: answer.height,
    });
    return { answer, pixels };
  }

  /** Calls a tool that must be refused with `status`, charging nothing. */
  async function refused(tool: string, body: Record<string, unknown>, status: number) {
    const before = await kasir.balance(accountId);
    const res = await call(tool, body);
    expect(res.status).toBe(status);
    expect(res.headers.get('x-service-charged-micro-usd') ?? '0').toBe('0');
    const after = await kasir.balance(accountId);
    expect(after).toEqual(before);
    return (await res.json()) as ErrorJson;
  }

  const sizes: Array<[string, Record<string, unknown>, number, number]> = [
    ['og-image', { title: 'Halo dunia', subtitle: 'Kartu pratinjau' }, 1200, 630],
    ['quote-card', { quote: 'Stay hungry, stay foolish.', author: 'Steve Jobs' }, 1200, 630],
    ['card', { preset: 'og', title: 'Promo', subtitle: 'Diskon 50%' }, 1200, 630],
    ['card', { preset: 'instagram-square', title: 'Promo', subtitle: 'Diskon 50%' }, 1080, 1080],
    ['card', { preset: 'story', title: 'Promo', subtitle: 'Diskon 50%' }, 1080, 1920],
    ['card', { preset: 'linkedin', title: 'Promo', subtitle: 'Diskon 50%' }, 1200, 627],
    ['card', { preset: 'podcast', title: 'Ngobrol Santai', subtitle: 'Episode 12' }, 3000, 3000],
    [
      'youtube-thumbnail',
      { title: 'Belajar TypeScript', subtitle: 'Episode 1', accent: 'ff0055' },
      1280,
      720,
    ],
    ['tweet-image', { text: 'Selamat pagi 🌞 semuanya! ☕🚀', name: 'Kasir', handle: 'kasir' }, 1200, 675],
  ];
  it.each(sizes)('%s renders at its exact size and charges its quote (%o)', async (tool, body, w, h) => {
    const { answer, pixels } = await rendered(tool, body);
    expect({ width: answer.width, height: answer.height }).toEqual({ width: w, height: h });
    // Not blank: text and the accent are drawn on the background.
    expect(pixels.colours(0, 0, w, h)).toBeGreaterThan(8);
  });

  it('draws the light and dark themes in their own colours, and refuses another theme naming the field', async () => {
    const body = { title: 'Tema', subtitle: 'Terang dan gelap' };
    const light = await rendered('og-image', { ...body, theme: 'light' });
    expect(light.answer.theme).toBe('light');
    expect(light.pixels.at(2, 2)).toBe('#f8fafc');
    const dark = await rendered('og-image', { ...body, theme: 'Dark' });
    expect(dark.pixels.at(2, 2)).toBe('#0f172a');
    const json = await refused('og-image', { ...body, theme: 'purple' }, 400);
    expect(json.error.param).toBe('theme');
  });

  it('shrinks and wraps the longest allowed text so nothing reaches the margins', async () => {
    const title = `${'Pengumuman penting untuk seluruh warga Jakarta '.repeat(4)}`.slice(0, 190);
    const subtitle = `${'Mohon dibaca sampai selesai, terima kasih. '.repeat(6)}${'x'.repeat(60)}`.slice(
      0,
      300,
    );
    const { pixels } = await rendered('og-image', { title, subtitle, theme: 'light' });
    // The 72 px margin (1200×630 scale) stays the bare background: no glyph overflowed the text boxes.
    expect(pixels.colours(0, 630 - 60, 1200, 630)).toBe(1);
    expect(pixels.colours(1200 - 60, 0, 1200, 630)).toBe(1);
    expect(pixels.colours(72, 100, 1128, 560)).toBeGreaterThan(8);
    const long = await rendered('quote-card', { quote: 'kata '.repeat(99), author: 'A'.repeat(120) });
    // Right of the 16 px accent border, the bottom and right margins stay bare.
    expect(long.pixels.colours(16, 630 - 60, 1200, 630)).toBe(1);
    expect(long.pixels.colours(1200 - 60, 0, 1200, 630)).toBe(1);
  });

  it('highlights code in a dark window, detecting the language from the file name', async () => {
    const code = 'export function halo(nama: string): string {\n\treturn `Halo, " + nama + "!`;\n}\n';
    const { answer, pixels } = await rendered('code-image', { code, title: 'halo.ts' });
    expect(answer.language).toBe('ts');
    expect(answer.width).toBeGreaterThanOrEqual(800);
    expect(pixels.colours(0, 0, answer.width, answer.height)).toBeGreaterThan(8);
    const named = await rendered('code-image', { code: 'print("halo")', title: 'x', language: 'python' });
    expect(named.answer.language).toBe('python');
    const json = await refused('code-image', { code: 'x', title: 'x', language: 'klingon' }, 400);
    expect(json.error.param).toBe('language');
    const many = await refused('code-image', { code: 'x\n'.repeat(450), title: 'x.txt' }, 400);
    expect(many.error.param).toBe('code');
  });

  it('draws a meme over an image read through the safe fetcher, at the image aspect ratio', async () => {
    const { answer, pixels } = await rendered('meme', {
      image: `${site.url}/photo.png`,
      top: 'ketika kode jalan',
      bottom: 'di percobaan pertama',
    });
    expect({ width: answer.width, height: answer.height }).toEqual({ width: 1080, height: 810 });
    expect(pixels.colours(0, 0, 1080, 810)).toBeGreaterThan(100);
    const thumb = await rendered('youtube-thumbnail', {
      title: 'Dengan latar',
      subtitle: 'gambar',
      background: `${site.url}/photo.png`,
    });
    expect(thumb.answer.width).toBe(1280);
  });

  it('refuses bad input with a 400 naming the field, charging nothing', async () => {
    expect((await refused('og-image', { subtitle: 'no title' }, 400)).error.param).toBe('title');
    expect((await refused('card', { preset: 'poster', title: 'a', subtitle: 'b' }, 400)).error.param).toBe(
      'preset',
    );
    expect(
      (await refused('meme', { image: 'http://example.com/a.png', top: 'a', bottom: 'b' }, 400)).error.param,
    ).toBe('image');
  });

  it('refuses a background or image on a private address, naming the field, charging nothing', async () => {
    const privateBackground = await refused(
      'card',
      { preset: 'og', title: 'a', subtitle: 'b', background: 'https://127.0.0.2:9/x.png' },
      400,
    );
    expect(privateBackground.error.param).toBe('background');
    expect(privateBackground.error.message).toContain('loopback');
    const metadata = await refused(
      'meme',
      { image: 'https://169.254.169.254/latest/meta-data/', top: 'a', bottom: 'b' },
      400,
    );
    expect(metadata.error.param).toBe('image');
    expect(metadata.error.message).toContain('linkLocal');
  });

  it('refuses an image that is not one, and answers 502 when its server fails, charging nothing', async () => {
    const body = { top: 'a', bottom: 'b' };
    expect((await refused('meme', { ...body, image: `${site.url}/page.txt` }, 400)).error.param).toBe(
      'image',
    );
    expect((await refused('meme', { ...body, image: `${site.url}/broken.png` }, 400)).error.param).toBe(
      'image',
    );
    const failed = await refused('meme', { ...body, image: `${site.url}/missing.png` }, 502);
    expect(failed.error.code).toBe('upstream_error');
  });

  it("auto-og reads a page's Open Graph tags and draws them over its og:image", async () => {
    const { answer, pixels } = await rendered('auto-og', { url: `${site.url}/article` });
    expect(answer).toMatchObject({
      sourceTitle: 'Resep rendang Padang',
      sourceUrl: `${site.url}/article`,
      sourceImage: `${site.url}/photo.png`,
      width: 1200,
      height: 630,
    });
    expect(pixels.colours(0, 0, 1200, 630)).toBeGreaterThan(100);
    const bare = await rendered('auto-og', { url: `${site.url}/bare` });
    expect((bare.answer as unknown as { sourceTitle: string }).sourceTitle).toBe('Halaman polos');
    // A page's og:image on a private address is left out; the card is still drawn (and charged).
    const priv = await rendered('auto-og', { url: `${site.url}/private-image` });
    expect((priv.answer as unknown as { sourceImage: string | null }).sourceImage).toBeNull();
  });

  it('auto-og refuses private and non-HTML pages (400 naming url) and answers 502 for a failing one, charging nothing', async () => {
    expect((await refused('auto-og', { url: 'https://127.0.0.1:9/' }, 400)).error.param).toBe('url');
    expect((await refused('auto-og', { url: `${site.url}/photo.png` }, 400)).error.param).toBe('url');
    expect((await refused('auto-og', { url: `${site.url}/missing` }, 502)).error.code).toBe('upstream_error');
  });
});
