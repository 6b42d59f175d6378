// Golden images: fixed inputs drawn by each card layout, compared with committed references within a small pixel
// tolerance (anti-aliasing may differ by a shade). Update the references after an intended change with
//   UPDATE_GOLDEN=1 npx vitest run test/golden
// and look at the new PNGs in test/golden/ref/ before committing them.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { renderCodeCard } from '../../src/render/code-card.js';
import { highlight } from '../../src/render/highlight.js';
import type { RenderedPng } from '../../src/render/png.js';
import { renderQuoteCard } from '../../src/render/quote-card.js';
import { THEMES } from '../../src/render/themes.js';
import { renderTitleCard } from '../../src/render/title-card.js';
import { renderTweetCard } from '../../src/render/tweet-card.js';

const REF = path.join(import.meta.dirname, 'ref');
const UPDATE = process.env.UPDATE_GOLDEN === '1';
/** A channel may differ by this much before a pixel counts as different. */
const SHADE = 48;
/** The share of pixels that may differ. */
const SHARE = 0.002;

const CASES: Array<[string, () => Promise<RenderedPng>]> = [
  [
    'og-image-light',
    () =>
      renderTitleCard({
        width: 1200,
        height: 630,
        title: 'Selamat datang di kasir',
        subtitle: 'Gerbang bayar-per-panggilan untuk model dan data',
        theme: THEMES.light,
        accent: THEMES.light.accent,
      }),
  ],
  ['quote-card-dark', () => renderQuoteCard('Ilmu itu seperti air.', 'Pepatah', THEMES.dark)],
  [
    'tweet-image',
    () =>
      renderTweetCard({ text: 'Kopi pagi ☕ lalu deploy 🚀', name: 'Kasir', handle: 'kasir' }, THEMES.light),
  ],
  [
    'code-image',
    async () =>
      renderCodeCard('halo.py', await highlight('def halo(nama):\n    return f"Halo, {nama}!"\n', 'python')),
  ],
];

describe('golden card images', () => {
  it.each(CASES)('%s matches its reference', async (name, draw) => {
    const rendered = await draw();
    const file = path.join(REF, `${name}.png`);
    if (UPDATE || !existsSync(file)) {
      if (!UPDATE) throw new Error(`no reference ${file}: run UPDATE_GOLDEN=1 npx vitest run test/golden`);
      writeFileSync(file, rendered.png);
      return;
    }
    const got = PNG.sync.read(rendered.png);
    const want = PNG.sync.read(readFileSync(file));
    expect({ width: got.width, height: got.height }).toEqual({ width: want.width, height: want.height });
    let differing = 0;
    for (let i = 0; i < got.data.length; i += 4) {
      for (let c = 0; c < 4; c++) {
        if (Math.abs((got.data[i + c] ?? 0) - (want.data[i + c] ?? 0)) > SHADE) {
          differing++;
          break;
        }
      }
    }
    expect(differing / (got.width * got.height)).toBeLessThanOrEqual(SHARE);
  });

  it('tells a different text apart from the reference', async () => {
    const file = path.join(REF, 'og-image-light.png');
    if (!existsSync(file)) return;
    const other = await renderTitleCard({
      width: 1200,
      height: 630,
      title: 'Selamat datang di kasir!',
      subtitle: 'Teks lain di baris kedua',
      theme: THEMES.light,
      accent: THEMES.light.accent,
    });
    const got = PNG.sync.read(other.png);
    const want = PNG.sync.read(readFileSync(file));
    let differing = 0;
    for (let i = 0; i < got.data.length; i += 4)
      if (Math.abs((got.data[i] ?? 0) - (want.data[i] ?? 0)) > SHADE) differing++;
    expect(differing / (got.width * got.height)).toBeGreaterThan(SHARE);
  });
});
